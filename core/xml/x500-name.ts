/**
 * A distinguished name as the text of ds:X509IssuerName, written so that the SRI's validator
 * (MITyC, which builds a Java `X500Principal` from it) reads back the certificate's own issuer:
 * RFC 4514 order and escaping; only the attribute keywords `X500Principal(String)` knows
 * (ec-sri-invoice-signer issue #33: `E=` made it throw, `EMAILADDRESS=` works); every other
 * attribute as `OID=#hex` of its DER value (RFC 4514 §2.4), which any parser maps back to the
 * exact bytes. (As text, `2.5.4.97=59382` becomes a PrintableString in Java and no longer
 * equals the UTF8String of an Ecuadorian CA's issuer: checked with Java 17.)
 */
import { asn1, type Asn1 } from '../asn1/forge-asn1.js';


/** OID → keyword that Java's X500Principal(String) accepts (its documentation lists them). */
const KEYWORDS: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.9': 'STREET',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.4': 'SURNAME',
  '2.5.4.42': 'GIVENNAME',
  '2.5.4.43': 'INITIALS',
  '2.5.4.44': 'GENERATION',
  '2.5.4.5': 'SERIALNUMBER',
  '2.5.4.12': 'T',
  '2.5.4.46': 'DNQ',
  '0.9.2342.19200300.100.1.25': 'DC',
  '0.9.2342.19200300.100.1.1': 'UID',
  '1.2.840.113549.1.9.1': 'EMAILADDRESS',
};

export interface NameAttribute {
  oid: string;
  /** The decoded text, when the value is an ASN.1 string. */
  text: string | undefined;
  /** The DER of the value. */
  der: Buffer;
}

/**
 * The RDNs of a Name (SEQUENCE OF SET OF AttributeTypeAndValue), in DER order.
 */
export function nameAttributes(name: Asn1): NameAttribute[][] {
  return children(name).map((rdn) =>
    children(rdn).flatMap((atv) => {
      const [type, value] = children(atv);
      if (!type || !value) return [];
      return [{ oid: asn1.derToOid(type.value as string), text: stringValue(value), der: Buffer.from(asn1.toDer(value).getBytes(), 'binary') }];
    }),
  );
}

/**
 * @example x500NameText(issuer) // 'CN=AC BANCO CENTRAL,OU=ENTIDAD,O=BANCO CENTRAL,C=EC,EMAILADDRESS=ac@bce.ec'
 */
export function x500NameText(rdns: NameAttribute[][]): string {
  return [...rdns]
    .reverse()
    .map((rdn) => rdn.map(attributeText).join('+'))
    .join(',');
}

function attributeText(a: NameAttribute): string {
  const keyword = KEYWORDS[a.oid];
  if (keyword && a.text !== undefined) return `${keyword}=${escapeValue(a.text)}`;
  return `${a.oid}=#${a.der.toString('hex').toUpperCase()}`;
}

/**
 * RFC 4514 §2.4: the special characters, a leading space or '#' and a trailing space; control
 * characters as `\hh`, since XML 1.0 cannot carry them as text.
 */
function escapeValue(value: string): string {
  const chars = [...value];
  return chars
    .map((c, i) => {
      const code = c.codePointAt(0) ?? 0;
      if ('\\,+"<>;='.includes(c)) return `\\${c}`;
      if (code < 0x20 || code === 0x7f) return `\\${code.toString(16).padStart(2, '0')}`;
      if (c === ' ' && (i === 0 || i === chars.length - 1)) return '\\ ';
      if (c === '#' && i === 0) return '\\#';
      return c;
    })
    .join('');
}

export function children(node: Asn1 | undefined): Asn1[] {
  return node && Array.isArray(node.value) ? node.value : [];
}

const UTF8 = 12;
const PRINTABLE = 19;
const TELETEX = 20;
const IA5 = 22;
const VISIBLE = 26;
const UNIVERSAL = 28;
const BMP = 30;

function stringValue(node: Asn1): string | undefined {
  if (node.tagClass !== asn1.Class.UNIVERSAL || node.constructed || typeof node.value !== 'string') return undefined;
  const bytes = Buffer.from(node.value, 'binary');
  switch (node.type as number) {
    case UTF8:
      return bytes.toString('utf8');
    case PRINTABLE:
    case IA5:
    case VISIBLE:
      return bytes.toString('latin1');
    case TELETEX:
      // CAs fill T61 strings with UTF-8 or Latin-1: only plain ASCII is taken as text; anything
      // else goes out as #hex, which is exact whatever the CA meant.
      return /^[\x20-\x7e]*$/.test(bytes.toString('latin1')) ? bytes.toString('latin1') : undefined;
    case BMP:
      return Buffer.from(bytes).swap16().toString('utf16le');
    case UNIVERSAL: {
      let s = '';
      for (let i = 0; i + 3 < bytes.length; i += 4) s += String.fromCodePoint(bytes.readUInt32BE(i));
      return s;
    }
    default:
      return undefined;
  }
}
