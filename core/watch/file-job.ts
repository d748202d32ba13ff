/**
 * One file of a watched folder, from "its writing has finished" to "signed copy written,
 * original moved" (CONTRACT §13). Signing itself is a signing request (CONTRACT §11,
 * core/signing/requests), so a watched file shows wherever requests do, token certificates
 * wait for the same PIN approval, and a crash resumes from the request's stored state.
 *
 * Order of the durable steps, so that nothing is signed twice or lost:
 *   1. ledger row (UNIQUE folder + SHA-256) — a second copy of the same content finds it —,
 *      the signing request, sent, and the link between them: one transaction;
 *   2. output name recorded, signed copy written atomically (temp, fsync, rename, folder fsync);
 *   3. only then the original moved to `originales/` (rename, fsync of both folders), and the
 *      row marked `done`.
 * A restart between any two steps redoes at most the last one, with the same names.
 *
 * Many files at once: the ledger writes of files handled together (step 1, and `done`) share
 * one commit (`store.batch`), renames done together share the fsync of their folder
 * (createDirSyncer), and once its signed copy is durable a file gives its place to the next one
 * (`written`) while its original is moved.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Store } from '../db/index.js';
import { isSelloError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { writeFileAtomic } from '../signing/sign-file.js';
import { findByReference, waitsForPerson, type DocumentReading, type SigningRequests, type SigningWorker } from '../signing/requests/index.js';
import { errorText, failureFromFields, type FileFailure } from './error-text.js';
import { readDroppedFile, modeOf } from './dropped-file.js';
import { createDirSyncer, freeName, printableName } from './file-names.js';
import type { FolderRow } from './folders.js';
import { findByContent, findLedger, insertQueued, outputNameTaken, transition, update, type LedgerRow } from './ledger.js';

/** What became of a file: finished either way, waiting for a PIN, or to be looked at again later. */
export type Outcome = 'done' | 'failed' | 'duplicate' | 'waiting_pin' | 'retry' | 'gone';

export interface FileJobDeps {
  store: Store;
  requests: SigningRequests;
  worker: Pick<SigningWorker, 'run'>;
  log: Logger;
  /** A PDF without its end (`%%EOF`) is given this long, since its last change, to be completed. */
  incompleteGraceMs: number;
  now?: () => Date;
}

export interface FileJobs {
  /**
   * Handles `name` in `folder` (a file that has settled). `written` is called once its signed
   * copy is durable, before its original is moved: what is left is cheap, the next file can start.
   */
  handle(folder: FolderRow, name: string, written?: () => void): Promise<Outcome>;
  /** Looks again at a row waiting for a PIN or left mid-way by a previous process. */
  resume(folder: FolderRow, row: LedgerRow, written?: () => void): Promise<Outcome>;
}

/** What Sello writes beside a file it moves: the explanation of a failure, the note of a duplicate. */
const EXPLANATION = '.error.txt';
const NOTE = '.nota.txt';

