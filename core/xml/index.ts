/**
 * XML signatures of tax documents (ENGINEERING.md, `core/xml/`): the enveloped XAdES-BES that
 * Ecuador's SRI accepts, made with any of Sello's key sources (software, .p12, PKCS#11 token),
 * and its strict verification. Shared by the SRI adapter and, later, SUNAT's.
 *
 * @example
 *   const signed = await signXadesBes(xml, xmlSignerFrom(source), { hash: 'sha1' });
 *   const { valid, problem } = verifyXadesBes(signed);
 */
export { signXadesBes, COMPROBANTE_ID, type SignXadesOptions } from './sign.js';
export { verifyXadesBes, type XmlVerification } from './verify.js';
export { xmlSignerFrom, type XmlSigner } from './signer.js';
export { assertXmlSigningCertificate, certificateFacts } from './certificate.js';
export { signatureLabel, type XmlHash } from './algorithms.js';
export { MAX_XML_BYTES } from './xml-input.js';
export { parseXml, XmlProblem, type ParsedXml } from './xml-input.js';
export { signUblDsig, UBL_SIGNATURE_ID, type SignUblOptions } from './sign-ubl.js';
export { verifyUblDsig } from './verify-ubl.js';
export { signatureFormatOf, type SignatureFormat } from './format.js';
