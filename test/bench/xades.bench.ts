/**
 * `npm run bench -- xades`: XAdES-BES signatures per second of a ~5 KB factura with a software
 * RSA-2048 key, Sello's `signXadesBes` next to the npm package `ec-sri-invoice-signer` signing
 * the same XML with the same key (from a .p12, the only way it takes one) in the same run.
 * Every output is checked once (verifyXadesBes and xmlsec1) before anything is timed.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ecSri from 'ec-sri-invoice-signer';
import { softwareKeySource } from '../../core/signing/key-sources/index.js';
import { p12KeySource } from '../../core/signing/key-sources/p12.js';
import { signXadesBes, verifyXadesBes, xmlSignerFrom } from '../../core/xml/index.js';
import { createTestPki } from '../helpers/test-ca.js';
import { SRI_SAMPLES, xmlsec1 } from '../helpers/xml-tools.js';
import type { Benchmark } from './run.js';

const PASSWORD = 'clave-bench';

/** The sample factura with its detalle repeated until it weighs about 5 KB. */
function factura(): string {
  const xml = readFileSync(path.join(SRI_SAMPLES, 'invoice.unsigned.xml'), 'utf8');
  const detalle = /<detalle>[\s\S]*?<\/detalle>/.exec(xml)?.[0] ?? '';
  let out = xml;
  while (Buffer.byteLength(out) < 5 * 1024) out = out.replace('</detalles>', `    ${detalle}\n    </detalles>`);
  return out;
}

async function perSecond(seconds: number, fn: () => Promise<unknown> | unknown): Promise<{ n: number; rate: number; msEach: number }> {
  for (let i = 0; i < 5; i++) await fn(); // warm-up (JIT, key import)
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < seconds * 1000) {
    await fn();
    n++;
  }
  const ms = performance.now() - t0;
  return { n, rate: (n * 1000) / ms, msEach: ms / n };
}

const benchmark: Benchmark = {
  description: 'XAdES-BES signatures per second of a 5 KB factura: Sello next to ec-sri-invoice-signer, same key',
  notes: `
Sequential signatures with one RSA-2048 key. ec-sri-invoice-signer takes the key only as a
.p12, so each of its signatures also opens the .p12; the third row shows Sello doing the same
(\`p12KeySource\` at each signature), the fairest comparison of the whole call. Sello's figure
includes its own check of every signature it returns (\`verifyXadesBes\`). ec-sri-invoice-signer
signs with node-forge's RSA, Sello with node:crypto. ec-sri-invoice-signer 1.7.5 writes the
RSAKeyValue from the decimal digits of the key read as hex (an Exponent of \`ZVM=\` instead of
\`AQAB\`), so Sello's verifier, which requires a KeyValue to be the certificate's key, refuses
its signatures; xmlsec1 with the key taken from the certificate accepts them.
`,
  async run(report) {
    const pki = await createTestPki();
    try {
      const xmlText = factura();
      const xml = Buffer.from(xmlText, 'utf8');
      const certFile = path.join(pki.dir, 'bench.crt');
      const keyFile = path.join(pki.dir, 'bench.key');
      const p12File = path.join(pki.dir, 'bench.p12');
      execFileSync('sh', ['-c', `cat > ${certFile}`], { input: pki.leaf.certificatePem });
      execFileSync('sh', ['-c', `umask 077; cat > ${keyFile}`], { input: pki.leaf.privateKeyPem });
      execFileSync('openssl', ['pkcs12', '-export', '-inkey', keyFile, '-in', certFile, '-out', p12File, '-passout', `pass:${PASSWORD}`]);
      const p12 = readFileSync(p12File);

      const signer = xmlSignerFrom(softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate }));
      const sello = (): Promise<Buffer> => signXadesBes(xml, signer);
      const selloP12 = (): Promise<Buffer> => signXadesBes(xml, xmlSignerFrom(p12KeySource(p12, PASSWORD)));
      const theirs = (): string => ecSri.signInvoiceXml(xmlText, p12, { pkcs12Password: PASSWORD });

      // Same document, same key, both accepted by xmlsec1 before anything is timed.
      const ourCheck = verifyXadesBes(await sello());
      if (!ourCheck.valid) throw new Error(`la firma de Sello no verifica: ${ourCheck.problem}`);
      const theirOutput = Buffer.from(theirs(), 'utf8');
      for (const [who, out] of [['Sello', await sello()], ['ec-sri-invoice-signer', theirOutput]] as const) {
        const x = xmlsec1(out, 'factura');
        if (!x.ok) throw new Error(`xmlsec1 no acepta la firma de ${who}: ${x.output}`);
      }
      const theirCheck = verifyXadesBes(theirOutput);

      const ours = await perSecond(3, sello);
      const oursP12 = await perSecond(3, selloP12);
      const other = await perSecond(3, theirs);
      const ratio = ours.rate / other.rate;
      report.table(
        ['signer', 'signatures/s', 'ms each', 'signatures'],
        [
          ['Sello `signXadesBes`, key in memory', ours.rate.toFixed(0), ours.msEach.toFixed(2), String(ours.n)],
          ['Sello, opening the .p12 at each signature', oursP12.rate.toFixed(0), oursP12.msEach.toFixed(2), String(oursP12.n)],
          ['ec-sri-invoice-signer `signInvoiceXml` (.p12)', other.rate.toFixed(1), other.msEach.toFixed(2), String(other.n)],
        ],
      );
      report.text(`Factura of ${(xml.length / 1024).toFixed(1)} KB. Sello / ec-sri-invoice-signer: **${ratio.toFixed(1)}×** (key in memory), ${(oursP12.rate / other.rate).toFixed(1)}× (both opening the .p12).`);
      report.text(
        theirCheck.valid
          ? 'verifyXadesBes accepts ec-sri-invoice-signer’s signature too.'
          : `verifyXadesBes refuses ec-sri-invoice-signer’s signature: “${theirCheck.problem}” (xmlsec1, which takes the key from the certificate, accepts it).`,
      );
      report.goal(`Sello's XAdES signing ≥ 2× ec-sri-invoice-signer's (this run: ${ratio.toFixed(1)}×)`, ratio >= 2);
    } finally {
      await pki.cleanup();
    }
  },
};

export default benchmark;
