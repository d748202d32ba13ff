/**
 * `native/`: the only part of Sello that touches pkcs11js (ENGINEERING.md, layout).
 * Core code depends on the narrow `TokenDriver` interface, never on pkcs11js itself.
 *
 * @example
 *   import { candidateModules, loadTokenDriver } from '../../native/index.js';
 *   for (const m of candidateModules().filter((c) => c.exists)) {
 *     const driver = loadTokenDriver(m.path);
 *     console.log(await driver.listSlots());
 *     await driver.close();
 *   }
 */
export {
  loadTokenDriver,
  pinTriesOf,
  ecdsaRawToDer,
  type TokenDriver,
  type TokenDriverOptions,
  type TokenFlags,
  type TokenEntry,
  type SlotEntry,
  type TokenCertificate,
  type ModuleInfo,
  type SignOptions,
  type PinTries,
} from './token-driver.js';
export { candidateModules, type ModuleCandidate, type CandidateModulesOptions } from './modules.js';
