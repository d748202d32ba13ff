/**
 * The create body of a signing request (spec "Create signing request body" plus the
 * contract's extensions, CONTRACT §11), in three passes: the schema (types, required
 * fields); the reading of each document (base64, and the PDF read on the PDF thread,
 * asynchronously and outside any transaction: `readDocuments`); and the checks that need
 * the store and those readings (page, stamp inside the crop box, certificate), synchronous,
 * so that they and the insert share one transaction. Every problem is collected by field, so
 * the caller sees them all at once in `params` (spec, Family A error object).
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import type { Store } from '../../db/index.js';
import { isSelloError, fieldMessages } from '../../errors/index.js';
import { stampDimensions, type PdfSummary, type StampSize } from '../../pdf/index.js';
import { usableCertificate } from './certificates-port.js';

export const signingRequestTypes = [
  'ec/qualified', 'jm/advanced', 'pa/simple', 'pe/advanced', 'br/advanced',
  'bo/advanced', 'sv/advanced', 'gt/advanced', 'hn/advanced', 'ni/advanced',
] as const;

/** The spec gives page, x and y as strings; numbers are accepted too. */
const numberish = z.union([z.string(), z.number()]).transform((v) => String(v).trim());

const signatureSchema = z.strictObject({
  signing_certificate: z.string().min(1),
  page: numberish,
  size: z.enum(['s', 'm', 'l'], { error: 'debe ser s, m o l' }).optional(),
  x: numberish,
  y: numberish,
});

const documentSchema = z.strictObject({
  /** The caller's own key of the document, returned as `client_id` (CONTRACT §11). */
  id: z.string().min(1).max(200).optional(),
  title: z.string().min(1).max(500),
  notes: z.string().max(10_000).optional(),
  document_base64: z.string().min(1),
  file_extension: z.string(),
  signatures: z.array(signatureSchema).min(1),
});

export const createSigningRequestSchema = z.strictObject({
  subject: z.string({ error: 'es obligatorio' }).min(1, 'no puede estar vacío').max(500),
  type: z.enum(signingRequestTypes).optional(),
  documents: z.array(documentSchema).min(1).max(100),
  callback_url: z.string().max(2000).optional(),
  /** Bearer token of the signing-result callback (decision: per request; docs/decisions.md). */
  callback_bearer_token: z.string().min(1).max(4096).optional(),
  reference_id: z.string().min(1).max(200).optional(),
  /** Optional owning book, by slug, for Family B reads (docs/decisions.md). */
  book: z.string().min(1).max(200).optional(),
  send: z.boolean().optional(),
});

export type CreateSigningRequestBody = z.infer<typeof createSigningRequestSchema>;

/** A validated signature, numbers read. */
export interface SignatureInput {
  certificateId: string;
  page: number;
  size: StampSize;
  x: number;
  y: number;
}

export interface DocumentInput {
  clientId: string | null;
  title: string;
  notes: string | null;
  fileExtension: 'pdf';
  pdf: Buffer;
  sha256: string;
  signatures: SignatureInput[];
}

export interface CheckedRequest {
  subject: string;
  type: string | null;
  referenceId: string | null;
  callbackUrl: string | null;
  callbackBearerToken: string | null;
  bookSlug: string | null;
  send: boolean;
  documents: DocumentInput[];
}

export type Problems = Record<string, string[]>;

/** Whether `c` (a UTF-16 code) is in the base64 alphabet (RFC 4648 §4). */
function isBase64Char(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
}

/**
 * Strict base64 (RFC 4648 §4; line breaks tolerated): Node's decoder would skip garbage silently.
 * One pass over the characters, on the API's thread: a regular expression over the megabytes of
 * a request's PDFs took about 40 ms per MB, and froze every other request meanwhile.
 */
export function decodeBase64(text: string): Buffer | undefined {
  let digits = 0;
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13 || c === 10) continue; // \r, \n
    if (c === 61) padding++; // '=': only at the end, at most two
    else if (padding > 0 || !isBase64Char(c)) return undefined;
    digits++;
  }
  if (digits === 0 || digits % 4 !== 0 || padding > 2) return undefined;
  return Buffer.from(text, 'base64'); // Node's decoder skips the line breaks
}

/** `https://…` only (CONTRACT §9: callbacks go over HTTPS). */
export function callbackUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'no es una URL válida';
  }
  if (url.protocol !== 'https:') return 'debe ser una URL HTTPS';
  if (url.username || url.password) return 'no debe llevar usuario ni contraseña';
  return undefined;
}

/**
 * One document as read before the request is checked: its bytes and the PDF's summary, or why
 * it cannot be signed: `problem` said for the API caller, by field; `code` the refusal's
 * (`pdf_damaged`, `pdf_too_complex`…), or `invalid_base64` / `not_pdf`.
 */
export type DocumentReading =
  | { pdf: Buffer; summary: PdfSummary }
  | { pdf: Buffer | undefined; problem: string; code: string };

/**
 * Decodes and reads every document of `body`, with `inspect` (the PDF thread). A PDF that
 * cannot be read (damaged, encrypted, too complex for the reader's limits) is a problem of its
 * field; anything else `inspect` throws (the PDF thread cannot start) is not the caller's fault
 * and is thrown again.
 */
export async function readDocuments(body: CreateSigningRequestBody, inspect: (pdf: Buffer) => Promise<PdfSummary>): Promise<DocumentReading[]> {
  return Promise.all(body.documents.map((doc) => readDocument(decodeBase64(doc.document_base64), inspect)));
}

