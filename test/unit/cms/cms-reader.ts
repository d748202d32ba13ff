/**
 * Reads back the parts of a CMS SignedData that tests check (RFC 5652 §5), with the same
 * forge ASN.1 helpers the writer uses but none of its logic.
 */
import { Class, Type, children, content, decode, encode, isContext, oidOf, rawSet, type Asn1Node } from '../../../core/pdf/cms/cms-asn1.js';

export interface ParsedAttribute {
  oid: string;
  der: Buffer;
  values: Asn1Node[];
}

export interface ParsedCms {
  version: Buffer;
  digestAlgorithms: string[];
  eContentType: string;
  eContentPresent: boolean;
  certificates: Buffer[];
  signerVersion: Buffer;
  sid: Asn1Node;
  digestAlgorithm: string;
  signedAttrs: ParsedAttribute[];
  /** DER of the signed attributes as a SET (tag 0x31): what the key signed. */
  signedAttrsDer: Buffer;
  signatureAlgorithm: string;
  signature: Buffer;
  unsignedAttrs: ParsedAttribute[];
}

export function parseCms(der: Buffer): ParsedCms {
  const ci = children(decode(der), 'ContentInfo');
  const sd = children(children(ci[1], '[0]')[0], 'SignedData');
  const encap = children(sd[2], 'encapContentInfo');
  const certsNode = sd.find((n, i) => i > 2 && isContext(n, 0));
  const si = children(children(sd[sd.length - 1], 'signerInfos')[0], 'SignerInfo');
  const signedNode = si.find((n) => isContext(n, 0));
  const unsignedNode = si.find((n) => isContext(n, 1));
  const attrs = (node: Asn1Node | undefined): ParsedAttribute[] =>
    node ? children(node, 'attrs').map((a) => ({ oid: oidOf(children(a, 'Attribute')[0], 'attrType'), der: encode(a), values: children(children(a, 'Attribute')[1], 'attrValues') })) : [];
  const signedIdx = si.indexOf(signedNode as Asn1Node);
  return {
    version: content(sd[0], 'version'),
    digestAlgorithms: children(sd[1], 'digestAlgorithms').map((a) => oidOf(children(a, 'alg')[0], 'alg')),
    eContentType: oidOf(encap[0], 'eContentType'),
    eContentPresent: encap.length > 1,
    certificates: certsNode ? children(certsNode, 'certificates').map((c) => encode(c)) : [],
    signerVersion: content(si[0], 'version'),
    sid: si[1] as Asn1Node,
    digestAlgorithm: oidOf(children(si[2], 'alg')[0], 'alg'),
    signedAttrs: attrs(signedNode),
    signedAttrsDer: signedNode ? encode(rawSet(children(signedNode, 'signedAttrs'))) : Buffer.alloc(0),
    signatureAlgorithm: oidOf(children(si[signedIdx + 1], 'alg')[0], 'alg'),
    signature: content(si[signedIdx + 2], 'signature'),
    unsignedAttrs: attrs(unsignedNode),
  };
}

export { Class, Type, children, content, encode, oidOf };
