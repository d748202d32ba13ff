import { withDataStore } from '../data-store.js';
import { createBook, createKey, findBook, listBooks, listKeys, revokeKey, scopes, type Scope } from '../auth/index.js';
import { dataDirOf, oneOf, parse, UsageError, type Io } from './args.js';

export async function books(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values, positionals } = parse(rest, { tenant: { type: 'string' }, name: { type: 'string' }, 'no-accounting-api': { type: 'boolean', default: false } }, 1);
    const slug = positionals[0];
    if (!slug) throw new UsageError('Falta el identificador del libro: sello books create SLUG --tenant T');
    const tenant = values.tenant;
    if (!tenant) throw new UsageError('Falta --tenant: la organización dueña del libro.');
    await withDataStore(dataDirOf(values), async (store) => {
      const book = createBook(store, {
        slug,
        tenantSlug: tenant,
        ...(values.name ? { name: values.name } : {}),
        accountingApi: !values['no-accounting-api'],
      });
      io.out(values.json ? JSON.stringify({ id: book.id, slug: book.slug }) : `Libro ${book.slug} creado (id ${book.id}).`);
    });
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    await withDataStore(dataDirOf(values), async (store) => {
      const all = listBooks(store);
      for (const b of all) {
        io.out(
          values.json
            ? JSON.stringify({ id: b.id, slug: b.slug, tenant_slug: b.tenantSlug, name: b.name, accounting_api: b.accountingApi, created_at: b.createdAt })
            : `${b.slug}\t${b.tenantSlug}\t${b.name}\t${b.accountingApi ? 'accounting_api' : 'sin accounting_api'}\t${b.id}`,
        );
      }
      if (!values.json && all.length === 0) io.out('No hay libros. Cree uno con: sello books create SLUG --tenant T');
    });
    return 0;
  }
  throw new UsageError('Use: sello books create SLUG --tenant T | sello books list');
}

export async function keys(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values } = parse(rest, {
      family: { type: 'string' },
      env: { type: 'string' },
      name: { type: 'string' },
      book: { type: 'string' },
      scope: { type: 'string' },
    });
    const family = oneOf(values.family, ['a', 'b'] as const, '--family');
    const environment = oneOf(values.env, ['test', 'live'] as const, '--env');
    let keyScopes: Scope[] | undefined;
    if (values.scope !== undefined) {
      if (family === 'a') throw new UsageError('--scope solo se aplica a claves de la familia B.');
      keyScopes = values.scope.split(',').map((s) => oneOf(s.trim(), scopes, '--scope'));
    }
    await withDataStore(dataDirOf(values), async (store) => {
      let bookId: string | undefined;
      if (values.book !== undefined) {
        const book = findBook(store, values.book);
        if (!book) throw new UsageError(`No existe el libro "${values.book}". Véalos con: sello books list`);
        bookId = book.id;
      }
      const { key, record } = createKey(store, {
        family,
        environment,
        ...(values.name ? { name: values.name } : {}),
        ...(bookId ? { bookId } : {}),
        ...(keyScopes ? { scopes: keyScopes } : {}),
      });
      if (values.json) io.out(JSON.stringify({ id: record.id, key }));
      else {
        io.out(key);
        io.err(`Clave ${record.id} creada. Guárdela ahora: no se volverá a mostrar.`);
      }
    });
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, { book: { type: 'string' } });
    await withDataStore(dataDirOf(values), async (store) => {
      let bookId: string | undefined;
      if (values.book !== undefined) {
        const book = findBook(store, values.book);
        if (!book) throw new UsageError(`No existe el libro "${values.book}".`);
        bookId = book.id;
      }
      for (const k of listKeys(store, bookId ? { bookId } : {})) {
        io.out(
          values.json
            ? JSON.stringify({ id: k.id, family: k.family, environment: k.environment, name: k.name, book_id: k.bookId, scopes: k.scopes, hint: k.hint, created_at: k.createdAt, revoked_at: k.revokedAt })
            : `${k.id}\t${k.family.toUpperCase()}\t${k.environment}\t${k.hint}\t${k.name ?? ''}\t${k.scopes.join(',')}\t${k.revokedAt ? `revocada ${k.revokedAt}` : 'activa'}`,
        );
      }
    });
    return 0;
  }
  if (sub === 'revoke') {
    const { values, positionals } = parse(rest, {}, 1);
    const id = positionals[0];
    if (!id) throw new UsageError('Falta el id de la clave: sello keys revoke ID');
    await withDataStore(dataDirOf(values), async (store) => {
      const k = revokeKey(store, id);
      io.out(values.json ? JSON.stringify({ id: k.id, revoked_at: k.revokedAt }) : `Clave ${k.id} revocada.`);
    });
    return 0;
  }
  throw new UsageError('Use: sello keys create … | sello keys list | sello keys revoke ID');
}
