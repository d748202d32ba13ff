import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001-init.js';
import * as m0002 from './0002-documents.js';
import * as m0003 from './0003-delivery.js';
import * as m0004 from './0004-certificates.js';
import * as m0005 from './0005-certificate-details.js';
import * as m0006 from './0006-signing-requests.js';
import * as m0007 from './0007-watched-folders.js';
import * as m0008 from './0008-p12-sealed.js';
import * as m0009 from './0009-signing-failures.js';
import * as m0010 from './0010-fiscal.js';
import * as m0011 from './0011-comprobante-links.js';
import * as m0012 from './0012-purchases.js';

/** Every migration, in order. Static, so the migrations ship inside any bundle. */
export const migrationProvider: MigrationProvider = {
  getMigrations: async (): Promise<Record<string, Migration>> => ({
    '0001-init': m0001,
    '0002-documents': m0002,
    '0003-delivery': m0003,
    '0004-certificates': m0004,
    '0005-certificate-details': m0005,
    '0006-signing-requests': m0006,
    '0007-watched-folders': m0007,
    '0008-p12-sealed': m0008,
    '0009-signing-failures': m0009,
    '0010-fiscal': m0010,
    '0011-comprobante-links': m0011,
    '0012-purchases': m0012,
  }),
};
