import os from 'node:os';
import path from 'node:path';

/** Everything the agent needs to start. CONTRACT §1: flags, then `SELLO_<NAME>`, then defaults. */
export interface Config {
  /** Folder with the store, the secret key and the test CA; created 0700. */
  dataDir: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Host names accepted in the `Host` header besides the loopback ones (CONTRACT §2). */
  extraHostNames: string[];
  /**
   * The certificate (PEM, chain after it) and key (PEM, unencrypted) a `host` beyond loopback
   * serves (`SELLO_TLS_CERT_FILE`, `SELLO_TLS_KEY_FILE`); without them Sello generates its own
   * into the data folder (docs/cli.md, core/tls).
   */
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  rateLimitPerMinute: number;
  /** Shrinks every delivery delay; 1 in production, 0.001 in tests. */
  deliveryTimeScale: number;
  /** Days that delivery attempts, delivered deliveries and finished events are kept (`SELLO_DELIVERY_RETENTION_DAYS`). */
  deliveryRetentionDays: number;
  /** Per-attempt delivery timeout; 15 s (CONTRACT §9). Not a setting: only tests override it. */
  deliveryTimeoutMs: number;
  /** Public base URL used in QR texts and links to `/v/{id}`, when the office publishes one. */
  publicBaseUrl: string | undefined;
  tsaUrl: string | undefined;
  pkcs11Modules: string[];
  /** A PEM file of extra CAs trusted for HTTPS destinations. */
  caFile: string | undefined;
  /**
   * A PEM bundle of root certificates that signers of verified PDFs may chain to
   * (`SELLO_TRUST_ROOTS`), besides the data folder's test CA. Not used for HTTPS.
   */
  trustRoots: string | undefined;
  logLevel: LogLevel;
  /** How long a token PIN given at approval stays in memory (`SELLO_PIN_CACHE_SECONDS`, 15 min; CONTRACT §11). */
  pinCacheSeconds: number;
  /**
   * Longest one untrusted phase of a PDF (reading it, preparing its signature, reading the signed
   * copy back) may run on the PDF thread before the thread is stopped and the job failed
   * (`SELLO_PDF_DEADLINE_MS`, 30 s; docs/signing.md).
   */
  pdfDeadlineMs: number;
  /** The PDF thread's JavaScript heap (`SELLO_PDF_MEMORY_MB`, 512 MB): a PDF that needs more fails its job, never the agent. */
  pdfMemoryMb: number;
  /** The SRI's web services for ambiente 1, pruebas (`SELLO_SRI_TEST_URL`; CONTRACT §15). No trailing slash. */
  sriTestUrl: string;
  /** The SRI's web services for ambiente 2, producción (`SELLO_SRI_PRODUCTION_URL`; CONTRACT §15). No trailing slash. */
  sriProductionUrl: string;
  /** The digest of the comprobantes' XAdES signature (`SELLO_SRI_SIGNATURE_HASH`, `sha1` as the SRI has always accepted, or `sha256`). */
  sriSignatureHash: 'sha1' | 'sha256';
  /** Hours the SRI may stay unreachable before a comprobante not yet received ends `failed` (`SELLO_SRI_GIVE_UP_HOURS`, 72; CONTRACT §15). */
  sriGiveUpHours: number;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

export type ConfigOverrides = Partial<Config>;

/** The OS application-data folder for Sello. */
export function defaultDataDir(
  platform: NodeJS.Platform = process.platform,
  env: NodeJS.ProcessEnv = process.env,
  home: string = os.homedir(),
): string {
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'sello');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'sello');
  return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'sello');
}

function numberSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[`SELLO_${name}`];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min) {
    throw new ConfigError(`SELLO_${name} debe ser un número mayor o igual a ${min}; se recibió "${raw}".`);
  }
  return value;
}

function listSetting(env: NodeJS.ProcessEnv, name: string, separator: string): string[] {
  const raw = env[`SELLO_${name}`];
  return raw ? raw.split(separator).map((s) => s.trim()).filter(Boolean) : [];
}

/**
 * A base URL of the SRI's web services: HTTPS, or plain HTTP only on this machine (a local
 * stand-in in tests), without query or fragment; returned without a trailing slash.
 */
function sriUrlSetting(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[`SELLO_${name}`];
  if (raw === undefined || raw === '') return fallback;
  const url = URL.canParse(raw) ? new URL(raw) : undefined;
  const loopback = url !== undefined && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (!url || !(url.protocol === 'https:' || (url.protocol === 'http:' && loopback)) || url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`SELLO_${name} debe ser una URL https:// sin parámetros (http:// solo hacia este equipo); se recibió "${raw}".`);
  }
  return url.href.replace(/\/+$/, '');
}

