/**
 * Key sources: where a signature is made. Each one is a `KeySource` (certificate, chain,
 * `sign(data)`), which is also the `CmsSigner` that core/pdf/cms/cms.ts asks for.
 *
 * `.p12` files are read by ./p12.ts (node-forge), imported where used and not from here, so
 * that what imports this index does not load forge at start (issue 17).
 *
 * @example
 *   const { p12KeySource } = await import('./p12.js');
 *   const cms = await buildPadesCms({ digest, signer: p12KeySource(await readFile('firma.p12'), password) });
 */
export { assertCertificateCurrent, orderChain, type Clock, type KeySource, type SignatureHash } from './key-source.js';
export { softwareKeySource, keyMatchesCertificate, type SoftwareKeySource, type SoftwareKeySourceOptions } from './software.js';
export { tokenKeySource, type PinProvider, type PinRequest, type TokenKeySourceOptions } from './token.js';
