import fs from 'node:fs/promises';
import path from 'node:path';
import { withDataStore } from '../data-store.js';
import { findCertificateRow, importP12, listCertificates, listTrustAnchors, summarizeCertificate, type CertificateRecord } from '../certificates/index.js';
import { scanTokenModule } from '../signing/token-scan.js';
import { loadConfig } from '../config.js';
import { SelloError, isSelloError } from '../errors/index.js';
import type { SignatureReport } from '../pdf/index.js';
import { loadSecretBox } from '../secrets/index.js';
import { openKeySource } from '../signing/key-source-for.js';
import type { PinProvider } from '../signing/key-sources/index.js';
import { qrText } from '../signing/qr-text.js';
import { signPdfFile } from '../signing/sign-file.js';
import { candidateModules } from '../../native/index.js';
import { dataDirOf, oneOf, parse, UsageError, type Io } from './args.js';
import { issueTest } from './certs-test.js';
import { withPdfThread } from './pdf-thread.js';
import { verifyJson, verifyLine } from './verify-report.js';

function certificateLine(c: CertificateRecord): string {
  const where = c.source === 'token' ? `token ${c.tokenLabel ?? ''}`.trim() : c.source;
  return `${c.id}\t${where}\t${c.subjectName}\tserie ${c.serialNumber}\tvence ${c.notAfter.slice(0, 10)}`;
}

function certificateJson(c: CertificateRecord): Record<string, unknown> {
  return {
    id: c.id,
    source: c.source,
    environment: c.environment,
    subject: c.subjectName,
    serial_number: c.serialNumber,
    not_before: c.notBefore,
    not_after: c.notAfter,
    token_label: c.tokenLabel,
  };
}

/** `sello tokens [--module PATH]`: modules, slots, tokens and their certificates (CONTRACT §1). */
export async function tokens(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { module: { type: 'string' } });
  const config = loadConfig(values['data-dir'] ? { dataDir: values['data-dir'] } : {});
  const modules = values.module
    ? [values.module]
    : candidateModules({ configured: config.pkcs11Modules }).filter((m) => m.exists).map((m) => m.path);
  if (modules.length === 0) {
    io.out('No se encontró ningún controlador PKCS#11. Instale el del token o indíquelo con --module RUTA (o SELLO_PKCS11_MODULES).');
    return 0;
  }
  await withDataStore(config.dataDir, async (store) => {
    for (const modulePath of modules) {
      const { info, slots } = await scanTokenModule(store, modulePath);
      if (!values.json) io.out(`Módulo ${modulePath} (${info.manufacturer} ${info.description})`.trim());
      for (const slot of slots) {
        if (values.json) {
          if (!slot.token || slot.state !== 'ready') continue;
          io.out(
            JSON.stringify({
              module: modulePath,
              slot: slot.slotId,
              token: { label: slot.token.label, serial_number: slot.token.serialNumber, manufacturer: slot.token.manufacturer, model: slot.token.model, pin_tries: slot.token.pinTries },
              certificates: slot.certificates.map(certificateJson),
            }),
          );
        } else if (slot.state === 'empty') {
          io.out(`  Ranura ${slot.slotId}: sin token`);
        } else if (slot.state === 'blank' || !slot.token) {
          io.out(`  Ranura ${slot.slotId}: token sin inicializar`);
        } else {
          io.out(`  Ranura ${slot.slotId}: token "${slot.token.label}" (serie ${slot.token.serialNumber}, PIN: ${pinTriesText(slot.token.pinTries)})`);
          if (slot.certificates.length === 0) io.out('    sin certificados');
          for (const c of slot.certificates) io.out(`    ${certificateLine(c)}`);
        }
      }
    }
  });
  return 0;
}

function pinTriesText(tries: string): string {
  return { ok: 'bien', low: 'quedan pocos intentos', final_try: 'último intento', locked: 'BLOQUEADO' }[tries] ?? tries;
}

/** `sello certs import-p12 FILE [--password-stdin]`, `certs list`. */
export async function certs(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'import-p12') {
    const { values, positionals } = parse(rest, { 'password-stdin': { type: 'boolean', default: false } }, 1);
    const file = positionals[0];
    if (!file) throw new UsageError('Falta el archivo: sello certs import-p12 ARCHIVO.p12');
    let p12: Buffer;
    try {
      p12 = await fs.readFile(file);
    } catch {
      throw new UsageError(`No se puede leer ${file}.`);
    }
    const password = values['password-stdin'] ? stripNewline(await io.readStdin()) : await io.askHidden(`Contraseña de ${path.basename(file)}: `);
    if (password === undefined) throw new UsageError('No hay terminal para pedir la contraseña: use --password-stdin.');
    const dataDir = dataDirOf(values);
    await withDataStore(dataDir, async (store) => {
      const record = await importP12(store, loadSecretBox(dataDir), p12, password);
      io.out(values.json ? JSON.stringify(certificateJson(record)) : `Certificado importado: ${certificateLine(record)}`);
    });
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    await withDataStore(dataDirOf(values), async (store) => {
      const all = listCertificates(store);
      for (const c of all) io.out(values.json ? JSON.stringify(certificateJson(c)) : certificateLine(c));
      if (!values.json && all.length === 0) io.out('No hay certificados. Importe un .p12 con sello certs import-p12 o conecte un token y ejecute sello tokens.');
    });
    return 0;
  }
  if (sub === 'issue-test') return issueTest(rest, io);
  throw new UsageError('Use: sello certs import-p12 ARCHIVO [--password-stdin] | sello certs list | sello certs issue-test --type T --validity D --principal ARCHIVO.json [--organization ARCHIVO.json]');
}

function stripNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

function number(value: string | undefined, option: string): number {
  if (value === undefined) throw new UsageError(`Falta ${option}.`);
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`${option} debe ser un número mayor o igual a 0; se recibió "${value}".`);
  return n;
}

/** `sello sign IN.pdf --cert ID --page N --x X --y Y [--size s|m|l] [--out OUT.pdf] [--pin-stdin]` */
export async function sign(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(
    args,
    {
      cert: { type: 'string' },
      page: { type: 'string' },
      x: { type: 'string' },
      y: { type: 'string' },
      size: { type: 'string' },
      out: { type: 'string' },
      'pin-stdin': { type: 'boolean', default: false },
    },
    1,
  );
  const input = positionals[0];
  if (!input) throw new UsageError('Falta el PDF: sello sign ARCHIVO.pdf --cert ID --page N --x X --y Y');
  const certId = values.cert;
  if (!certId) throw new UsageError('Falta --cert ID (véalos con sello certs list o sello tokens).');
  if (values.page === undefined) throw new UsageError('Falta --page (número de página o last).');
  let page: number | 'last';
  if (values.page === 'last') page = 'last';
  else {
    page = Number(values.page);
    if (!/^\d+$/.test(values.page)) throw new UsageError(`--page debe ser un número de página (1, 2, …) o last; se recibió "${values.page}".`);
  }
  const x = number(values.x, '--x');
  const y = number(values.y, '--y');
  const size = values.size === undefined ? 's' : oneOf(values.size, ['s', 'm', 'l'] as const, '--size');
  const output = values.out ?? path.join(path.dirname(input), `${path.basename(input, path.extname(input))}-firmado.pdf`);

  const config = loadConfig(values['data-dir'] ? { dataDir: values['data-dir'] } : {});
  await withDataStore(config.dataDir, async (store) => {
    const row = findCertificateRow(store, certId);
    if (!row) throw new SelloError('certificate_not_found', { detail: `No existe el certificado ${certId}. Véalos con: sello certs list` });
    // The PIN is asked once, only if the token needs it, and never retried (CONTRACT §11).
    let stdinPin: Promise<string> | undefined;
    const pin: PinProvider = async (request) => {
      if (values['pin-stdin']) {
        stdinPin ??= io.readStdin().then(stripNewline);
        return stdinPin;
      }
      const typed = await io.askHidden(`PIN del token "${request.tokenLabel}": `);
      if (typed === undefined) throw new SelloError('pin_required', { detail: 'No hay terminal para pedir el PIN: use --pin-stdin.' });
      return typed;
    };
    const opened = await openKeySource(row, { secrets: loadSecretBox(config.dataDir), pin });
    try {
      const summary = summarizeCertificate(row.certificate);
      const signedAt = new Date();
      // The file is read and signed on a PDF thread, within the agent's deadline and memory limit.
      await withPdfThread(config, (pdfs) =>
        signPdfFile(pdfs, input, output, opened.source, {
          signingTime: signedAt,
          stamp: { page, x, y, size, signerName: summary.subjectName, qrText: qrText({ signerName: summary.subjectName, signedAt, serialNumber: summary.serialNumber }) },
          ...(config.tsaUrl ? { timestampUrl: config.tsaUrl } : {}),
          ...(config.caFile ? { caFile: config.caFile } : {}),
        }),
      );
      io.out(values.json ? JSON.stringify({ out: output, certificate: row.id, signed_at: signedAt.toISOString() }) : `Firmado: ${output}`);
    } finally {
      await opened.close();
    }
  });
  return 0;
}

/**
 * `sello verify FILE.pdf [--trust ROOTS.pem]…`: each signature with signer, time, intact or not,
 * what changed after it, and whether its signer is trusted (the data folder's test CA, the roots
 * of SELLO_TRUST_ROOTS and of each --trust file). Exit 0 only when every signature is intact,
 * trusted and followed by allowed changes only; 1 otherwise, and when there is none.
 */
export async function verify(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parse(args, { trust: { type: 'string', multiple: true } }, 1);
  const file = positionals[0];
  if (!file) throw new UsageError('Falta el PDF: sello verify ARCHIVO.pdf [--trust RAICES.pem]');
  let pdf: Buffer;
  try {
    pdf = await fs.readFile(file);
  } catch {
    throw new UsageError(`No se puede leer ${file}.`);
  }
  const config = loadConfig(values['data-dir'] ? { dataDir: values['data-dir'] } : {});
  const trustAnchors = await listTrustAnchors({ dataDir: config.dataDir, rootsFiles: [config.trustRoots, ...(values.trust ?? [])] });
  let reports: SignatureReport[];
  try {
    // On a PDF thread, within the agent's deadline and memory limit: a hostile file ends here with one line.
    reports = await withPdfThread(config, (pdfs) => pdfs.verify(pdf, { trustAnchors }));
  } catch (err) {
    // A PDF that can't be read: its code and the Spanish reason, on one line.
    if (!isSelloError(err)) throw err;
    io.err(`sello: ${err.code}: ${err.message.replace(/\s*\n\s*/g, ' ')}`);
    return 1;
  }
  reports.forEach((r, i) => io.out(values.json ? JSON.stringify(verifyJson(r)) : verifyLine(r, i)));
  if (reports.length === 0) {
    if (!values.json) io.out('El PDF no tiene firmas.');
    return 1;
  }
  return reports.every((r) => r.valid && r.trusted) ? 0 : 1;
}
