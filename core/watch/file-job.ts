/**
 * One file of a watched folder, from "its writing has finished" to "signed copy written,
 * original moved" (CONTRACT §13). Signing itself is a signing request (CONTRACT §11,
 * core/signing/requests), so a watched file shows wherever requests do, token certificates
 * wait for the same PIN approval, and a crash resumes from the request's stored state.
 *
 * Order of the durable steps, so that nothing is signed twice or lost:
 *   1. ledger row (UNIQUE folder + SHA-256) — a second copy of the same content finds it;
 *   2. signing request created and linked to the row in one transaction;
 *   3. output name recorded, signed copy written atomically (temp, fsync, rename, folder fsync);
 *   4. only then the original moved to `originales/`, and the row marked `done`.
 * A restart between any two steps redoes at most the last one, with the same names.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Store } from '../db/index.js';
import { isSelloError } from '../errors/index.js';
import type { Logger } from '../log/index.js';
import { inspectPdf } from '../pdf/index.js';
import { writeFileAtomic } from '../signing/sign-file.js';
import type { SigningRequests, SigningWorker } from '../signing/requests/index.js';
import { errorText, failureFromFields, type FileFailure } from './error-text.js';
import { freeName, syncDir } from './file-names.js';
import type { FolderRow } from './folders.js';
import { findByContent, findLedger, insertQueued, transition, update, type LedgerRow } from './ledger.js';

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
  /** Handles `name` in `folder` (a file that has settled). */
  handle(folder: FolderRow, name: string): Promise<Outcome>;
  /** Looks again at a row waiting for a PIN or left mid-way by a previous process. */
  resume(folder: FolderRow, row: LedgerRow): Promise<Outcome>;
}

const LOCKED = new Set(['EBUSY', 'EPERM', 'EACCES', 'EAGAIN']);

