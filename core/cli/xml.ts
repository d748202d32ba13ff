/**
 * `sello xml sign` and `sello xml verify`: the signature of a comprobante from the command line,
 * with a certificate Sello knows (`sello certs list`, `sello tokens`), the same way `sello sign`
 * signs a PDF. The file decides the format: XAdES-BES for an SRI comprobante (Ecuador), the
 * enveloped XMLDSig inside `ext:UBLExtensions` for a UBL 2.1 document (Peru).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { withDataStore } from '../data-store.js';
import { findCertificateRow } from '../certificates/index.js';
import { loadConfig } from '../config.js';
import { SelloError } from '../errors/index.js';
import { loadSecretBox } from '../secrets/index.js';
import { openKeySource } from '../signing/key-source-for.js';
import type { PinProvider } from '../signing/key-sources/index.js';
import { writeFileAtomic } from '../signing/sign-file.js';
import { MAX_XML_BYTES, signatureFormatOf, signatureLabel, signUblDsig, signXadesBes, verifyUblDsig, verifyXadesBes, xmlSignerFrom, type XmlVerification } from '../xml/index.js';
import { parse, UsageError, type Io } from './args.js';

const USAGE = 'Use: sello xml sign ARCHIVO.xml --cert ID [--out SALIDA.xml] [--sha256] [--pin-stdin] | sello xml verify ARCHIVO.xml';

/** `sello xml sign|verify …` */
export async function xml(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'sign') return xmlSign(rest, io);
  if (sub === 'verify') return xmlVerify(rest, io);
  throw new UsageError(USAGE);
}

/**
 * `sello xml sign FILE.xml --cert ID [--out F] [--sha256] [--pin-stdin]`: writes
 * `FILE.signed.xml` next to the input (or `--out`), atomically, never over the input.
 */
async function xmlSign(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    args,
    { cert: { type: 'string' }, out: { type: 'string' }, sha256: { type: 'boolean', default: false }, 'pin-stdin': { type: 'boolean', default: false } },
    1,
  );
  const input = positionals[0];
  if (!input) throw new UsageError('Falta el XML: sello xml sign ARCHIVO.xml --cert ID');
  const certId = values.cert;
  if (!certId) throw new UsageError('Falta --cert ID (véalos con sello certs list o sello tokens).');
  const output = values.out ?? path.join(path.dirname(input), `${path.basename(input, path.extname(input))}.signed.xml`);
  if (await sameFile(input, output)) throw new UsageError('El XML firmado no puede reemplazar al original: indique otro --out.');
  const xmlBytes = await readBounded(input);
  const hash = values.sha256 ? 'sha256' : 'sha1';

  const config = loadConfig(values['data-dir'] ? { dataDir: values['data-dir'] } : {});
  await withDataStore(config.dataDir, async (store) => {
    const row = findCertificateRow(store, certId);
    if (!row) throw new SelloError('certificate_not_found', { detail: `No existe el certificado ${certId}. Véalos con: sello certs list` });
    const opened = await openKeySource(row, { secrets: loadSecretBox(config.dataDir), pin: pinProvider(io, values['pin-stdin']) });
    try {
      // Checks RSA and digitalSignature before any PIN is asked.
      const signer = xmlSignerFrom(opened.source);
      const signedAt = new Date();
      const format = signatureFormatOf(xmlBytes);
      const signed = format === 'ubl-dsig' ? await signUblDsig(xmlBytes, signer, { hash }) : await signXadesBes(xmlBytes, signer, { hash, signingTime: signedAt });
      await writeFileAtomic(output, [signed]);
      io.out(
        values.json
          ? JSON.stringify({ out: output, certificate: row.id, format, hash, signed_at: signedAt.toISOString() })
          : `Firmado (${format === 'ubl-dsig' ? 'XMLDSig UBL' : 'XAdES-BES'}, ${signatureLabel(hash)}): ${output}`,
      );
    } finally {
      await opened.close();
    }
  });
  return 0;
}

/** `sello xml verify FILE.xml`: exit 0 when the signature holds, 1 otherwise; one line either way. */
async function xmlVerify(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, {}, 1);
  const file = positionals[0];
  if (!file) throw new UsageError('Falta el XML: sello xml verify ARCHIVO.xml');
  let result: XmlVerification;
  let format: ReturnType<typeof signatureFormatOf> = 'sri-xades';
  try {
    const bytes = await readBounded(file);
    format = signatureFormatOf(bytes);
    result = format === 'ubl-dsig' ? verifyUblDsig(bytes) : verifyXadesBes(bytes);
  } catch (err) {
    if (!(err instanceof SelloError)) throw err;
    result = { valid: false, problem: err.message };
  }
  if (values.json) {
    io.out(
      JSON.stringify({
        valid: result.valid,
        format,
        ...(result.problem ? { problem: result.problem } : {}),
        signer: result.signerName ?? null,
        signing_time: result.signingTime ?? null,
        hash: result.hash ?? null,
      }),
    );
  } else if (result.valid) {
    // A UBL signature has no signing time of its own (XMLDSig, not XAdES).
    const when = format === 'ubl-dsig' ? ' (XMLDSig UBL)' : `, firmada el ${result.signingTime ?? '(sin fecha)'}`;
    io.out(`Firma válida: ${result.signerName ?? 'firmante sin nombre'}${when}, ${signatureLabel(result.hash ?? 'sha1')}.`);
  } else {
    io.out(`Firma NO válida: ${result.problem ?? 'sin detalle'}`);
  }
  return result.valid ? 0 : 1;
}

/** The file, unless it is bigger than any XML Sello accepts (then not read at all). */
async function readBounded(file: string): Promise<Buffer> {
  let size: number;
  try {
    size = (await fs.stat(file)).size;
  } catch {
    throw new UsageError(`No se puede leer ${file}.`);
  }
  if (size > MAX_XML_BYTES) {
    throw new SelloError('xml_invalid', { detail: `El XML pesa ${(size / 1024 / 1024).toFixed(1)} MB; Sello admite hasta ${MAX_XML_BYTES / 1024 / 1024} MB.` });
  }
  try {
    return await fs.readFile(file);
  } catch {
    throw new UsageError(`No se puede leer ${file}.`);
  }
}

/** The same path, or the same file through another name (a link). */
async function sameFile(a: string, b: string): Promise<boolean> {
  if (path.resolve(a) === path.resolve(b)) return true;
  try {
    const [sa, sb] = await Promise.all([fs.stat(a), fs.stat(b)]);
    return sa.dev === sb.dev && sa.ino === sb.ino;
  } catch {
    return false; // the output does not exist yet
  }
}

/** The PIN, asked once and only if the token needs it, never retried (CONTRACT §11). */
function pinProvider(io: Io, fromStdin: boolean | undefined): PinProvider {
  let stdinPin: Promise<string> | undefined;
  return async (request) => {
    if (fromStdin) {
      stdinPin ??= io.readStdin().then((text) => text.replace(/\r?\n$/, ''));
      return stdinPin;
    }
    const typed = await io.askHidden(`PIN del token "${request.tokenLabel}": `);
    if (typed === undefined) throw new SelloError('pin_required', { detail: 'No hay terminal para pedir el PIN: use --pin-stdin.' });
    return typed;
  };
}
