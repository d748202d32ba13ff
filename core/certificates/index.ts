/**
 * Certificates Sello can sign with (CONTRACT §10): imported `.p12` files and the
 * certificates found on PKCS#11 tokens, each with an id for `sello sign --cert ID`.
 *
 * @example
 *   const record = importP12(store, secrets, await readFile('firma.p12'), password);
 *   listCertificates(store); // [{ id, source: 'p12', subjectName: 'ANA PÉREZ', … }]
 */
export {
  importP12,
  registerTokenCertificate,
  findCertificateRow,
  getCertificate,
  listCertificates,
  toCertificateRecord,
  type CertificateRecord,
  type CertificateRow,
  type TokenCertificateInput,
} from './registry.js';
export { summarizeCertificate, type CertificateSummary } from './x509.js';
export { openTestCa } from './test-ca.js';
