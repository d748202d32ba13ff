import { parseArgs, type ParseArgsConfig } from 'node:util';
import { openDataStore, startAgent } from './app.js';
import { createBook, createKey, findBook, listBooks, listKeys, revokeKey, scopes, type Scope } from './auth/index.js';
import { ConfigError, loadConfig } from './config.js';
import { DataDirLockedError } from './data-dir.js';
import { isSelloError } from './errors/index.js';
import { version } from './version.js';

/** Wrong use of the command line: exit 2 with one line on stderr. */
class UsageError extends Error {}

interface Io {
  out(line: string): void;
  err(line: string): void;
}

const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

const common = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

const usage = `Sello ${version}: documentos tributarios electrónicos y firma de PDF, en su computador.

Uso: sello <comando> [opciones]

  serve [--host H] [--port P]                 inicia el servicio sin ventana (Ctrl+C lo detiene)
  books create SLUG --tenant T [--name N] [--no-accounting-api]
  books list
  keys create --family a|b --env test|live [--name N] [--book SLUG] [--scope accounting,signing]
  keys list [--book SLUG]
  keys revoke ID

Opciones comunes: --data-dir DIR (o SELLO_HOME), --json (una línea JSON por registro).`;

function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...common, ...options }, allowPositionals: positionals > 0, strict: true });
  } catch (err) {
    throw new UsageError(translateParseError((err as Error).message));
  }
  if (parsed.positionals.length > positionals) {
    throw new UsageError(`Sobran argumentos: ${parsed.positionals.slice(positionals).join(' ')}`);
  }
  return parsed;
}

function translateParseError(message: string): string {
  const unknown = /Unknown option '([^']+)'/.exec(message);
  if (unknown) return `Opción desconocida: ${unknown[1]}. Vea sello --help.`;
  const missing = /Option '([^']+)' argument missing/.exec(message);
  if (missing) return `Falta el valor de la opción ${missing[1]}.`;
  return message;
}

function dataDirOf(values: { 'data-dir'?: string | undefined }): string {
  return loadConfig(values['data-dir'] ? { dataDir: values['data-dir'] } : {}).dataDir;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], option: string): T {
  if (value === undefined) throw new UsageError(`Falta ${option} (${allowed.join(' o ')}).`);
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${option} debe ser ${allowed.join(' o ')}; se recibió "${value}".`);
  return value as T;
}

async function serve(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, { host: { type: 'string' }, port: { type: 'string' } });
  if (values.help) return help(io);
  let port: number | undefined;
  if (values.port !== undefined) {
    port = Number(values.port);
    if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port debe ser un número entre 0 y 65535; se recibió "${values.port}".`);
  }
  const config = loadConfig({
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    ...(values.host ? { host: values.host } : {}),
    ...(port !== undefined ? { port } : {}),
  });
  const agent = await startAgent(config);
  if (values.json) {
    io.out(JSON.stringify({ base_url: agent.baseUrl, admin_url: agent.adminUrl }));
  } else {
    io.out(`Sello escucha en ${agent.baseUrl}`);
    io.out(`Administración (enlace de un solo uso): ${agent.adminUrl}`);
    io.out('Ctrl+C para detener.');
  }
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await agent.stop();
  return 0;
}

async function books(args: string[], io: Io): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === 'create') {
    const { values, positionals } = parse(rest, { tenant: { type: 'string' }, name: { type: 'string' }, 'no-accounting-api': { type: 'boolean', default: false } }, 1);
    const slug = positionals[0];
    if (!slug) throw new UsageError('Falta el identificador del libro: sello books create SLUG --tenant T');
    if (!values.tenant) throw new UsageError('Falta --tenant: la organización dueña del libro.');
    const store = await openDataStore(dataDirOf(values));
    try {
      const book = createBook(store, {
        slug,
        tenantSlug: values.tenant,
        ...(values.name ? { name: values.name } : {}),
        accountingApi: !values['no-accounting-api'],
      });
      io.out(values.json ? JSON.stringify({ id: book.id, slug: book.slug }) : `Libro ${book.slug} creado (id ${book.id}).`);
    } finally {
      await store.close();
    }
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, {});
    const store = await openDataStore(dataDirOf(values));
    try {
      const all = listBooks(store);
      for (const b of all) {
        io.out(
          values.json
            ? JSON.stringify({ id: b.id, slug: b.slug, tenant_slug: b.tenantSlug, name: b.name, accounting_api: b.accountingApi, created_at: b.createdAt })
            : `${b.slug}\t${b.tenantSlug}\t${b.name}\t${b.accountingApi ? 'accounting_api' : 'sin accounting_api'}\t${b.id}`,
        );
      }
      if (!values.json && all.length === 0) io.out('No hay libros. Cree uno con: sello books create SLUG --tenant T');
    } finally {
      await store.close();
    }
    return 0;
  }
  throw new UsageError('Use: sello books create SLUG --tenant T | sello books list');
}

async function keys(args: string[], io: Io): Promise<number> {
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
    const store = await openDataStore(dataDirOf(values));
    try {
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
    } finally {
      await store.close();
    }
    return 0;
  }
  if (sub === 'list') {
    const { values } = parse(rest, { book: { type: 'string' } });
    const store = await openDataStore(dataDirOf(values));
    try {
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
    } finally {
      await store.close();
    }
    return 0;
  }
  if (sub === 'revoke') {
    const { values, positionals } = parse(rest, {}, 1);
    const id = positionals[0];
    if (!id) throw new UsageError('Falta el id de la clave: sello keys revoke ID');
    const store = await openDataStore(dataDirOf(values));
    try {
      const k = revokeKey(store, id);
      io.out(values.json ? JSON.stringify({ id: k.id, revoked_at: k.revokedAt }) : `Clave ${k.id} revocada.`);
    } finally {
      await store.close();
    }
    return 0;
  }
  throw new UsageError('Use: sello keys create … | sello keys list | sello keys revoke ID');
}

function help(io: Io): number {
  io.out(usage);
  return 0;
}

const commands: Record<string, (args: string[], io: Io) => Promise<number>> = { serve, books, keys };

/** Runs `sello ARGS…`; returns the exit code. Never throws. */
export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help') return help(io);
    if (command === '--version' || command === '-v') {
      io.out(version);
      return 0;
    }
    const run = commands[command];
    if (!run) throw new UsageError(`Comando desconocido: ${command}. Vea sello --help.`);
    return await run(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`sello: ${err.message}`);
      return 2;
    }
    if (isSelloError(err) || err instanceof ConfigError || err instanceof DataDirLockedError) {
      io.err(`sello: ${err.message}`);
      return 1;
    }
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') {
      io.err('sello: el puerto ya está en uso. Elija otro con --port (0 = uno libre).');
      return 1;
    }
    if (e.code === 'EACCES' || e.code === 'EROFS') {
      io.err(`sello: sin permiso para escribir en ${e.path ?? 'la carpeta de datos'}.`);
      return 1;
    }
    io.err(`sello: ${e.message ?? String(err)}`);
    return 1;
  }
}
