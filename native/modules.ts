/**
 * Where PKCS#11 modules of the tokens sold in Ecuador and Peru usually live (CONTRACT §10:
 * "common Ecuador/Peru token drivers pre-listed per OS"), plus the ones the office configures.
 *
 * Vendors' installers put their libraries in a handful of fixed places; Sello probes those so
 * that an office that has installed its token's driver sees the token without configuring
 * anything. Paths not verified on real hardware are marked as such below.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

export interface ModuleCandidate {
  path: string;
  /** Which token family the path belongs to (for the UI), or 'configurado'. */
  name: string;
  source: 'configured' | 'default';
  exists: boolean;
}

export interface CandidateModulesOptions {
  /** Modules configured in the settings (before the environment's). */
  configured?: readonly string[];
  /** Defaults to `process.env`; `SELLO_PKCS11_MODULES` is a path list (CONTRACT §1). */
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  /** For tests: how to check whether a file exists. */
  exists?: (p: string) => boolean;
}

interface KnownModule {
  name: string;
  paths: string[];
}

function knownModules(platform: NodeJS.Platform, env: Record<string, string | undefined>): KnownModule[] {
  if (platform === 'win32') {
    const sys = path.win32.join(env['SystemRoot'] ?? env['SYSTEMROOT'] ?? 'C:\\Windows', 'System32');
    const pf = env['ProgramFiles'] ?? 'C:\\Program Files';
    return [
      { name: 'SafeNet eToken', paths: [path.win32.join(sys, 'eTPKCS11.dll'), path.win32.join(sys, 'IDPrimePKCS11.dll')] },
      { name: 'ePass2003 (Security Data)', paths: [path.win32.join(sys, 'ShuttleCsp11_3003.dll')] },
      { name: 'Bit4id', paths: [path.win32.join(sys, 'bit4xpki.dll')] },
      {
        name: 'OpenSC',
        paths: [path.win32.join(pf, 'OpenSC Project', 'OpenSC', 'pkcs11', 'opensc-pkcs11.dll'), path.win32.join(sys, 'opensc-pkcs11.dll')],
      },
    ];
  }
  if (platform === 'darwin') {
    return [
      {
        name: 'SafeNet eToken',
        paths: ['/usr/local/lib/libeTPkcs11.dylib', '/Library/Frameworks/eToken.framework/Versions/Current/libeToken.dylib'],
      },
      // Feitian's macOS package names: not verified on hardware.
      { name: 'ePass2003 (Security Data)', paths: ['/usr/local/lib/libes_3003.dylib', '/usr/local/lib/libcastle.1.0.0.dylib'] },
      { name: 'Bit4id', paths: ['/usr/local/lib/libbit4xpki.dylib', '/Library/bit4id/pkcs11/libbit4xpki.dylib'] },
      {
        name: 'OpenSC',
        paths: ['/Library/OpenSC/lib/opensc-pkcs11.so', '/opt/homebrew/lib/opensc-pkcs11.so', '/usr/local/lib/opensc-pkcs11.so'],
      },
    ];
  }
  return [
    {
      name: 'SafeNet eToken',
      paths: ['/usr/lib/libeTPkcs11.so', '/usr/lib64/libeTPkcs11.so', '/usr/lib/x86_64-linux-gnu/libeTPkcs11.so', '/usr/lib/libIDPrimePKCS11.so'],
    },
    { name: 'ePass2003 (Security Data)', paths: ['/usr/lib/libcastle.so.1.0.0', '/usr/local/lib/libcastle.so.1.0.0', '/usr/lib/libes_3003.so'] },
    { name: 'Bit4id', paths: ['/usr/lib/libbit4xpki.so', '/usr/local/lib/libbit4xpki.so', '/usr/lib/x86_64-linux-gnu/libbit4xpki.so'] },
    {
      name: 'OpenSC',
      paths: [
        '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so',
        '/usr/lib/x86_64-linux-gnu/pkcs11/opensc-pkcs11.so',
        '/usr/lib/aarch64-linux-gnu/opensc-pkcs11.so',
        '/usr/lib64/opensc-pkcs11.so',
        '/usr/lib/opensc-pkcs11.so',
      ],
    },
  ];
}

/**
 * The PKCS#11 modules to try, configured ones first, each with whether the file exists.
 *
 * @example
 *   // SELLO_PKCS11_MODULES=/opt/vendor/libtoken.so:/usr/lib/libeTPkcs11.so
 *   candidateModules().filter((m) => m.exists).map((m) => m.path)
 */
export function candidateModules(opts: CandidateModulesOptions = {}): ModuleCandidate[] {
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const exists = opts.exists ?? existsSync;
  const delimiter = platform === 'win32' ? ';' : ':';
  const fromEnv = (env['SELLO_PKCS11_MODULES'] ?? '').split(delimiter).map((p) => p.trim()).filter(Boolean);

  const out: ModuleCandidate[] = [];
  const seen = new Set<string>();
  const add = (p: string, name: string, source: ModuleCandidate['source']): void => {
    const key = platform === 'win32' ? p.toLowerCase() : p;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ path: p, name, source, exists: exists(p) });
  };
  for (const p of [...(opts.configured ?? []), ...fromEnv]) add(p, 'configurado', 'configured');
  for (const m of knownModules(platform, env)) for (const p of m.paths) add(p, m.name, 'default');
  return out;
}
