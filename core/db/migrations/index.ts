import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001-init.js';

/** Every migration, in order. Static, so the migrations ship inside any bundle. */
export const migrationProvider: MigrationProvider = {
  getMigrations: async (): Promise<Record<string, Migration>> => ({
    '0001-init': m0001,
  }),
};
