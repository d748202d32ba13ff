/**
 * The small slice of node-forge's ASN.1 toolkit that the CMS and timestamp code need,
 * with Buffers at the edges instead of forge's binary strings.
 *
 * Why forge's `asn1` and not its `pkcs7`: `pkcs7` writes empty values for attributes it
 * does not know and cannot add unsigned attributes (ENGINEERING.md, "Facts"). The
 * structures are therefore assembled here node by node, following RFC 5652.
 */
import { asn1, type Asn1, type Asn1Type } from '../../asn1/forge-asn1.js';


export type Asn1Node = Asn1;

export const Class = asn1.Class;
export const Type = asn1.Type;

/** OIDs used by Sello's CMS (RFC 5652, RFC 5035, RFC 3161, RFC 5754, RFC 5758). */
export const OID = {
  data: '1.2.840.113549.1.7.1',
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  timeStampToken: '1.2.840.113549.1.9.16.2.14',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
  sha256WithRSAEncryption: '1.2.840.113549.1.1.11',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
} as const;

export function toBinary(buf: Buffer): string {
  return buf.toString('binary');
}

export function fromBinary(str: string): Buffer {
  return Buffer.from(str, 'binary');
}

/** DER bytes of a node. */
export function encode(node: Asn1Node): Buffer {
  return fromBinary(asn1.toDer(node).getBytes());
}

type FromDer = (bytes: string, options: { strict: boolean; decodeBitStrings: boolean; parseAllBytes: boolean }) => Asn1Node;

/**
 * Parses DER and checks that re-encoding gives back the very same bytes.
 *
 * Certificates and timestamp tokens are embedded in our CMS by re-encoding forge's tree,
 * so a single changed byte would break the signature of the embedded object. BIT STRINGs
 * are kept opaque (`decodeBitStrings: false`) for the same reason. A non-DER input (BER,
 * indefinite lengths) fails loudly here instead of silently producing a broken file.
 */
export function decodeExact(der: Buffer, what: string): Asn1Node {
  let node: Asn1Node;
  try {
    node = (asn1.fromDer as unknown as FromDer)(toBinary(der), { strict: true, decodeBitStrings: false, parseAllBytes: true });
  } catch (err) {
    throw new Error(`${what}: DER no válido (${(err as Error).message})`, { cause: err });
  }
  if (!encode(node).equals(der)) throw new Error(`${what}: la codificación no es DER canónica`);
  return node;
}

/** Parses DER without the round-trip check (for reading only). */
export function decode(der: Buffer): Asn1Node {
  return (asn1.fromDer as unknown as FromDer)(toBinary(der), { strict: true, decodeBitStrings: false, parseAllBytes: true });
}

export function seq(children: Asn1Node[]): Asn1Node {
  return asn1.create(Class.UNIVERSAL, Type.SEQUENCE, true, children);
}

/** A SET OF in DER order (X.690 §11.6: elements sorted by their encodings). */
export function setOf(children: Asn1Node[]): Asn1Node {
  return asn1.create(Class.UNIVERSAL, Type.SET, true, sortDer(children));
}

/** A SET with its children in the given order (for reading back what someone else wrote). */
export function rawSet(children: Asn1Node[]): Asn1Node {
  return asn1.create(Class.UNIVERSAL, Type.SET, true, children);
}

export function sortDer(children: Asn1Node[]): Asn1Node[] {
  return children
    .map((node) => ({ node, der: encode(node) }))
    .sort((a, b) => Buffer.compare(a.der, b.der))
    .map((x) => x.node);
}

export function oid(id: string): Asn1Node {
  return asn1.create(Class.UNIVERSAL, Type.OID, false, asn1.oidToDer(id).getBytes());
}

export function int(n: number): Asn1Node {
  return asn1.create(Class.UNIVERSAL, Type.INTEGER, false, asn1.integerToDer(n).getBytes());
}

/** An INTEGER from unsigned big-endian bytes (adds the 0x00 sign byte when needed). */
export function uintFromBytes(bytes: Buffer): Asn1Node {
  let b = bytes;
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  b = b.subarray(i);
  if (b.length === 0) b = Buffer.from([0]);
  if ((b[0] ?? 0) & 0x80) b = Buffer.concat([Buffer.from([0]), b]);
  return asn1.create(Class.UNIVERSAL, Type.INTEGER, false, toBinary(b));
}

export function octets(bytes: Buffer): Asn1Node {
  return asn1.create(Class.UNIVERSAL, Type.OCTETSTRING, false, toBinary(bytes));
}

export function bool(v: boolean): Asn1Node {
  return asn1.create(Class.UNIVERSAL, Type.BOOLEAN, false, v ? '\xff' : '\x00');
}

export function nullNode(): Asn1Node {
  return asn1.create(Class.UNIVERSAL, Type.NULL, false, '');
}

/** `[n]` context-specific, constructed: EXPLICIT tagging or an IMPLICIT SET/SEQUENCE. */
export function ctx(n: number, children: Asn1Node[]): Asn1Node {
  return asn1.create(Class.CONTEXT_SPECIFIC, n as Asn1Type, true, children);
}

export function algorithm(id: string, withNullParams: boolean): Asn1Node {
  return seq(withNullParams ? [oid(id), nullNode()] : [oid(id)]);
}

/** Children of a constructed node (throws on a primitive one). */
export function children(node: Asn1Node | undefined, what: string): Asn1Node[] {
  if (!node || !Array.isArray(node.value)) throw new Error(`${what}: se esperaba una estructura ASN.1`);
  return node.value;
}

/** Raw content bytes of a primitive node. */
export function content(node: Asn1Node | undefined, what: string): Buffer {
  if (!node || typeof node.value !== 'string') throw new Error(`${what}: se esperaba un valor ASN.1 primitivo`);
  return fromBinary(node.value);
}

export function oidOf(node: Asn1Node | undefined, what: string): string {
  if (!node || node.tagClass !== Class.UNIVERSAL || node.type !== Type.OID) throw new Error(`${what}: se esperaba un OID`);
  return asn1.derToOid(content(node, what).toString('binary'));
}

export function isUniversal(node: Asn1Node | undefined, type: Asn1Type): boolean {
  return !!node && node.tagClass === Class.UNIVERSAL && node.type === type;
}

export function isContext(node: Asn1Node | undefined, n: number): boolean {
  return !!node && node.tagClass === Class.CONTEXT_SPECIFIC && node.type === (n as Asn1Type);
}
