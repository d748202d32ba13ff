/**
 * `sello folders add DIR --cert ID [--page N|last] [--x X] [--y Y] [--size s|m|l] [--poll]`,
 * `folders list`, `folders remove ID` (CONTRACT §1, §13). The profile goes to the store; a
 * running `sello serve` picks it up within a second.
 */
import { withDataStore } from '../data-store.js';
import { addFolder, countsByFolder, listFolders, removeFolder, toFolderRecord, type FolderRow } from '../watch/index.js';
import { dataDirOf, parse, UsageError, type Io } from './args.js';

function line(f: FolderRow, counts: Record<string, unknown> = {}): string {
  const pending = (counts.pending ?? {}) as { queued?: number; waiting_pin?: number };
  const waiting = pending.queued || pending.waiting_pin ? `, en espera ${pending.queued ?? 0}, esperan PIN ${pending.waiting_pin ?? 0}` : '';
  return `${f.id}\t${f.path}\tcertificado ${f.certificate_id}\tpágina ${f.page}, x ${f.x}, y ${f.y}, tamaño ${f.size}${f.poll ? ', sondeo' : ''}${waiting}`;
}

export async function folders(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'add') {
    const { values, positionals } = parse(
      rest,
      {
        cert: { type: 'string' },
        page: { type: 'string' },
        x: { type: 'string' },
        y: { type: 'string' },
        size: { type: 'string' },
        poll: { type: 'boolean', default: false },
      },
      1,
    );
    const dir = positionals[0];
    if (!dir) throw new UsageError('Falta la carpeta: sello folders add CARPETA --cert ID');
    if (!values.cert) throw new UsageError('Falta --cert ID (véalos con sello certs list o sello tokens).');
    await withDataStore(dataDirOf(values), (store) => {
      const row = addFolder(store, {
        folder: dir,
        certificate: values.cert,
        ...(values.page !== undefined ? { page: values.page } : {}),
        ...(values.x !== undefined ? { x: values.x } : {}),
        ...(values.y !== undefined ? { y: values.y } : {}),
        ...(values.size !== undefined ? { size: values.size } : {}),
        poll: values.poll,
      });
      io.out(values.json ? JSON.stringify(toFolderRecord(row)) : `Carpeta vigilada: ${line(row)}\nFirmados en ${row.output_dir}, errores en ${row.error_dir}, originales en ${row.originals_dir}.`);
    });
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    await withDataStore(dataDirOf(values), (store) => {
      const counts = countsByFolder(store);
      const all = listFolders(store);
      for (const f of all) {
        const record = toFolderRecord(f, counts.get(f.id));
        io.out(values.json ? JSON.stringify(record) : line(f, record));
      }
      if (!values.json && all.length === 0) io.out('No hay carpetas vigiladas. Agregue una con: sello folders add CARPETA --cert ID');
    });
    return 0;
  }
  if (sub === 'remove') {
    const { values, positionals } = parse(rest, {}, 1);
    const id = positionals[0];
    if (!id) throw new UsageError('Falta el id: sello folders remove ID (véalos con sello folders list)');
    await withDataStore(dataDirOf(values), (store) => {
      const row = removeFolder(store, id);
      io.out(values.json ? JSON.stringify(toFolderRecord(row)) : `Ya no se vigila ${row.path} (los archivos quedan donde están).`);
    });
    return 0;
  }
  throw new UsageError('Use: sello folders add CARPETA --cert ID [--page N|last] [--x X] [--y Y] [--size s|m|l] [--poll] | sello folders list | sello folders remove ID');
}
