/**
 * The face of core/xml for the code `sello serve` loads at its start (issue 17): the checks of a
 * signing certificate and the signer made of a key source, which cost next to nothing to load,
 * and `signXadesBes`, whose code and libraries (xml-crypto, xpath, @xmldom: about 75 ms and 3 MB)
 * are loaded at the first signature. `index.ts` is the whole module, for the CLI and the tests.
 *
 * esbuild's code splitting places a module by the static imports that reach it, whether or not
 * what they import is used: one static import of `index.ts` (or of sign.ts, verify.ts) from the
 * agent's code would put those libraries back into every start
 * (test/integration/startup-modules.test.ts checks it on the build).
 *
 * @example
 *   const signed = await signXadesBes(xml, xmlSignerFrom(source), { hash: 'sha1' }); // loads sign.ts once
 */
import type * as Sign from './sign.js';
import type { SignXadesOptions } from './sign.js';
import type { XmlSigner } from './signer.js';

export { assertXmlSigningCertificate, certificateFacts } from './certificate.js';
export { xmlSignerFrom, type XmlSigner } from './signer.js';
export type { XmlHash } from './algorithms.js';

let sign: Promise<typeof Sign> | undefined;

/** `signXadesBes` of sign.ts, loaded at its first call. */
export async function signXadesBes(xml: Buffer, signer: XmlSigner, opts: SignXadesOptions = {}): Promise<Buffer> {
  sign ??= import('./sign.js');
  return (await sign).signXadesBes(xml, signer, opts);
}
