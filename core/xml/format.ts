/**
 * Which signature a comprobante takes, by what it is: a UBL 2.1 document (Peru, SUNAT or an
 * OSE) carries its signature inside `ext:UBLExtensions` (enveloped XMLDSig, ./sign-ubl.ts); an
 * SRI comprobante (Ecuador) is signed XAdES-BES after its content (./sign.ts). Decided on the
 * text, before any parse: the UBL extensions namespace appears near the start of a UBL document
 * and in no SRI comprobante.
 */
export type SignatureFormat = 'ubl-dsig' | 'sri-xades';

const UBL_EXTENSIONS_NS = 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2';

/** @example signatureFormatOf(await readFile('F001-1.xml')) // 'ubl-dsig' */
export function signatureFormatOf(xml: Buffer): SignatureFormat {
  return xml.includes(UBL_EXTENSIONS_NS, 0, 'latin1') ? 'ubl-dsig' : 'sri-xades';
}
