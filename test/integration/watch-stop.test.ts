/**
 * A graceful stop that comes while the folder watcher is still opening a folder's watch (a reload
 * after `POST /admin/api/folders`, or the periodic one): the watch opened after the stop must be
 * closed, or it keeps `sello serve` alive after SIGTERM — seen in the faults suite, where a stopped
 * agent stayed up with one FSWatcher and nothing else. The opening of a polled watch is held here
 * until the stop has run, so the race is taken every time.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { registerTokenCertificate } from '../../core/certificates/index.js';
import { openStore, type Store } from '../../core/db/index.js';
import { createLogger } from '../../core/log/index.js';
import type { SigningRequests, SigningWorker } from '../../core/signing/requests/index.js';
import type * as DirWatchModule from '../../core/watch/dir-watch.js';
import type { DirWatch } from '../../core/watch/dir-watch.js';
import { addFolder, createFolderWatcher, watchSettings } from '../../core/watch/index.js';
import { tempDir } from '../helpers/agent.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

const gate = vi.hoisted(() => {
  let open: () => void = () => undefined;
  let reached: () => void = () => undefined;
  const state = {
    held: new Promise<void>((r) => (open = r)),
    /** Resolves when the start has reached the polled watch's opening. */
    entered: new Promise<void>((r) => (reached = r)),
    enter: () => reached(),
    opened: [] as Array<{ closed: boolean }>,
    release: () => open(),
  };
  return state;
});

vi.mock('../../core/watch/dir-watch.js', async (importOriginal) => {
  const real = await importOriginal<typeof DirWatchModule>();
  return {
    ...real,
    async watchPolledDir(...args: Parameters<typeof real.watchPolledDir>): Promise<DirWatch> {
      gate.enter();
      await gate.held;
      const watch = await real.watchPolledDir(...args);
      const seen = { closed: false };
      gate.opened.push(seen);
      return {
        close: () => {
          seen.closed = true;
          return watch.close();
        },
      };
    },
  };
});

let pki: TestPki;
let store: Store;
let work: string;

beforeAll(async () => {
  pki = await createTestPki();
  work = tempDir('sello-watch-stop-');
  store = await openStore(path.join(work, 'sello.db'));
  const certificate = registerTokenCertificate(store, {
    modulePath: '/nonexistent/pkcs11.so',
    tokenSerial: 'serie',
    tokenLabel: 'token',
    keyId: Buffer.from('01', 'hex'),
    certificate: pki.leaf.certificate,
    chain: pki.leaf.chain,
  });
  const folder = path.join(work, 'red');
  fs.mkdirSync(folder);
  addFolder(store, { folder, certificate: certificate.id, poll: true });
});

afterAll(async () => {
  await store?.close();
  await pki?.cleanup();
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

describe('the folder watcher stopped while it opens a watch', () => {
  it('closes the watch opened after the stop', async () => {
    const watcher = createFolderWatcher({
      store,
      requests: {} as SigningRequests,
      worker: {} as Pick<SigningWorker, 'run'>,
      log: createLogger('silent'),
      settings: watchSettings({}),
    });
    const starting = watcher.start();
    // Let the start reach the polled watch's opening (held), stop meanwhile, then let it open.
    await gate.entered;
    const stopping = watcher.stop();
    gate.release();
    await Promise.all([starting, stopping]);
    expect(gate.opened).toHaveLength(1);
    expect(gate.opened[0]!.closed).toBe(true);
  });
});
