/**
 * forge's ASN.1 codec on its own (`node-forge/lib/asn1.js`, with the util and OID tables it
 * needs), for the code that only reads or writes DER: certificates' fields, distinguished
 * names, CMS structures. Importing `node-forge` itself evaluates all of forge (PKI, PKCS#12,
 * TLS, ciphers: ~400 KB that `sello serve` would parse at every start, issue 17); the modules
 * that need those import `node-forge` and are loaded when used.
 *
 * It is the same object as `forge.asn1` (the bundle and Node keep one instance of each module),
 * so trees built here and there mix.
 */
import type forge from 'node-forge';
import asn1Codec from 'node-forge/lib/asn1.js';

export const asn1: typeof forge.asn1 = asn1Codec;
export type Asn1 = forge.asn1.Asn1;
export type Asn1Type = forge.asn1.Type;
export type Asn1Class = forge.asn1.Class;
