/**
 * Key sources: where a signature is made. Each one is a `KeySource` (certificate, chain,
 * `sign(data)`), which is also the `CmsSigner` that core/pdf/cms/cms.ts asks for.
 *
 * @example
 *   const source = p12KeySource(await readFile('firma.p12'), password);
 *   const cms = await buildPadesCms({ digest, signer: source });
 */
export { assertCertificateCurrent, orderChain, type Clock, type KeySource, type SignatureHash } from './key-source.js';
export { softwareKeySource, keyMatchesCertificate, type SoftwareKeySource, type SoftwareKeySourceOptions } from './software.js';
export { readP12, p12KeySource, type P12Contents } from './p12.js';
export { tokenKeySource, type PinProvider, type PinRequest, type TokenKeySourceOptions } from './token.js';