/** `readDocuments` for one document's bytes (`undefined`: not valid base64). */
export async function readDocument(pdf: Buffer | undefined, inspect: (pdf: Buffer) => Promise<PdfSummary>): Promise<DocumentReading> {
  if (!pdf) return { pdf, problem: 'no es base64 válido', code: 'invalid_base64' };
  if (!pdf.subarray(0, 1024).includes('%PDF-')) return { pdf, problem: 'el contenido no es un PDF', code: 'not_pdf' };
  try {
    return { pdf, summary: await inspect(pdf) };
  } catch (err) {
    if (isSelloError(err) && err.status < 500) return { pdf, problem: err.message, code: err.code };
    throw err;
  }
}

function numberOf(text: string): number | undefined {
  if (!/^-?\d+(?:\.\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/**
 * The checks that need the store and the documents as read (`readings[i]` is `body.documents[i]`,
 * from `readDocuments`). Returns the request ready to store, or the problems by field path
 * (`documents[0].signatures[1].page`).
 */
export function checkSigningRequest(
  store: Store,
  body: CreateSigningRequestBody,
  readings: readonly DocumentReading[],
  environment: 'test' | 'live',
  now: Date,
): { ok: true; request: CheckedRequest } | { ok: false; problems: Problems } {
  const problems: Problems = fieldMessages();
  const add = (field: string, message: string) => (problems[field] ??= []).push(message);
  if (body.callback_url !== undefined) {
    const problem = callbackUrlProblem(body.callback_url);
    if (problem) add('callback_url', problem);
  }
  const clientIds = new Set<string>();
  const documents: DocumentInput[] = [];
  body.documents.forEach((doc, d) => {
    const at = `documents[${d}]`;
    if (doc.id !== undefined) {
      if (clientIds.has(doc.id)) add(`${at}.id`, `"${doc.id}" se repite en otro documento`);
      clientIds.add(doc.id);
    }
    if (doc.file_extension.toLowerCase() !== 'pdf') add(`${at}.file_extension`, 'solo se admite "pdf"');
    const reading = readings[d];
    if (!reading) throw new Error(`document ${d} was not read before the request was checked`);
    const pdf = reading.pdf;
    let summary: PdfSummary | undefined;
    if ('problem' in reading) {
      add(`${at}.document_base64`, reading.problem);
    } else {
      summary = reading.summary;
      if (summary.encryption !== 'none') add(`${at}.document_base64`, 'el PDF está cifrado; envíelo sin contraseña');
      if (summary.docMdpPermission === 1) add(`${at}.document_base64`, 'el PDF está certificado sin permitir cambios; no admite más firmas');
    }
    const signatures: SignatureInput[] = [];
    doc.signatures.forEach((sig, s) => {
      const sat = `${at}.signatures[${s}]`;
      const cert = usableCertificate(store, sig.signing_certificate, environment, now);
      if (!cert.ok) add(`${sat}.signing_certificate`, cert.message);
      const page = numberOf(sig.page);
      const x = numberOf(sig.x);
      const y = numberOf(sig.y);
      const size: StampSize = sig.size ?? 's';
      if (page === undefined || !Number.isInteger(page) || page < 1) add(`${sat}.page`, 'debe ser un número de página (1, 2, …)');
      if (x === undefined || x < 0) add(`${sat}.x`, 'debe ser un número mayor o igual a 0 (puntos desde el borde izquierdo)');
      if (y === undefined || y < 0) add(`${sat}.y`, 'debe ser un número mayor o igual a 0 (puntos desde el borde superior)');
      if (summary && page !== undefined && Number.isInteger(page) && page >= 1) {
        const target = summary.pages[page - 1];
        if (!target) {
          add(`${sat}.page`, `el PDF tiene ${summary.pageCount} página(s); se pidió la ${page}`);
        } else if (x !== undefined && y !== undefined && x >= 0 && y >= 0) {
          // CONTRACT §12: x, y in points from the top-left of the crop box; the whole stamp must fit.
          const dim = stampDimensions(size);
          if (x + dim.width > target.width) add(`${sat}.x`, `el sello (${Math.ceil(dim.width)} pt de ancho) no cabe: la página mide ${target.width} pt de ancho`);
          if (y + dim.height > target.height) add(`${sat}.y`, `el sello (${Math.ceil(dim.height)} pt de alto) no cabe: la página mide ${target.height} pt de alto`);
        }
      }
      if (page !== undefined && x !== undefined && y !== undefined) signatures.push({ certificateId: sig.signing_certificate, page, size, x, y });
    });
    if (pdf) {
      documents.push({
        clientId: doc.id ?? null,
        title: doc.title,
        notes: doc.notes ?? null,
        fileExtension: 'pdf',
        pdf,
        sha256: crypto.createHash('sha256').update(pdf).digest('hex'),
        signatures,
      });
    }
  });
  if (Object.keys(problems).length > 0) return { ok: false, problems };
  return {
    ok: true,
    request: {
      subject: body.subject,
      type: body.type ?? null,
      referenceId: body.reference_id ?? null,
      callbackUrl: body.callback_url ?? null,
      callbackBearerToken: body.callback_bearer_token ?? null,
      bookSlug: body.book ?? null,
      send: body.send ?? false,
      documents,
    },
  };
}
