// node-forge ships no types; @types/node-forge describes the package's main module only.
declare module 'node-forge/lib/asn1.js' {
  import type forge from 'node-forge';
  const asn1: typeof forge.asn1;
  export default asn1;
}
