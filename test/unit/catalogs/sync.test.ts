/**
 * The catalog tables are refreshed from the code at every start (core/catalogs): rewritten when
 * they differ from it, only read when they hold it already (issue 17: no write at a restart).
 */
import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { identificationTypes, syncCatalogs, taxTypes } from '../../../core/catalogs/index.js';
import { openStore } from '../../../core/db/index.js';
import { tempDir } from '../../helpers/agent.js';

const dir = tempDir('sello-catalogs-');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('syncCatalogs', () => {
  it('writes the lists into a new store, then only reads them, and puts back what was changed', async () => {
    const file = path.join(dir, 'sello.db');
    const store = await openStore(file);
    const observer = new BetterSqlite3(file);
    const version = () => observer.pragma('data_version', { simple: true });
    const tables = () => ({
      identification: store.sqlite.prepare('select * from identification_types order by rowid').all(),
      tax: store.sqlite.prepare('select * from tax_types order by rowid').all(),
    });
    const wanted = { identification: identificationTypes, tax: taxTypes.map(({ code, authority_code, country, name, group }) => ({ code, authority_code, country, name, group })) };
    try {
      let v = version();
      syncCatalogs(store);
      expect(tables()).toEqual(wanted);
      expect(version()).not.toBe(v);

      v = version();
      syncCatalogs(store);
      expect(version()).toBe(v);

      store.sqlite.prepare("update tax_types set name = 'otro' where code = 'ec-iva-15'").run();
      store.sqlite.prepare("delete from identification_types where code = 'pe-dni'").run();
      syncCatalogs(store);
      expect(tables()).toEqual(wanted);
    } finally {
      observer.close();
      await store.close();
    }
  });
});
