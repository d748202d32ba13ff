import type { LogLevel } from '../config.js';

/** Structured log lines (one JSON object per line) on a stream, stderr by default. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export type LogFields = Record<string, unknown>;

const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(line),
  bound: LogFields = {},
): Logger {
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields): void => {
    if (rank[lvl] < rank[level]) return;
    const entry = { time: new Date().toISOString(), level: lvl, msg, ...bound, ...fields };
    write(`${JSON.stringify(entry, errorReplacer)}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger(level, write, { ...bound, ...fields }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    return { name: value.name, message: value.message, stack: value.stack };
  }
  return value;
}
