/**
 * What the CLI shows of what went wrong inside (docs/cli.md, «Errores»): a user sees one line,
 * a code and a Spanish message; with SELLO_DEBUG=1 the stack of an unexpected error and the
 * log lines of the command's PDF thread go to stderr too, for whoever diagnoses it.
 */
import { createLogger, type Logger } from '../log/index.js';

export function debugging(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.SELLO_DEBUG === '1';
}

/** The log of a command's internals: silent unless SELLO_DEBUG=1. */
export function debugLog(env: NodeJS.ProcessEnv = process.env): Logger {
  return createLogger(debugging(env) ? 'debug' : 'silent');
}