export function createFileJobs(deps: FileJobDeps): FileJobs {
  const { store, requests, worker, log } = deps;
  const now = deps.now ?? (() => new Date());
  /**
   * Names chosen by running jobs and not recorded or not written yet: two jobs never pick the
   * same free name. Output names recorded in the ledger and not written yet are taken too.
   */
  const reserved = new Set<string>();
  const syncDirs = createDirSyncer();

  /** A free name in `dir` for `name`; `companion`: the suffix of a file written beside it, which must fit and be free too. */
  async function pickName(dir: string, name: string, output = false, companion = ''): Promise<string> {
    const taken = output ? { has: (p: string) => reserved.has(p) || outputNameTaken(store, dir, path.basename(p)) } : reserved;
    const chosen = await freeName(dir, name, taken, companion);
    reserved.add(path.join(dir, chosen));
    return chosen;
  }

  /**
   * Moves `from` into `dir` under a free name. `before` runs once the name is chosen and
   * before the move: a note written there is in place when the file appears. `companion`: the
   * suffix of that note, so that its name is free and fits too.
   */
  async function moveInto(folder: FolderRow, from: string, dir: string, name: string, before?: (target: string) => Promise<void>, companion = ''): Promise<string> {
    const target = await pickName(dir, name, false, companion);
    try {
      await before?.(target);
      await fs.rename(from, path.join(dir, target));
      await Promise.all([syncDirs(dir), syncDirs(folder.path)]);
    } finally {
      reserved.delete(path.join(dir, target));
    }
    return target;
  }

  /** Moves the file to the error folder with `NAME.error.txt`, and records why. */
  async function fail(folder: FolderRow, name: string, failure: FileFailure, row: LedgerRow | undefined): Promise<Outcome> {
    const source = path.join(folder.path, name);
    const explanation = Buffer.from(errorText(printableName(name), failure, now()), 'utf8');
    // As private as the file it explains (it names it and says what is wrong with it).
    const mode = await modeOf(source);
    // The explanation first: whoever opens errores/ finds every file with its reason beside it.
    let explained = false;
    const writeExplanation = async (target: string): Promise<void> => {
      await writeFileAtomic(path.join(folder.error_dir, `${target}${EXPLANATION}`), [explanation], mode);
      explained = true;
    };
    let moved = name;
    try {
      moved = await moveInto(folder, source, folder.error_dir, name, writeExplanation, EXPLANATION);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // The file is gone already (moved by a person, or by a run that died after moving it).
      if (!explained) await writeExplanation(moved);
    }
    if (row) transition(store, row.id, ['queued', 'signing', 'waiting_pin'], 'failed', { error_code: failure.code, error: failure.detail, moved_name: moved }, now());
    log.warn('watched file failed', { folderId: folder.id, code: failure.code });
    return 'failed';
  }

  /**
   * A second copy of content already signed (or being signed): kept in `originales/` with a
   * note, never signed again. The note speaks of the copy by the name it has there (which may
   * be `NAME-1.pdf`: `NAME.pdf` in `originales/` is then the earlier file), and of the earlier
   * file by where it is now; every name as printable text (a name is chosen by whoever dropped
   * the file, and may hold line breaks).
   */
  async function duplicate(folder: FolderRow, name: string, first: LedgerRow): Promise<Outcome> {
    const source = path.join(folder.path, name);
    const mode = await modeOf(source);
    const moved = await moveInto(folder, source, folder.originals_dir, name, undefined, NOTE);
    const quote = (n: string) => `«${printableName(n)}»`;
    const self = moved === name ? quote(moved) : `${quote(moved)} (copiado en la carpeta como ${quote(name)})`;
    const earlier =
      first.state === 'done'
        ? [
            `${self} tiene exactamente el mismo contenido que un documento que Sello ya firmó:`,
            ...(first.output_name ? [`- su copia firmada: ${quote(first.output_name)} en ${folder.output_dir}`] : []),
            ...(first.moved_name ? [`- su original: ${quote(first.moved_name)} en ${folder.originals_dir}`] : []),
          ]
        : [`${self} tiene exactamente el mismo contenido que ${quote(first.name)}, que Sello está firmando.`];
    const note = [
      ...earlier,
      'Sello no firma dos veces el mismo documento: esta copia se guardó aquí sin firmar.',
      'Si necesita otra firma del mismo documento, use la copia firmada o firme con: sello sign.',
      '',
    ].join('\r\n');
    await writeFileAtomic(path.join(folder.originals_dir, `${moved}${NOTE}`), [Buffer.from(note, 'utf8')], mode);
    log.info('watched file is a duplicate', { folderId: folder.id, ledgerId: first.id });
    return 'duplicate';
  }

  async function handle(folder: FolderRow, name: string, written?: () => void): Promise<Outcome> {
    // Only a regular file of its own in the folder, never what a link leads to (dropped-file.ts).
    const read = await readDroppedFile(path.join(folder.path, name));
    if (read.kind === 'gone') return 'gone';
    if (read.kind === 'busy') return 'retry'; // still held by its writer (Windows shares lock while writing), or replaced meanwhile
    if (read.kind === 'refused') return fail(folder, name, read.failure, undefined);
    const pdf = read.bytes;
    if (!pdf.subarray(0, 1024).includes('%PDF-')) {
      return fail(folder, name, { code: 'not_pdf', detail: 'El contenido del archivo no empieza como un PDF (%PDF-).' }, undefined);
    }
    if (!pdf.subarray(Math.max(0, pdf.length - 2048)).includes('%%EOF')) {
      // Probably still being written by a slow writer that paused: wait, unless it has been still too long.
      if (Date.now() - read.mtimeMs < deps.incompleteGraceMs) return 'retry';
      return fail(folder, name, { code: 'pdf_damaged', detail: 'El PDF está incompleto: le falta el final (%%EOF).' }, undefined);
    }
    const sha256 = crypto.createHash('sha256').update(pdf).digest('hex');
    // The PDF is read on the PDF thread, before the commit and never inside one: the page count
    // of `last`, and why it cannot be signed (encrypted, certified, too few pages, damaged, past
    // the reader's limits of time and memory). The signing request's checks use this reading.
    const reading = await requests.readDocument(pdf);
    const page = placement(folder, reading);
    // New content: its ledger row, its signing request (sent at once), the link and the name of
    // its signed copy, in one commit shared with the files handled at the same moment. The
    // worker's pass starts inside it (its first write joins the commit) and signs once it is
    // committed; should the commit itself fail (a full disk), that pass finds nothing and stops,
    // and the file, still in place, is handled again later.
    const outputName = await pickName(folder.output_dir, name, true);
    let failure: FileFailure | undefined;
    let found: { row: LedgerRow; fresh: boolean; documentId?: string };
    try {
      found = await store.batch(() => {
        const existing = findByContent(store, folder.id, sha256);
        if (existing) return { row: existing, fresh: false };
        const row = insertQueued(store, folder.id, sha256, name, now());
        if (typeof page !== 'number') {
          failure = page;
          return { row, fresh: true };
        }
        return { ...createRequest(folder, row, name, pdf, page, reading, outputName), fresh: true };
      });
    } catch (err) {
      // Refused by the signing request's checks (the certificate, the stamp's place): nothing was
      // stored; the row alone, to record why.
      if (!isSelloError(err) || err.code !== 'validation_failed') throw err;
      failure = asFailure(err);
      found = await store.batch(() => {
        const existing = findByContent(store, folder.id, sha256);
        return existing ? { row: existing, fresh: false } : { row: insertQueued(store, folder.id, sha256, name, now()), fresh: true };
      });
    } finally {
      reserved.delete(path.join(folder.output_dir, outputName)); // recorded in the ledger now, or not used
    }
    let row = found.row;
    if (!found.fresh) {
      if (row.state === 'failed') {
        // Dropped again after a failure (certificate renewed, PIN fixed…): a new try.
        transition(store, row.id, ['failed'], 'queued', { name, request_id: null, output_name: null, moved_name: null, error_code: null, error: null }, now());
        row = findLedger(store, row.id)!;
      } else if (row.state === 'done') {
        return duplicate(folder, name, row);
      } else if (row.name !== name) {
        // Same content under another name while unfinished: a rename (the old name is gone) or a copy.
        const oldStillThere = await fs.access(path.join(folder.path, row.name)).then(() => true, () => false);
        if (oldStillThere) return duplicate(folder, name, row);
        update(store, row.id, { name }, now());
        row = findLedger(store, row.id)!;
      }
    }
    // Created just now, its pass running: its document is known, nothing to look up before waiting for it.
    let documentId = found.documentId;
    if (row.state === 'queued') {
      const created = failure ?? create(folder, row, name, pdf, page, reading);
      if ('code' in created) return fail(folder, name, created, row);
      ({ row, documentId } = created);
    }
    return resume(folder, row, written, documentId);
  }

  /** The page the stamp goes on, or why this PDF cannot be signed (encrypted, certified, too few pages, damaged, too complex). */
  function placement(folder: FolderRow, reading: DocumentReading): number | FileFailure {
    if ('problem' in reading) {
      const code = reading.code === 'pdf_encrypted' || reading.code === 'pdf_too_complex' ? reading.code : 'pdf_damaged';
      return { code, detail: reading.problem };
    }
    const { summary } = reading;
    if (summary.encryption !== 'none') return { code: 'pdf_encrypted', detail: 'El PDF está cifrado o protegido con contraseña.' };
    if (summary.docMdpPermission === 1) return { code: 'pdf_changes_forbidden', detail: 'El PDF está certificado sin permitir cambios.' };
    const page = folder.page === 'last' ? summary.pageCount : Number(folder.page);
    if (page > summary.pageCount) return { code: 'page_out_of_range', detail: `El PDF tiene ${summary.pageCount} página(s); la carpeta pone el sello en la página ${page}.` };
    return page;
  }

  /**
   * A refusal by the signing request's checks, as the reason written beside the file. Anything
   * else (a store that cannot be written now…) is not the file's fault: thrown again, the file
   * stays where it is.
   */
  function asFailure(err: unknown): FileFailure {
    if (isSelloError(err) && err.code === 'validation_failed') {
      const fields = (err.details as { fields?: Record<string, string[]> }).fields ?? { documento: [err.message] };
      return failureFromFields(fields);
    }
    throw err;
  }

  /** Inside a transaction: `queued` → `signing`, the signing request created and sent, and linked to the row; the row as it is now, and the request's document. */
  function createRequest(
    folder: FolderRow,
    row: LedgerRow,
    name: string,
    pdf: Buffer,
    page: number,
    reading: DocumentReading,
    outputName: string | null = null,
  ): { row: LedgerRow; documentId: string } {
    const body = {
      subject: `Carpeta vigilada: ${name}`,
      reference_id: referenceFor(folder, row),
      documents: [
        {
          title: name,
          document_base64: pdf.toString('base64'),
          file_extension: 'pdf',
          signatures: [{ signing_certificate: folder.certificate_id, page: String(page), x: String(folder.x), y: String(folder.y), size: folder.size }],
        },
      ],
      send: true,
    };
    const full = requests.create(folder.environment, body, [reading]);
    const set = { request_id: full.request.id, output_name: outputName };
    if (!transition(store, row.id, ['queued'], 'signing', set, now())) throw new Error('ledger row moved under us');
    return { row: { ...row, ...set, state: 'signing' }, documentId: full.documents[0]!.id };
  }

  /**
   * The reference of a row's signing request: `carpeta-<ledger id>`, then `carpeta-<ledger id>-2`,
   * `-3`… for a file dropped again after a failure (its earlier request keeps its reference, and
   * a reference is unique per environment, CONTRACT §11).
   */
  function referenceFor(folder: FolderRow, row: LedgerRow): string {
    let reference = `carpeta-${row.id}`;
    for (let attempt = 2; findByReference(store, folder.environment, reference); attempt++) reference = `carpeta-${row.id}-${attempt}`;
    return reference;
  }

  /** `queued` → `signing` for a row that exists already (a new try after a failure, or left queued by a previous process). */
  function create(folder: FolderRow, row: LedgerRow, name: string, pdf: Buffer, page: number | FileFailure, reading: DocumentReading): { row: LedgerRow; documentId: string } | FileFailure {
    if (typeof page !== 'number') return page;
    try {
      return store.transaction(() => createRequest(folder, row, name, pdf, page, reading));
    } catch (err) {
      return asFailure(err);
    }
  }

  /** From `signing` / `waiting_pin`: runs the request's pass, then finishes, waits or fails. */
  async function resume(folder: FolderRow, row: LedgerRow, written?: () => void, sentDocumentId?: string): Promise<Outcome> {
    if (row.state === 'done' || row.state === 'failed' || !row.request_id) return row.state === 'done' ? 'done' : 'failed';
    const requestId = row.request_id;
    if (sentDocumentId) {
      // Sent just now: wait for its pass; signed, its bytes are all that is needed.
      await worker.run(requestId);
      const signed = requests.file(folder.environment, requestId, sentDocumentId, 'signed');
      if (signed) return finish(folder, row, signed, written);
    }
    let full = requests.get(folder.environment, requestId);
    if (full.request.status === 'draft') full = requests.send(folder.environment, requestId);
    if (full.request.status === 'processing') {
      await worker.run(requestId);
      full = requests.get(folder.environment, requestId);
    }
    if (full.request.status === 'signed') {
      const signed = requests.file(folder.environment, requestId, full.documents[0]!.id, 'signed');
      if (!signed) throw new Error(`signed bytes missing for request ${requestId}`);
      return finish(folder, row, signed, written);
    }
    const signature = full.signatures[0]!;
    if (full.request.status === 'failed') {
      // Ended by a failure no approval can fix (a PDF past the reader's limits, a certificate expired…): the file goes to errors.
      return fail(folder, row.name, { code: signature.last_error_code ?? 'internal_error', detail: signature.last_error ?? 'La firma falló.' }, row);
    }
    if (signature.state === 'rejected') return fail(folder, row.name, { code: 'rejected', detail: 'La firma fue rechazada en la cola de firmas.' }, row);
    const cert = signature.last_error_code;
    if (cert === null || waitsForPerson(cert)) {
      // A token certificate: waits for a person's approval with the PIN (CONTRACT §11), also
      // after a wrong PIN or with the token out; the request stays in the signing queue.
      transition(store, row.id, ['signing'], 'waiting_pin', {}, now());
      return 'waiting_pin';
    }
    // Any other failure ends the request's signature here (rejected, so it leaves the queue) and the file goes to errors.
    try {
      requests.reject(signature.id);
    } catch {
      // Already rejected or signed meanwhile.
    }
    return fail(folder, row.name, { code: cert, detail: signature.last_error ?? cert }, row);
  }

  async function finish(folder: FolderRow, row: LedgerRow, signed: Buffer, written?: () => void): Promise<Outcome> {
    const source = path.join(folder.path, row.name);
    let outputName = row.output_name;
    if (!outputName) {
      // A row from before names were chosen at creation, or tried again after a failure.
      outputName = await pickName(folder.output_dir, row.name, true);
      update(store, row.id, { output_name: outputName }, now());
    }
    let target = path.join(folder.output_dir, outputName);
    // The signed copy keeps the original's permissions (its read and write bits).
    const mode = await modeOf(source);
    try {
      const there = await bytesAt(target);
      // The same bytes: written by a run that stopped before moving the original (its folder
      // synced again below). Other bytes: someone else's file took the name since it was
      // chosen; it stays, and the signed copy gets another name.
      if (there === null || !there.equals(signed)) {
        if (there !== null) {
          reserved.delete(target);
          outputName = await pickName(folder.output_dir, row.name, true);
          target = path.join(folder.output_dir, outputName);
          update(store, row.id, { output_name: outputName }, now());
        }
        await writeFileAtomic(target, [signed], mode);
      }
      await syncDirs(folder.output_dir);
    } finally {
      reserved.delete(target);
    }
    written?.();
    // Only now, the signed copy durable, the original leaves the folder (CONTRACT §13).
    let moved: string | null = null;
    try {
      moved = await moveInto(folder, source, folder.originals_dir, row.name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // moved by a previous process before it stopped
    }
    await store.batch(() => transition(store, row.id, ['signing', 'waiting_pin'], 'done', moved ? { moved_name: moved } : {}, now()));
    return 'done';
  }

  return { handle, resume };
}

/**
 * The bytes of the regular file at `target`, `null` when nothing is there; anything else there
 * (a symlink, a folder…) reads as bytes that are not ours, never followed.
 */
async function bytesAt(target: string): Promise<Buffer | null> {
  try {
    const st = await fs.lstat(target);
    return st.isFile() ? await fs.readFile(target) : Buffer.alloc(0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
