// The module hooks of ./no-typescript.mjs (they run on a thread of their own).
import fs from 'node:fs';

let log = '';

export function initialize(data) {
  log = data?.log ?? '';
}

export async function resolve(specifier, context, next) {
  if (/^tsx(\/|$)/.test(specifier)) throw new Error(`no-typescript: ${specifier} imported at run time (from ${context.parentURL})`);
  const resolved = await next(specifier, context);
  if (log) fs.appendFileSync(log, `${resolved.url}\n`);
  if (resolved.url.startsWith('file:') && /\.[cm]?ts$/.test(new URL(resolved.url).pathname)) {
    throw new Error(`no-typescript: ${resolved.url} imported at run time (from ${context.parentURL})`);
  }
  return resolved;
}
