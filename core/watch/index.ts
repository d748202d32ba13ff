/**
 * Watched folders (CONTRACT §13): PDFs dropped in a folder are signed once their writing has
 * finished, written to `firmados/`, the original moved to `originales/`, failures to `errores/`
 * with `NAME.error.txt`. Each file is a signing request (CONTRACT §11) and a ledger row.
 *
 * @example
 *   const folder = addFolder(store, { folder: '/srv/facturas', certificate: certId, page: 'last' });
 *   const watcher = createFolderWatcher({ store, requests, worker, log, settings: watchSettings() });
 *   await watcher.start(); // initial scan: what was dropped while Sello was stopped
 *   await watcher.stop();
 */
export { createFolderWatcher, type FolderWatcher, type FolderWatcherDeps } from './watcher.js';
export { addFolder, listFolders, findFolder, removeFolder, toFolderRecord, defaultPosition, folderInputSchema, type FolderRow, type FolderInput } from './folders.js';
export { countsByFolder } from './ledger.js';
export { watchSettings, type WatchSettings } from './settings.js';
export { isDocumentName, freeName } from './file-names.js';
export { errorText, failureFromFields, type FileFailure } from './error-text.js';
