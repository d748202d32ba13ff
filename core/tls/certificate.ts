/**
 * The certificate Sello's LAN listener serves (CONTRACT §2): generated into the data folder, or
 * configured (`SELLO_TLS_CERT_FILE`, `SELLO_TLS_KEY_FILE`).
 *
 * Generated: a local CA (`tls/ca.cert.pem`, 10 years) signs a server certificate
 * (`tls/server.cert.pem`, 397 days) for every name and address of the machine. The CA is what
 * the ERP's computer trusts (`curl --cacert ca.cert.pem`, or the system store): when the server
 * certificate is made again (an address changed, or it nears its end) the clients need nothing
 * new. Keys are 0600 in a 0700 folder.
 */
import { X509Certificate, createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSecureContext } from 'node:tls';
import { ConfigError } from '../config.js';
import { canonicalIp, sameNames, type MachineNames } from './names.js';

export interface ServerCertificate {
  source: 'generated' | 'configured';
  /** PEM: the server certificate, then any chain the configured file carries. */
  certPem: string;
  keyPem: string;
  /** SHA-256 of the server certificate's DER, `AB:CD:…` as `openssl x509 -fingerprint -sha256` prints it. */
  fingerprint: string;
  notAfter: Date;
  /** Its subject alternative names (wildcard DNS names left out). */
  names: MachineNames;
  certFile: string;
  /** The local CA a client trusts; generated certificates only. */
  caFile?: string;
  caFingerprint?: string;
}

const DAY = 86_400_000;
/** CA/Browser Forum's ceiling for server certificates; clients that check it accept this. */
export const SERVER_DAYS = 397;
/** A server certificate is made again when it has fewer days left than this. */
export const RENEW_DAYS = 30;
const CA_DAYS = 3650;

/** `DNS:a, IP Address:1.2.3.4` → names; other kinds and wildcards are left out. */
export function subjectAltNames(cert: X509Certificate): MachineNames {
  const dns = new Set<string>();
  const ips = new Set<string>();
  for (const entry of (cert.subjectAltName ?? '').split(', ')) {
    if (entry.startsWith('DNS:') && !entry.includes('*') && !entry.includes('"')) dns.add(entry.slice(4).toLowerCase());
    else if (entry.startsWith('IP Address:')) ips.add(canonicalIp(entry.slice(11)));
  }
  return { dns: [...dns].sort(), ips: [...ips].sort() };
}

function describe(cert: X509Certificate, source: ServerCertificate['source'], certPem: string, keyPem: string, certFile: string): ServerCertificate {
  return { source, certPem, keyPem, fingerprint: cert.fingerprint256, notAfter: new Date(cert.validTo), names: subjectAltNames(cert), certFile };
}

