import fs from 'node:fs';
import { registerTokenCertificate, type CertificateRecord } from '../certificates/index.js';
import type { Store } from '../db/index.js';
import type { Logger } from '../log/index.js';
import { candidateModules, loadTokenDriver, type ModuleInfo, type TokenEntry } from '../../native/index.js';
import { orderChain } from './key-sources/index.js';

export interface ScannedSlot {
  slotId: string;
  /** `empty`: no token in the reader; `blank`: a token never initialized (nothing to sign with). */
  state: 'empty' | 'blank' | 'ready';
  token?: TokenEntry;
  /** The token's certificates, recorded (or refreshed) in the store. */
  certificates: CertificateRecord[];
}

/**
 * Looks at every slot of a PKCS#11 module and records the certificates of its tokens
 * (CONTRACT §10), so that each has an id for signing. No PIN is needed to list them.
 */
export async function scanTokenModule(store: Store, modulePath: string): Promise<{ info: ModuleInfo; slots: ScannedSlot[] }> {
  const driver = loadTokenDriver(modulePath);
  try {
    const info = driver.info();
    const slots: ScannedSlot[] = [];
    for (const slot of await driver.listSlots()) {
      const token = slot.token;
      if (!token) {
        slots.push({ slotId: slot.slotId, state: 'empty', certificates: [] });
        continue;
      }
      if (!token.flags.tokenInitialized) {
        slots.push({ slotId: slot.slotId, state: 'blank', token, certificates: [] });
        continue;
      }
      const found = await driver.listCertificates(slot.slotId);
      const certificates = found.map((c) =>
        registerTokenCertificate(store, {
          modulePath,
          tokenSerial: token.serialNumber,
          tokenLabel: token.label,
          keyId: c.id,
          certificate: c.certificate,
          chain: orderChain(c.certificate, found.map((o) => o.certificate).filter((o) => !o.equals(c.certificate))),
        }),
      );
      slots.push({ slotId: slot.slotId, state: 'ready', token, certificates });
    }
    return { info, slots };
  } finally {
    await driver.close();
  }
}

/**
 * At start: records the certificates of every token on the configured and usual
 * PKCS#11 modules, so `GET /certificates` lists them without a manual `sello tokens`.
 * A module that can't be read is logged and skipped; it never stops the agent.
 */
export async function scanConfiguredTokens(store: Store, configured: readonly string[], log: Logger): Promise<void> {
  const seen = new Set<string>();
  for (const candidate of candidateModules({ configured: [...configured] }).filter((m) => m.exists)) {
    let real: string;
    try {
      real = fs.realpathSync(candidate.path);
    } catch {
      continue;
    }
    // Distributions install the same library under several names.
    if (seen.has(real)) continue;
    seen.add(real);
    try {
      const { slots } = await scanTokenModule(store, candidate.path);
      const count = slots.reduce((n, s) => n + s.certificates.length, 0);
      if (count > 0) log.info('token certificates recorded', { module: candidate.path, certificates: count });
    } catch (err) {
      log.warn('token module could not be read', { module: candidate.path, code: (err as { code?: string }).code, message: (err as Error).message });
    }
  }
}
