/**
 * HTTPS for a listener beyond loopback (CONTRACT §2): which certificate it serves and which
 * names the Host check accepts on it.
 *
 * @example
 *   const configured = await checkTlsSettings(config);      // before the data folder is touched
 *   const tls = await openServerTls(config, configured);    // with the data folder locked
 *   https.createServer({ cert: tls.current().certPem, key: tls.current().keyPem }, …);
 *   setInterval(async () => { if (await tls.refresh()) server.setSecureContext(…) }, 10 * 60_000);
 */
import path from 'node:path';
import { ConfigError, type Config } from '../config.js';
import { ensureGeneratedCertificate, loadConfiguredCertificate, type Generated, type ServerCertificate } from './certificate.js';
import { assertLocalHost, hostNamesOf, machineNames } from './names.js';

export type { ServerCertificate } from './certificate.js';
export { bareHost, isLoopbackAddress, isWildcardHost, interfaceAddresses } from './names.js';

type TlsConfig = Pick<Config, 'dataDir' | 'host' | 'extraHostNames' | 'tlsCertFile' | 'tlsKeyFile'>;

/**
 * Checks, writing nothing, what a LAN listener needs: `--host` is an address of this machine,
 * and a configured certificate (both settings or neither) is readable, matches its key and is
 * valid now. Returns the configured certificate, or undefined when Sello is to generate one.
 */
export async function checkTlsSettings(config: TlsConfig, now = new Date()): Promise<ServerCertificate | undefined> {
  await assertLocalHost(config.host);
  if (Boolean(config.tlsCertFile) !== Boolean(config.tlsKeyFile)) {
    throw new ConfigError('SELLO_TLS_CERT_FILE y SELLO_TLS_KEY_FILE van juntos: configure los dos, o ninguno para que Sello genere su certificado.');
  }
  return config.tlsCertFile && config.tlsKeyFile ? loadConfiguredCertificate(config.tlsCertFile, config.tlsKeyFile, now) : undefined;
}

export interface ServerTls {
  current(): ServerCertificate;
  /** Host names accepted besides the loopback ones: the configured ones and the certificate's. Stable until a refresh changes it. */
  hostNames(): readonly string[];
  /**
   * A generated certificate is made again when the machine's names or addresses changed or it
   * nears its end; returns why, or undefined when nothing changed (always, for a configured one).
   */
  refresh(now?: Date): Promise<Generated['renewed']>;
}

/** The generated certificate lives in `<data>/tls/`. */
export function tlsDir(dataDir: string): string {
  return path.join(dataDir, 'tls');
}

/** Opens (generating as needed) the certificate the LAN listener serves. Call with the data folder locked. */
export async function openServerTls(config: TlsConfig, configured: ServerCertificate | undefined): Promise<ServerTls & { opened: Generated['renewed'] }> {
  let certificate: ServerCertificate;
  let opened: Generated['renewed'];
  const generate = (now?: Date) => ensureGeneratedCertificate(tlsDir(config.dataDir), machineNames(config.extraHostNames, config.host), now);
  if (configured) certificate = configured;
  else ({ certificate, renewed: opened } = await generate());
  const names = () => [...new Set([...config.extraHostNames.map((n) => n.toLowerCase()), ...hostNamesOf(certificate.names)])];
  let hostNames = names();
  return {
    opened,
    current: () => certificate,
    hostNames: () => hostNames,
    async refresh(now) {
      if (configured) return undefined;
      const next = await generate(now);
      if (next.renewed === undefined) return undefined;
      certificate = next.certificate;
      hostNames = names();
      return next.renewed;
    },
  };
}
