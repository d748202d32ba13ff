/**
 * Certificates Sello can sign with (CONTRACT §10): imported `.p12` files, the
 * certificates found on PKCS#11 tokens and test certificates from the data folder's
 * test CA, each with an id for `sello sign --cert ID` and the spec's Certificate object.
 *
 * @example
 *   const record = importP12(store, secrets, await readFile('firma.p12'), password);
 *   listCertificates(store); // [{ id, source: 'p12', subjectName: 'ANA PÉREZ', … }]
 *   listCertificateObjects(store, 'live', { type: 'ec/individual' }); // the spec's Certificate objects
 *   const row = findCertificateForEnvironment(store, id, 'test'); // throws certificate_not_found
 *   assertUsableForSigning(row); // throws certificate_expired / certificate_not_issued
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
export {
  catalogIdType,
  certificateStatuses,
  certificateTypes,
  describeX509,
  ecuadorianArcs,
  ecuadorianField,
  validityDays,
  type Address,
  type CertificateObject,
  type CertificateStatus,
  type CertificateType,
  type IdType,
  type Organization,
  type Principal,
  type X509Description,
} from './certificate-object.js';
export {
  assertUsableForSigning,
  findCertificateForEnvironment,
  listCertificateObjects,
  toCertificateObject,
  type CertificateFilters,
} from './certificate-records.js';
export { parseTestCertificateRequest, testCertificateRuleViolations, type TestCertificateRequest } from './test-request.js';
export { issueTestCertificate, openDataTestCa, subjectFor } from './test-issuance.js';
export { sealStoredP12 } from './p12-at-rest.js';
export { listTrustAnchors, readTrustRoots, testCaAnchors } from './trust-anchors.js';
