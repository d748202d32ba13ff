/**
 * Watched folders in the admin API (CONTRACT §13, §14): list with what waits in each
 * (queued, waiting for a PIN), add (checked: folder writable, certificate usable, page/x/y/size),
 * remove. Changes reach the running watcher at once through `reload`.
 */
import { z } from 'zod';
import type { Store } from '../../db/index.js';
import { addFolder, countsByFolder, listFolders, removeFolder, toFolderRecord, type FolderWatcher } from '../../watch/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';

export function folderAdminRoutes(store: Store, watcher: Pick<FolderWatcher, 'reload'>): Route[] {
  const admin = { surface: 'admin', auth: 'admin' } as const;
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/folders',
      handler(ctx) {
        const counts = countsByFolder(store);
        ctx.body = { data: listFolders(store).map((f) => toFolderRecord(f, counts.get(f.id))) };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/folders',
      async handler(ctx) {
        const { raw } = await readFiscalBody(ctx, z.unknown(), 16 * 1024);
        const row = addFolder(store, raw);
        await watcher.reload();
        ctx.status = 201;
        ctx.body = { data: toFolderRecord(row) };
      },
    },
    {
      ...admin,
      method: 'DELETE',
      path: '/admin/api/folders/:id',
      async handler(ctx) {
        const row = removeFolder(store, ctx.state.params.id ?? '');
        await watcher.reload();
        ctx.body = { data: toFolderRecord(row) };
      },
    },
  ];
}