/** Writes by rename, so that a half-written file is never read as a whole one. */
function writeAtomic(file: string, text: string): void {
  const tmp = `${file}.${randomBytes(4).toString('hex')}`;
  fs.writeFileSync(tmp, text, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function readPair(certFile: string, keyFile: string): { cert: X509Certificate; key: KeyObject; certPem: string; keyPem: string } | undefined {
  try {
    const certPem = fs.readFileSync(certFile, 'utf8');
    const keyPem = fs.readFileSync(keyFile, 'utf8');
    const cert = new X509Certificate(certPem);
    const key = createPrivateKey(keyPem);
    return cert.checkPrivateKey(key) ? { cert, key, certPem, keyPem } : undefined;
  } catch {
    // Missing, unreadable or damaged: made again, like on the first run.
    return undefined;
  }
}

export interface Generated {
  certificate: ServerCertificate;
  /** Why a new server certificate was made; undefined when the one on disk still serves. */
  renewed: 'first' | 'ca' | 'expiry' | 'names' | undefined;
}

/**
 * Opens the generated certificate in `dir` (`<data>/tls`), making the CA and the server
 * certificate when missing, and the server certificate again when its names differ from
 * `wanted` or it has fewer than RENEW_DAYS left. Call it with the data folder locked.
 * What lays certificates out (node-forge, build.ts) is loaded only to make one.
 */
export async function ensureGeneratedCertificate(dir: string, wanted: MachineNames, now = new Date()): Promise<Generated> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  fs.chmodSync(dir, 0o700);
  const caCertFile = path.join(dir, 'ca.cert.pem');
  const caKeyFile = path.join(dir, 'ca.key.pem');
  const certFile = path.join(dir, 'server.cert.pem');
  const keyFile = path.join(dir, 'server.key.pem');

  let ca = readPair(caCertFile, caKeyFile);
  let caMade = false;
  // The CA must outlive any server certificate it signs.
  if (!ca || !ca.cert.ca || new Date(ca.cert.validTo).getTime() - now.getTime() < (SERVER_DAYS + 1) * DAY) {
    const { buildCa } = await import('./build.js');
    const made = buildCa(os.hostname(), now, CA_DAYS);
    writeAtomic(caKeyFile, made.keyPem);
    writeAtomic(caCertFile, made.certPem);
    ca = { cert: new X509Certificate(made.certPem), key: createPrivateKey(made.keyPem), ...made };
    caMade = true;
  }
  let server = readPair(certFile, keyFile);
  let renewed: Generated['renewed'];
  if (!server) renewed = 'first';
  else if (caMade || !server.cert.checkIssued(ca.cert) || !server.cert.verify(ca.cert.publicKey)) renewed = 'ca';
  else if (new Date(server.cert.validTo).getTime() - now.getTime() < RENEW_DAYS * DAY || new Date(server.cert.validFrom) > now) renewed = 'expiry';
  else if (!sameNames(subjectAltNames(server.cert), wanted)) renewed = 'names';
  if (renewed !== undefined || !server) {
    const { buildServerCertificate } = await import('./build.js');
    const made = buildServerCertificate({ certPem: ca.certPem, key: ca.key }, wanted, now, SERVER_DAYS);
    writeAtomic(keyFile, made.keyPem);
    writeAtomic(certFile, made.certPem);
    server = { cert: new X509Certificate(made.certPem), key: createPrivateKey(made.keyPem), ...made };
  }
  for (const file of [caKeyFile, caCertFile, keyFile, certFile]) fs.chmodSync(file, 0o600);
  return {
    certificate: {
      ...describe(server.cert, 'generated', server.certPem, server.keyPem, certFile),
      caFile: caCertFile,
      caFingerprint: ca.cert.fingerprint256,
    },
    renewed,
  };
}

function readSetting(file: string, setting: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no existe' : code === 'EACCES' || code === 'EPERM' ? 'sin permiso para leerlo' : code === 'EISDIR' ? 'es una carpeta' : 'no se puede leer';
    throw new ConfigError(`${setting}: el archivo ${file} ${why}.`);
  }
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Reads and checks a configured certificate and key (PEM): both readable, the certificate's
 * public key the key's, in its validity period. Every fault is a ConfigError in Spanish.
 */
export function loadConfiguredCertificate(certFile: string, keyFile: string, now = new Date()): ServerCertificate {
  const certText = readSetting(certFile, 'SELLO_TLS_CERT_FILE');
  const keyPem = readSetting(keyFile, 'SELLO_TLS_KEY_FILE');
  const blocks = certText.match(PEM_CERTIFICATE) ?? [];
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(blocks[0] ?? '');
  } catch {
    throw new ConfigError(`SELLO_TLS_CERT_FILE: ${certFile} no contiene un certificado PEM (-----BEGIN CERTIFICATE-----).`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(keyPem);
  } catch (err) {
    const encrypted = (err as NodeJS.ErrnoException).code === 'ERR_MISSING_PASSPHRASE';
    throw new ConfigError(
      encrypted
        ? `SELLO_TLS_KEY_FILE: la clave de ${keyFile} está cifrada con contraseña; Sello necesita la clave sin cifrar (proteja el archivo con permisos de solo lectura para el usuario de Sello).`
        : `SELLO_TLS_KEY_FILE: ${keyFile} no contiene una clave privada PEM.`,
    );
  }
  if (!cert.checkPrivateKey(key)) {
    throw new ConfigError(`El certificado ${certFile} (SELLO_TLS_CERT_FILE) no corresponde a la clave ${keyFile} (SELLO_TLS_KEY_FILE).`);
  }
  const day = (d: string) => new Date(d).toISOString().slice(0, 10);
  if (new Date(cert.validTo) <= now) {
    throw new ConfigError(`El certificado ${certFile} (SELLO_TLS_CERT_FILE) venció el ${day(cert.validTo)}. Configure uno vigente, o quite SELLO_TLS_CERT_FILE y SELLO_TLS_KEY_FILE para que Sello genere el suyo.`);
  }
  if (new Date(cert.validFrom) > now) {
    throw new ConfigError(`El certificado ${certFile} (SELLO_TLS_CERT_FILE) aún no es válido: lo es desde el ${day(cert.validFrom)}. Revise la hora de este equipo.`);
  }
  const certPem = `${blocks.join('\n')}\n`;
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (err) {
    throw new ConfigError(`El certificado ${certFile} y la clave ${keyFile} no sirven para TLS: ${(err as Error).message}.`);
  }
  return describe(cert, 'configured', certPem, keyPem, certFile);
}
