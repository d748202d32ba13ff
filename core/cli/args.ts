import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig } from '../config.js';

/** Wrong use of the command line: exit 2 with one line on stderr. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export interface Io {
  out(line: string): void;
  err(line: string): void;
  /** All of standard input (for --pin-stdin, --password-stdin). */
  readStdin(): Promise<string>;
  /** Asks at the terminal without echo; undefined when there is no terminal. */
  askHidden(prompt: string): Promise<string | undefined>;
}

export const commonOptions = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

export function parse<O extends NonNullable<ParseArgsConfig['options']>>(args: string[], options: O, positionals = 0) {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...commonOptions, ...options }, allowPositionals: positionals > 0, strict: true });
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
  const unexpected = /Unexpected argument '([^']+)'/.exec(message);
  if (unexpected) return `Argumento inesperado: ${unexpected[1]}. Vea sello --help.`;
  return message;
}

export function dataDirOf(values: { 'data-dir'?: string | undefined }): string {
  return loadConfig(values['data-dir'] ? { dataDir: values['data-dir'] } : {}).dataDir;
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], option: string): T {
  if (value === undefined) throw new UsageError(`Falta ${option} (${allowed.join(' o ')}).`);
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${option} debe ser ${allowed.join(' o ')}; se recibió "${value}".`);
  return value as T;
}