export function createFileJobs(deps: FileJobDeps): FileJobs {
  const { store, requests, worker, log } = deps;
  const now = deps.now ?? (() => new Date());
  /** Names chosen by running jobs and not written yet: two jobs never pick the same free name. */
  const reserved = new Set<string>();

  async function pickName(dir: string, name: string): Promise<string> {
    const chosen = await freeName(dir, name, reserved);
    reserved.add(path.join(dir, chosen));
    return chosen;
  }

  /**
   * Moves `from` into `dir` under a free name. `before` runs once the name is chosen and
   * before the move: a note written there is in place when the file appears.
   */
  async function moveInto(folder: FolderRow, from: string, dir: string, name: string, before?: (target: string) => Promise<void>): Promise<string> {
    const target = await pickName(dir, name);
    try {
      await before?.(target);
      await fs.rename(from, path.join(dir, target));
      await syncDir(dir);
      await syncDir(folder.path);
    } finally {
      reserved.delete(path.join(dir, target));
    }
    return target;
  }

  /** Moves the file to the error folder with `NAME.error.txt`, and records why. */
  async function fail(folder: FolderRow, name: string, failure: FileFailure, row: LedgerRow | undefined): Promise<Outcome> {
    const source = path.join(folder.path, name);
    const explanation = Buffer.from(errorText(name, failure, now()), 'utf8');
    // The explanation first: whoever opens errores/ finds every file with its reason beside it.
    let explained = false;
    const writeExplanation = async (target: string): Promise<void> => {
      await writeFileAtomic(path.join(folder.error_dir, `${target}.error.txt`), [explanation]);
      explained = true;
    };
    let moved = name;
    try {
      moved = await moveInto(folder, source, folder.error_dir, name, writeExplanation);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      // The file is gone already (moved by a person, or by a run that died after moving it).
      if (!explained) await writeExplanation(moved);
    }
    if (row) transition(store, row.id, ['queued', 'signing', 'waiting_pin'], 'failed', { error_code: failure.code, error: failure.detail, moved_name: moved }, now());
    log.warn('watched file failed', { folderId: folder.id, code: failure.code });
    return 'failed';
  }

  /** A second copy of content already signed (or being signed): kept in `originales/` with a note, never signed again. */
  async function duplicate(folder: FolderRow, name: string, first: LedgerRow): Promise<Outcome> {
    const moved = await moveInto(folder, path.join(folder.path, name), folder.originals_dir, name);
    const where = first.state === 'done' && first.output_name ? `ya se firmó como «${first.output_name}» en ${folder.output_dir}` : 'se está firmando';
    const note = [
      `«${name}» tiene exactamente el mismo contenido que «${first.name}», que ${where}.`,
      'Sello no firma dos veces el mismo documento: esta copia se guardó aquí sin firmar.',
      'Si necesita otra firma del mismo documento, use la copia firmada o firme con: sello sign.',
      '',
    ].join('\r\n');
    await writeFileAtomic(path.join(folder.originals_dir, `${moved}.nota.txt`), [Buffer.from(note, 'utf8')]);
    log.info('watched file is a duplicate', { folderId: folder.id, ledgerId: first.id });
    return 'duplicate';
  }

  async function handle(folder: FolderRow, name: string): Promise<Outcome> {
    const file = path.join(folder.path, name);
    let pdf: Buffer;
    let mtimeMs: number;
    try {
      const st = await fs.stat(file);
      mtimeMs = st.mtimeMs;
      pdf = await fs.readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (code === 'ENOENT') return 'gone';
      if (LOCKED.has(code)) return 'retry'; // still held by its writer (Windows shares lock while writing)
      throw err;
    }
    if (!pdf.subarray(0, 1024).includes('%PDF-')) {
      return fail(folder, name, { code: 'not_pdf', detail: 'El contenido del archivo no empieza como un PDF (%PDF-).' }, undefined);
    }
    if (!pdf.subarray(Math.max(0, pdf.length - 2048)).includes('%%EOF')) {
      // Probably still being written by a slow writer that paused: wait, unless it has been still too long.
      if (Date.now() - mtimeMs < deps.incompleteGraceMs) return 'retry';
      return fail(folder, name, { code: 'pdf_damaged', detail: 'El PDF está incompleto: le falta el final (%%EOF).' }, undefined);
    }
    const sha256 = crypto.createHash('sha256').update(pdf).digest('hex');
    const found = store.transaction(() => {
      const existing = findByContent(store, folder.id, sha256);
      if (existing) return { row: existing, fresh: false };
      return { row: insertQueued(store, folder.id, sha256, name, now()), fresh: true };
    });
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
    if (row.state === 'queued') {
      const created = create(folder, row, name, pdf);
      if (created !== true) return fail(folder, name, created, row);
      row = findLedger(store, row.id)!;
    }
    return resume(folder, row);
  }

  /** `queued` → `signing`: the signing request (a draft) and the link in one transaction, then sent. */
  function create(folder: FolderRow, row: LedgerRow, name: string, pdf: Buffer): true | FileFailure {
    let page: number;
    try {
      const summary = inspectPdf(pdf);
      if (summary.encryption !== 'none') return { code: 'pdf_encrypted', detail: 'El PDF está cifrado o protegido con contraseña.' };
      if (summary.docMdpPermission === 1) return { code: 'pdf_changes_forbidden', detail: 'El PDF está certificado sin permitir cambios.' };
      page = folder.page === 'last' ? summary.pageCount : Number(folder.page);
      if (page > summary.pageCount) return { code: 'page_out_of_range', detail: `El PDF tiene ${summary.pageCount} página(s); la carpeta pone el sello en la página ${page}.` };
    } catch (err) {
      if (isSelloError(err)) return { code: err.code === 'pdf_encrypted' ? 'pdf_encrypted' : 'pdf_damaged', detail: err.message };
      throw err;
    }
    try {
      const requestId = store.transaction(() => {
        const full = requests.create(folder.environment, {
          subject: `Carpeta vigilada: ${name}`,
          reference_id: `carpeta-${row.id}`,
          documents: [
            {
              title: name,
              document_base64: pdf.toString('base64'),
              file_extension: 'pdf',
              signatures: [{ signing_certificate: folder.certificate_id, page: String(page), x: String(folder.x), y: String(folder.y), size: folder.size }],
            },
          ],
          send: false,
        });
        if (!transition(store, row.id, ['queued'], 'signing', { request_id: full.request.id }, now())) throw new Error('ledger row moved under us');
        return full.request.id;
      });
      requests.send(folder.environment, requestId);
      return true;
    } catch (err) {
      if (isSelloError(err) && err.code === 'validation_failed') {
        const fields = (err.details as { fields?: Record<string, string[]> }).fields ?? { documento: [err.message] };
        return failureFromFields(fields);
      }
      if (isSelloError(err)) return { code: err.code, detail: err.message };
      throw err;
    }
  }

  /** From `signing` / `waiting_pin`: runs the request's pass, then finishes, waits or fails. */
  async function resume(folder: FolderRow, row: LedgerRow): Promise<Outcome> {
    if (row.state === 'done' || row.state === 'failed' || !row.request_id) return row.state === 'done' ? 'done' : 'failed';
    const requestId = row.request_id;
    let full = requests.get(folder.environment, requestId);
    if (full.request.status === 'draft') full = requests.send(folder.environment, requestId);
    if (full.request.status === 'processing') {
      await worker.run(requestId);
      full = requests.get(folder.environment, requestId);
    }
    if (full.request.status === 'signed') return finish(folder, row, full.documents[0]!.id);
    const signature = full.signatures[0]!;
    if (signature.state === 'rejected') return fail(folder, row.name, { code: 'rejected', detail: 'La firma fue rechazada en la cola de firmas.' }, row);
    const cert = signature.last_error_code;
    if (cert === null || cert === 'pin_incorrect' || cert === 'pin_required') {
      // A token certificate: waits for a person's approval with the PIN (CONTRACT §11); a wrong
      // PIN is never retried by itself, the person approves again.
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

  async function finish(folder: FolderRow, row: LedgerRow, documentId: string): Promise<Outcome> {
    const source = path.join(folder.path, row.name);
    let outputName = row.output_name;
    if (!outputName) {
      outputName = await pickName(folder.output_dir, row.name);
      update(store, row.id, { output_name: outputName }, now());
    }
    const target = path.join(folder.output_dir, outputName);
    try {
      const sourceThere = await fs.access(source).then(() => true, () => false);
      const outputThere = await fs.access(target).then(() => true, () => false);
      if (!(outputThere && !sourceThere)) {
        const signed = requests.file(folder.environment, row.request_id!, documentId, 'signed');
        if (!signed) throw new Error(`signed bytes missing for request ${row.request_id}`);
        await writeFileAtomic(target, [signed]);
        await syncDir(folder.output_dir);
      }
    } finally {
      reserved.delete(target);
    }
    // Only now, the signed copy durable, the original leaves the folder (CONTRACT §13).
    let moved: string | null = null;
    try {
      moved = await moveInto(folder, source, folder.originals_dir, row.name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // moved by a previous process before it stopped
    }
    transition(store, row.id, ['signing', 'waiting_pin'], 'done', moved ? { moved_name: moved } : {}, now());
    return 'done';
  }

  return { handle, resume };
}
