import { readFileSync } from 'node:fs';

/** Sello's version, from package.json (sent in `User-Agent: Sello/<version>`). */
export const version: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
