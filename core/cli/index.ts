import readline from 'node:readline';
import { Writable } from 'node:stream';
import { ConfigError } from '../config.js';
import { DataDirLockedError } from '../data-dir.js';
import { isSelloError } from '../errors/index.js';
import { version } from '../version.js';
import { UsageError, type Io } from './args.js';
import { debugging } from './debug.js';

export type { Io } from './args.js';

const usage = `Sello ${version}: documentos tributarios electrónicos y firma de PDF, en su computador.

Uso: sello <comando> [opciones]

  serve [--host H] [--port P]                 inicia el servicio sin ventana (Ctrl+C lo detiene); un --host
                                              fuera de 127.0.0.1 (0.0.0.0, una IP de la red) sirve HTTPS
  books create SLUG --tenant T [--name N] [--no-accounting-api]
  books list
  keys create --family a|b --env test|live [--name N] [--book SLUG] [--scope accounting,signing]
  keys list [--book SLUG]
  keys revoke ID
  tokens [--module RUTA]                      controladores PKCS#11, tokens y sus certificados
  certs import-p12 ARCHIVO [--password-stdin]
  certs list
  certs issue-test --type T --validity D --principal ARCHIVO.json [--organization ARCHIVO.json]
  sign ARCHIVO.pdf --cert ID --page N|last --x X --y Y [--size s|m|l] [--out SALIDA.pdf] [--pin-stdin]
  verify ARCHIVO.pdf [--trust RAICES.pem]     cada firma: íntegra o no, cambios posteriores, de confianza o no
  folders add CARPETA --cert ID [--page N|last] [--x X] [--y Y] [--size s|m|l] [--poll]
  folders list                                carpetas vigiladas y archivos en espera
  folders remove ID
  xml sign ARCHIVO.xml --cert ID [--out SALIDA.xml] [--sha256] [--pin-stdin]
                                              firma un comprobante: XAdES-BES del SRI, o XMLDSig
                                              en UBLExtensions si es un UBL 2.1 (SUNAT)
  xml verify ARCHIVO.xml                      su firma (SRI o SUNAT): válida o no, y por qué

Opciones comunes: --data-dir DIR (o SELLO_HOME), --json (una línea JSON por registro).`;

type Command = (args: string[], io: Io) => Promise<number>;

/**
 * Each command's module is loaded when that command runs: `sello keys list` need not load the
 * HTTP server, the PDF signer and the XML libraries (tsx compiles every module it loads, so the
 * whole graph cost seconds at each start).
 */
const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serve,
  books: async () => (await import('./books-keys.js')).books,
  keys: async () => (await import('./books-keys.js')).keys,
  tokens: async () => (await import('./signing.js')).tokens,
  certs: async () => (await import('./signing.js')).certs,
  sign: async () => (await import('./signing.js')).sign,
  verify: async () => (await import('./signing.js')).verify,
  folders: async () => (await import('./folders.js')).folders,
  xml: async () => (await import('./xml.js')).xml,
};

function askHidden(prompt: string): Promise<string | undefined> {
  if (!process.stdin.isTTY) return Promise.resolve(undefined);
  // Echo nothing of what is typed: a PIN or a password must not stay on the screen.
  let muted = false;
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = readline.createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(prompt, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
    muted = true;
  });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const processIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  readStdin,
  askHidden,
};

/** One line: a message that came with line breaks is joined. */
const oneLine = (text: string): string => text.replace(/\s*\n\s*/g, ' ');

/**
 * Runs `sello ARGS…`; returns the exit code. Never throws. Every error is one line on stderr:
 * usage (exit 2), a coded error as `CODE: mensaje`, a few known faults of the machine in plain
 * words, and anything else as `internal_error` (its stack only with SELLO_DEBUG=1).
 */
export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    if (!command || command === '--help' || command === '-h' || command === 'help' || args.includes('--help') || args.includes('-h')) {
      io.out(usage);
      return 0;
    }
    if (command === '--version' || command === '-v') {
      io.out(version);
      return 0;
    }
    const load = Object.hasOwn(commands, command) ? commands[command] : undefined;
    if (!load) throw new UsageError(`Comando desconocido: ${command}. Vea sello --help.`);
    return await (await load())(args, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`sello: ${err.message}`);
      return 2;
    }
    if (isSelloError(err)) {
      io.err(`sello: ${err.code}: ${oneLine(err.message)}`);
      return 1;
    }
    if (err instanceof ConfigError || err instanceof DataDirLockedError) {
      io.err(`sello: ${oneLine(err.message)}`);
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
    // Never a raw JavaScript message: what it says means nothing to the person at the terminal.
    io.err('sello: internal_error: Error interno de Sello. Vuelva a ejecutar el comando con SELLO_DEBUG=1 para ver el detalle técnico.');
    if (debugging()) io.err(err instanceof Error ? (err.stack ?? err.message) : String(err));
    return 1;
  }
}
