/**
 * DNS-rebinding defence (CONTRACT §2): a page on evil.example that resolves to
 * 127.0.0.1 still sends `Host: evil.example`, which is refused with 421
 * (`misdirected_request`) by the caller of this check.
 *
 * The header is parsed strictly, as RFC 9110 §7.2 defines it (`uri-host [":" port]`, the
 * host of RFC 3986 §3.2.2), and nothing else passes: no userinfo (`localhost:80@evil.example`
 * once passed as `localhost`, and ended up in response links as `http://localhost:80@evil.example/…`,
 * a link to evil.example), no path, no empty or non-numeric port, a port only when it is the one
 * the request came in on. The host is compared exactly, ignoring case (host names are
 * case-insensitive), to the configured names. Response links are built from the checked value
 * (`requestOrigin`), never from the raw header.
 */
import { isIPv6 } from 'node:net';
import type { AppContext } from '../context.js';

/** A Host header that passed: `authority` is what links use (`localhost:8437`, lower case). */
export interface CheckedHost {
  hostname: string;
  port: number | undefined;
  authority: string;
}

/** A DNS name or an IPv4 address: letters, digits, hyphens and dots (RFC 1123), nothing a configured name could not hold. */
const NAME = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;
const PORT = /^[0-9]{1,5}$/;
const IPV6_CHARACTERS = /^[0-9a-f:.]+$/;

/**
 * Splits a Host header into host and port, or `undefined` when it is not `host [":" port]`.
 *
 * @example
 *   parseHost('LocalHost:8437')          // { hostname: 'localhost', port: 8437 }
 *   parseHost('[::1]')                   // { hostname: '[::1]', port: undefined }
 *   parseHost('localhost:80@evil.com')   // undefined: userinfo
 *   parseHost('127.0.0.1:8437/evil')     // undefined: a path
 */
export function parseHost(header: string): { hostname: string; port: number | undefined } | undefined {
  const value = header.toLowerCase();
  let hostname: string;
  let rest: string;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    const address = value.slice(1, end);
    // An IPv6 address, nothing else: no zone id (`%25eth0`, which isIPv6 accepts), no IPvFuture.
    if (end < 0 || !IPV6_CHARACTERS.test(address) || !isIPv6(address)) return undefined;
    hostname = value.slice(0, end + 1);
    rest = value.slice(end + 1);
  } else {
    const colon = value.indexOf(':');
    hostname = colon < 0 ? value : value.slice(0, colon);
    rest = colon < 0 ? '' : value.slice(colon);
    if (!NAME.test(hostname) || hostname.includes('..')) return undefined;
  }
  if (rest === '') return { hostname, port: undefined };
  const port = rest.slice(1);
  if (!rest.startsWith(':') || !PORT.test(port)) return undefined;
  const number = Number(port);
  return number >= 1 && number <= 65_535 ? { hostname, port: number } : undefined;
}

/**
 * The checker for this agent's names (`127.0.0.1`, `localhost`, `[::1]` and `extraNames`):
 * given the Host header and the port the request came in on, the checked host, or
 * `undefined` for a 421. `extraNames` may be a function, for names that change while the agent
 * runs (a LAN listener's certificate made again for a new address); it is called per request and
 * the set is rebuilt only when it returns a different array.
 */
export function hostChecker(
  extraNames: readonly string[] | (() => readonly string[]),
): (hostHeader: string | undefined, localPort: number | undefined) => CheckedHost | undefined {
  const current = typeof extraNames === 'function' ? extraNames : () => extraNames;
  let names: readonly string[] | undefined;
  let allowed = new Set<string>();
  return (hostHeader, localPort) => {
    if (hostHeader === undefined) return undefined;
    const parsed = parseHost(hostHeader);
    const extra = current();
    if (extra !== names) {
      names = extra;
      allowed = new Set(['127.0.0.1', 'localhost', '[::1]', ...extra.map((n) => n.toLowerCase())]);
    }
    if (!parsed || !allowed.has(parsed.hostname)) return undefined;
    if (parsed.port !== undefined && parsed.port !== localPort) return undefined;
    return { ...parsed, authority: parsed.port === undefined ? parsed.hostname : `${parsed.hostname}:${parsed.port}` };
  };
}

/** `http://localhost:8437`: the origin of the request, from its checked Host, for links in responses. */
export function requestOrigin(ctx: AppContext): string {
  const origin = ctx.state.origin;
  if (origin === undefined) throw new Error('requestOrigin before the Host check');
  return origin;
}
