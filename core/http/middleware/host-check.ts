/**
 * DNS-rebinding defence (CONTRACT §2): a page on evil.example that resolves to
 * 127.0.0.1 still sends `Host: evil.example`, which is refused with 421
 * (`misdirected_request`) by the caller of this check.
 */
export function hostAllowed(extraNames: readonly string[]): (hostHeader: string) => boolean {
  const allowed = new Set(['127.0.0.1', 'localhost', '[::1]', ...extraNames.map((n) => n.toLowerCase())]);
  return (hostHeader) => {
    const host = hostName(hostHeader);
    return host !== undefined && allowed.has(host);
  };
}

/** `127.0.0.1:8437` → `127.0.0.1`; `[::1]:8437` → `[::1]`. */
export function hostName(header: string): string | undefined {
  const value = header.trim().toLowerCase();
  if (!value) return undefined;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end > 0 ? value.slice(0, end + 1) : undefined;
  }
  const colon = value.indexOf(':');
  return colon >= 0 ? value.slice(0, colon) : value;
}
