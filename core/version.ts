import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from './paths.js';

/** Sello's version, from package.json (sent in `User-Agent: Sello/<version>`). */
export const version: string = (
  JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }
).version;
