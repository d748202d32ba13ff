/**
 * Watched-folder profiles (CONTRACT §13), the owner of `watched_folders`: added only when
 * everything checks out (the folder exists and is writable, the certificate exists and can
 * sign, page/x/y/size are valid), so a bad profile stores nothing.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { assertUsableForSigning, findCertificateRow } from '../certificates/index.js';
import type { Store, WatchedFoldersTable } from '../db/index.js';
import { SelloError, isSelloError } from '../errors/index.js';
import { stampDimensions, type StampSize } from '../pdf/index.js';

export type FolderRow = WatchedFoldersTable;

/** The smallest page Sello plans a default stamp for: US Letter (612 × 792 pt); A4 is 595 × 842. */
const LETTER_HEIGHT = 792;
const MARGIN = 36;

/**
 * The default stamp spot: bottom-left, half an inch from the edges of a Letter page, so it
 * also fits A4 (CONTRACT §12: points from the top-left of the crop box).
 *
 * @example
 *   defaultPosition('s') // { x: 36, y: 606 }  (792 − 36 − 150)
 */
export function defaultPosition(size: StampSize): { x: number; y: number } {
  return { x: MARGIN, y: LETTER_HEIGHT - MARGIN - stampDimensions(size).height };
}

const coordinate = z.union([z.number(), z.string().regex(/^\d+(\.\d+)?$/, 'debe ser un número mayor o igual a 0').transform(Number)]).pipe(z.number().min(0, 'debe ser mayor o igual a 0').max(14_400));

/** What `POST /admin/api/folders` and `sello folders add` accept. */
export const folderInputSchema = z.strictObject({
  folder: z.string().min(1, 'indique la carpeta'),
  certificate: z.string().min(1, 'indique el certificado'),
  page: z
    .union([z.literal('last'), z.number().int().min(1), z.string().regex(/^[1-9]\d*$/, 'debe ser un número de página (1, 2, …) o last').transform(Number)])
    .optional(),
  x: coordinate.optional(),
  y: coordinate.optional(),
  size: z.enum(['s', 'm', 'l'], { error: 'debe ser s, m o l' }).optional(),
  output_folder: z.string().min(1).optional(),
  error_folder: z.string().min(1).optional(),
  originals_folder: z.string().min(1).optional(),
  poll: z.boolean().optional(),
});
export type FolderInput = z.input<typeof folderInputSchema>;

function invalid(field: string, message: string): SelloError {
  return new SelloError('validation_failed', { status: 400, detail: `${field}: ${message}`, fields: { [field]: [message] } });
}

function assertWritableDir(dir: string, field: string): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    throw invalid(field, `la carpeta ${dir} no existe`);
  }
  if (!st.isDirectory()) throw invalid(field, `${dir} no es una carpeta`);
  try {
    fs.accessSync(dir, fs.constants.W_OK | fs.constants.R_OK);
  } catch {
    throw invalid(field, `Sello no puede leer y escribir en ${dir}`);
  }
}

/** A subfolder given relative to the watched folder, or absolute; created when missing. */
function subfolder(root: string, value: string | undefined, fallback: string): string {
  return path.resolve(root, value ?? fallback);
}

/**
 * Checks `input` and stores the profile; throws `validation_failed` (field by field, Spanish)
 * and stores nothing when something is wrong.
 *
 * @example
 *   addFolder(store, { folder: '/srv/facturas', certificate: id, page: 'last' })
 *   // → { id, path: '/srv/facturas', page: 'last', x: 36, y: 606, size: 's', output_dir: '/srv/facturas/firmados', … }
 */
export function addFolder(store: Store, raw: unknown, now = new Date()): FolderRow {
  const parsed = folderInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalid(issue.path.join('.') || 'body', issue.message);
  }
  const input = parsed.data;
  const root = path.resolve(input.folder);
  assertWritableDir(root, 'folder');
  const cert = findCertificateRow(store, input.certificate);
  if (!cert) throw invalid('certificate', `no existe el certificado ${input.certificate} (véalos con sello certs list)`);
  try {
    assertUsableForSigning(cert, now);
  } catch (err) {
    if (isSelloError(err)) throw invalid('certificate', err.message);
    throw err;
  }
  const size = input.size ?? 's';
  const position = defaultPosition(size);
  const x = input.x ?? position.x;
  const y = input.y ?? position.y;
  const dims = stampDimensions(size);
  // The largest page this can be checked against without a document is unknown; refuse what fits no common page.
  if (x + dims.width > 14_400) throw invalid('x', 'el sello quedaría fuera de cualquier página');
  if (y + dims.height > 14_400) throw invalid('y', 'el sello quedaría fuera de cualquier página');
  const dirs = {
    output_dir: subfolder(root, input.output_folder, 'firmados'),
    error_dir: subfolder(root, input.error_folder, 'errores'),
    originals_dir: subfolder(root, input.originals_folder, 'originales'),
  };
  if (new Set([root, ...Object.values(dirs)]).size !== 4) throw invalid('output_folder', 'las carpetas de firmados, errores y originales deben ser distintas entre sí y de la carpeta vigilada');
  if (store.first(store.db.selectFrom('watched_folders').select('id').where('path', '=', root))) throw invalid('folder', `la carpeta ${root} ya está vigilada`);
  for (const [field, dir] of Object.entries(dirs)) {
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch {
      throw invalid(field.replace('_dir', '_folder'), `no se pudo crear la carpeta ${dir}`);
    }
    assertWritableDir(dir, field.replace('_dir', '_folder'));
  }
  const row: FolderRow = {
    id: crypto.randomUUID(),
    path: root,
    certificate_id: cert.id,
    environment: cert.environment,
    page: String(input.page ?? 1),
    x,
    y,
    size,
    ...dirs,
    poll: input.poll ? 1 : 0,
    created_at: now.toISOString(),
  };
  store.run(store.db.insertInto('watched_folders').values(row));
  return row;
}

export function listFolders(store: Store): FolderRow[] {
  return store.all(store.db.selectFrom('watched_folders').selectAll().orderBy('created_at').orderBy('id'));
}

export function findFolder(store: Store, id: string): FolderRow | undefined {
  return store.first(store.db.selectFrom('watched_folders').selectAll().where('id', '=', id));
}

/** Stops watching: the profile and its ledger go; the files and subfolders stay as they are. */
export function removeFolder(store: Store, id: string): FolderRow {
  const row = findFolder(store, id);
  if (!row) throw new SelloError('not_found', { detail: `No existe la carpeta vigilada ${id}.`, detailEn: `There is no watched folder ${id}.` });
  store.transaction(() => {
    store.run(store.db.deleteFrom('watch_ledger').where('folder_id', '=', id));
    store.run(store.db.deleteFrom('watched_folders').where('id', '=', id));
  });
  return row;
}

/** The JSON record of a folder (admin API and `--json`), with what waits in it. */
export function toFolderRecord(row: FolderRow, counts: Partial<Record<string, number>> = {}): Record<string, unknown> {
  return {
    id: row.id,
    folder: row.path,
    certificate: row.certificate_id,
    environment: row.environment,
    page: row.page === 'last' ? 'last' : Number(row.page),
    x: row.x,
    y: row.y,
    size: row.size,
    output_folder: row.output_dir,
    error_folder: row.error_dir,
    originals_folder: row.originals_dir,
    poll: row.poll === 1,
    created_at: row.created_at,
    pending: {
      queued: (counts.queued ?? 0) + (counts.signing ?? 0),
      waiting_pin: counts.waiting_pin ?? 0,
    },
    done: counts.done ?? 0,
    failed: counts.failed ?? 0,
  };
}
