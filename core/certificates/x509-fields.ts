/**
 * Reads the parts of an X.509 certificate that describe its holder: the subject's
 * attributes, the email of the subjectAltName, and every attribute-like value an
 * Ecuadorian CA may add (custom extensions, subject attributes with private OIDs, and
 * subjectDirectoryAttributes, RFC 5280 §4.2.1.8).
 *
 * Walks the DER with forge's ASN.1 reader rather than `pki.certificateFromAsn1`, which
 * refuses certificates whose key is not RSA (tokens may hold EC keys).
 */
import { asn1, type Asn1 } from '../asn1/forge-asn1.js';


export interface X509Fields {
  /** Subject attributes by OID (X.520 `2.5.4.3` = CN…), first value of each, in subject order. */
  subject: Map<string, string>;
  /** rfc822Name entries of the subjectAltName (RFC 5280 §4.2.1.6). */
  altEmails: string[];
  /**
   * Values under private OIDs, as CAs carry the holder's cédula, RUC, names…: from
   * extensions, subject attributes and subjectDirectoryAttributes, the first found wins.
   */
  custom: Map<string, string>;
}

const SUBJECT_ALT_NAME = '2.5.29.17';
const SUBJECT_DIRECTORY_ATTRIBUTES = '2.5.29.9';

/** Parses a DER certificate into `X509Fields`; throws on a buffer that is not one. */
export function readX509Fields(der: Buffer): X509Fields {
  const cert = asn1.fromDer(der.toString('binary'));
  const tbs = children(cert)[0];
  if (!tbs) throw new Error('certificado X.509 sin TBSCertificate');
  const parts = children(tbs);
  // [0] EXPLICIT version is optional (v1 certificates have none): RFC 5280 §4.1.
  const offset = parts[0]?.tagClass === asn1.Class.CONTEXT_SPECIFIC ? 1 : 0;
  const subjectName = parts[offset + 4];
  const fields: X509Fields = { subject: new Map(), altEmails: [], custom: new Map() };
  if (subjectName) {
    for (const [oid, value] of nameAttributes(subjectName)) {
      if (!fields.subject.has(oid)) fields.subject.set(oid, value);
      if (oid.startsWith('1.3.6.1.4.1.') && !fields.custom.has(oid)) fields.custom.set(oid, value);
    }
  }
  const extensionsTagged = parts.find((p) => p.tagClass === asn1.Class.CONTEXT_SPECIFIC && p.type === 3);
  const extensionList = extensionsTagged ? children(children(extensionsTagged)[0]) : [];
  for (const ext of extensionList) {
    const items = children(ext);
    const oid = items[0] ? asn1.derToOid(items[0].value as string) : '';
    const valueNode = items[items.length - 1];
    if (!valueNode || typeof valueNode.value !== 'string') continue;
    const content = valueNode.value;
    if (oid === SUBJECT_ALT_NAME) fields.altEmails.push(...altNameEmails(content));
    else if (oid === SUBJECT_DIRECTORY_ATTRIBUTES) {
      for (const [attrOid, value] of directoryAttributes(content)) if (!fields.custom.has(attrOid)) fields.custom.set(attrOid, value);
    } else if (oid.startsWith('1.3.6.1.4.1.') && !fields.custom.has(oid)) {
      const text = extensionText(content);
      if (text !== undefined) fields.custom.set(oid, text);
    }
  }
  return fields;
}

function children(node: Asn1 | undefined): Asn1[] {
  return node && Array.isArray(node.value) ? node.value : [];
}

/** Name ::= SEQUENCE OF RelativeDistinguishedName (SET OF AttributeTypeAndValue). */
function nameAttributes(name: Asn1): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const rdn of children(name)) {
    for (const atv of children(rdn)) {
      const [type, value] = children(atv);
      if (!type || !value) continue;
      const text = stringValue(value);
      if (text !== undefined) out.push([asn1.derToOid(type.value as string), text]);
    }
  }
  return out;
}

/** GeneralNames: rfc822Name is `[1] IMPLICIT IA5String`. */
function altNameEmails(content: string): string[] {
  try {
    const names = asn1.fromDer(content);
    return children(names)
      .filter((n) => n.tagClass === asn1.Class.CONTEXT_SPECIFIC && n.type === 1 && typeof n.value === 'string')
      .map((n) => n.value as string);
  } catch {
    return [];
  }
}

/** SubjectDirectoryAttributes ::= SEQUENCE OF Attribute { type, values SET OF ANY }. */
function directoryAttributes(content: string): Array<[string, string]> {
  try {
    const out: Array<[string, string]> = [];
    for (const attr of children(asn1.fromDer(content))) {
      const [type, values] = children(attr);
      const first = children(values)[0];
      const text = first ? stringValue(first) : undefined;
      if (type && text !== undefined) out.push([asn1.derToOid(type.value as string), text]);
    }
    return out;
  } catch {
    return [];
  }
}

/**
 * The text of a custom extension. Most CAs wrap it in a DER string (UTF8String,
 * PrintableString…); some older certificates put the bare bytes in the OCTET STRING,
 * as FirmaEC's readers tolerate (`new String(getExtensionValue(oid)).trim()`).
 */
function extensionText(content: string): string | undefined {
  try {
    const node = asn1.fromDer(content);
    const text = stringValue(node);
    if (text !== undefined) return text;
  } catch {
    // Not DER: bare bytes.
  }
  return clean(decodeBytes(content));
}

// Universal tags of the ASN.1 string types (X.680 §8.6): UTF8String, PrintableString,
// TeletexString, IA5String, VisibleString, UniversalString, BMPString.
const UTF8 = 12;
const UNIVERSAL_STRING = 28;
const BMP_STRING = 30;
const STRING_TYPES = new Set<number>([UTF8, 19, 20, 22, 26, UNIVERSAL_STRING, BMP_STRING]);

function stringValue(node: Asn1): string | undefined {
  const tag = node.type as number;
  if (node.tagClass !== asn1.Class.UNIVERSAL || node.constructed || !STRING_TYPES.has(tag)) return undefined;
  const raw = node.value as string;
  if (tag === BMP_STRING) return clean(Buffer.from(raw, 'binary').swap16().toString('utf16le'));
  if (tag === UNIVERSAL_STRING) {
    const bytes = Buffer.from(raw, 'binary');
    let s = '';
    for (let i = 0; i + 3 < bytes.length; i += 4) s += String.fromCodePoint(bytes.readUInt32BE(i));
    return clean(s);
  }
  return clean(decodeBytes(raw));
}

/** UTF-8 when the bytes are valid UTF-8 (UTF8String, and T61 strings CAs filled with UTF-8), else Latin-1. */
function decodeBytes(binary: string): string {
  const bytes = Buffer.from(binary, 'binary');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

function clean(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, '').trim();
}