/** `SELLO_SRI_SIGNATURE_HASH`: `sha1` (default) or `sha256`. */
function sriHashSetting(env: NodeJS.ProcessEnv): 'sha1' | 'sha256' {
  const raw = (env.SELLO_SRI_SIGNATURE_HASH ?? '').trim().toLowerCase();
  if (raw === '' || raw === 'sha1' || raw === 'sha-1') return 'sha1';
  if (raw === 'sha256' || raw === 'sha-256') return 'sha256';
  throw new ConfigError(`SELLO_SRI_SIGNATURE_HASH debe ser sha1 o sha256; se recibió "${env.SELLO_SRI_SIGNATURE_HASH}".`);
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const logLevels: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

export function loadConfig(overrides: ConfigOverrides = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = (env.SELLO_LOG_LEVEL ?? 'info') as LogLevel;
  if (!logLevels.includes(logLevel)) {
    throw new ConfigError(`SELLO_LOG_LEVEL debe ser uno de ${logLevels.join(', ')}.`);
  }
  const port = overrides.port ?? numberSetting(env, 'PORT', 8437, 0);
  if (!Number.isInteger(port) || port > 65535) throw new ConfigError(`Puerto no válido: ${port}.`);
  return {
    dataDir: path.resolve(overrides.dataDir ?? env.SELLO_HOME ?? defaultDataDir()),
    host: overrides.host ?? env.SELLO_HOST ?? '127.0.0.1',
    port,
    extraHostNames: overrides.extraHostNames ?? listSetting(env, 'HOST_NAMES', ','),
    tlsCertFile: overrides.tlsCertFile ?? (env.SELLO_TLS_CERT_FILE ? path.resolve(env.SELLO_TLS_CERT_FILE) : undefined),
    tlsKeyFile: overrides.tlsKeyFile ?? (env.SELLO_TLS_KEY_FILE ? path.resolve(env.SELLO_TLS_KEY_FILE) : undefined),
    rateLimitPerMinute: overrides.rateLimitPerMinute ?? numberSetting(env, 'RATE_LIMIT_PER_MINUTE', 300, 1),
    deliveryTimeScale: overrides.deliveryTimeScale ?? numberSetting(env, 'DELIVERY_TIME_SCALE', 1, 0),
    deliveryRetentionDays: overrides.deliveryRetentionDays ?? numberSetting(env, 'DELIVERY_RETENTION_DAYS', 30, 1),
    deliveryTimeoutMs: overrides.deliveryTimeoutMs ?? 15_000,
    publicBaseUrl: overrides.publicBaseUrl ?? (env.SELLO_PUBLIC_BASE_URL || undefined),
    tsaUrl: overrides.tsaUrl ?? (env.SELLO_TSA_URL || undefined),
    pkcs11Modules: overrides.pkcs11Modules ?? listSetting(env, 'PKCS11_MODULES', path.delimiter),
    caFile: overrides.caFile ?? (env.SELLO_CA_FILE || undefined),
    trustRoots: overrides.trustRoots ?? (env.SELLO_TRUST_ROOTS || undefined),
    logLevel: overrides.logLevel ?? logLevel,
    pinCacheSeconds: overrides.pinCacheSeconds ?? numberSetting(env, 'PIN_CACHE_SECONDS', 15 * 60, 0),
    pdfDeadlineMs: overrides.pdfDeadlineMs ?? numberSetting(env, 'PDF_DEADLINE_MS', 30_000, 100),
    // Below 64 MB the thread cannot even load its own code.
    pdfMemoryMb: overrides.pdfMemoryMb ?? numberSetting(env, 'PDF_MEMORY_MB', 512, 64),
    sriTestUrl: overrides.sriTestUrl ?? sriUrlSetting(env, 'SRI_TEST_URL', 'https://celcer.sri.gob.ec/comprobantes-electronicos-ws'),
    sriProductionUrl: overrides.sriProductionUrl ?? sriUrlSetting(env, 'SRI_PRODUCTION_URL', 'https://cel.sri.gob.ec/comprobantes-electronicos-ws'),
    sriSignatureHash: overrides.sriSignatureHash ?? sriHashSetting(env),
    sriGiveUpHours: overrides.sriGiveUpHours ?? numberSetting(env, 'SRI_GIVE_UP_HOURS', 72, 0),
  };
}
