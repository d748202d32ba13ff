/**
 * Parsed certificates, kept by content. Parsing a certificate and importing its key costs
 * node:crypto a good part of a millisecond, more than checking an RSA signature; an office signs
 * with the same few certificates all day, and the read-back of every signature (read-back.ts)
 * must stay cheap. X509Certificate objects are immutable, so sharing them is safe.
 */
import { X509Certificate, createHash } from 'node:crypto';

const MAX_ENTRIES = 64;
const cache = new Map<string, X509Certificate>();

/** The certificate `der` parsed, or undefined when it is not one. */
export function parseCertificate(der: Uint8Array): X509Certificate | undefined {
  const key = createHash('sha256').update(der).digest('base64');
  const hit = cache.get(key);
  if (hit) return hit;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch {
    return undefined;
  }
  // Oldest out first: a bounded cache whatever the files hold.
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, cert);
  return cert;
}
