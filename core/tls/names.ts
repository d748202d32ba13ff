/**
 * The names and addresses this machine answers to (CONTRACT §2): what a generated certificate
 * lists as subject alternative names, what the Host check accepts on a LAN listener, and whether
 * a `--host` is one of this machine's addresses at all.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import os from 'node:os';
import { ConfigError } from '../config.js';

/** DNS names and IP addresses (IPv6 compressed, lower case, no brackets, no zone), each sorted. */
export interface MachineNames {
  dns: string[];
  ips: string[];
}

/** RFC 1123 host names: what a dNSName SAN and the Host check both take. */
const DNS_NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** `[::]` → `::`: a `--host` may be written with the brackets of a URL. */
export function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export function isWildcardHost(host: string): boolean {
  const bare = bareHost(host);
  return bare === '0.0.0.0' || bare === '::' || bare === '0:0:0:0:0:0:0:0';
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms: traffic that never leaves the machine. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  const bare = bareHost(address).toLowerCase();
  if (bare === '::1') return true;
  const v4 = bare.startsWith('::ffff:') ? bare.slice(7) : bare;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** An IP address in its canonical text: `0:0:0:0:0:0:0:1` → `::1`, `FE80::A` → `fe80::a`, zone dropped. */
export function canonicalIp(ip: string): string {
  const bare = bareHost(ip).split('%')[0] ?? '';
  if (isIP(bare) === 6) return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  return bare;
}

/** How an address or name appears in a Host header: IPv6 in brackets. */
export function hostForm(nameOrIp: string): string {
  return isIP(nameOrIp) === 6 ? `[${nameOrIp}]` : nameOrIp;
}

/** Every address of this machine's interfaces, canonical. */
export function interfaceAddresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(os.networkInterfaces())) {
    for (const entry of list ?? []) out.push(canonicalIp(entry.address));
  }
  return out;
}

/**
 * The names a generated certificate carries: `localhost`, the machine's host name (and its
 * `.local` mDNS form when it has no domain), every address of every interface, 127.0.0.1 and
 * ::1, plus the extra Host names configured (`SELLO_HOST_NAMES`) and `--host` when it is a name.
 */
export function machineNames(extra: readonly string[], listenHost: string): MachineNames {
  const dns = new Set<string>(['localhost']);
  const ips = new Set<string>(['127.0.0.1', '::1', ...interfaceAddresses()]);
  const hostname = os.hostname().toLowerCase();
  if (DNS_NAME.test(hostname)) {
    dns.add(hostname);
    if (!hostname.includes('.')) dns.add(`${hostname}.local`);
  }
  for (const raw of [...extra, ...(isWildcardHost(listenHost) ? [] : [listenHost])]) {
    const value = bareHost(raw.trim().toLowerCase());
    if (isIP(value)) ips.add(canonicalIp(value));
    else if (DNS_NAME.test(value)) dns.add(value);
  }
  return { dns: [...dns].sort(), ips: [...ips].sort() };
}

export function sameNames(a: MachineNames, b: MachineNames): boolean {
  return a.dns.join(',') === b.dns.join(',') && a.ips.join(',') === b.ips.join(',');
}

/** The names as the Host check compares them: `localhost`, `10.0.0.5`, `[fe80::1]`. */
export function hostNamesOf(names: MachineNames): string[] {
  return [...names.dns, ...names.ips.map(hostForm)];
}

/**
 * Refuses, before anything is written, a `--host` that is not one of this machine's addresses
 * (the listen would fail with EADDRNOTAVAIL) or a name that resolves to none of them.
 */
export async function assertLocalHost(host: string): Promise<void> {
  const bare = bareHost(host);
  if (isWildcardHost(bare)) return;
  const local = new Set(interfaceAddresses());
  const isLocal = (ip: string) => local.has(canonicalIp(ip)) || isLoopbackAddress(ip);
  const known = () => [...local].filter((ip) => !ip.startsWith('fe80:')).join(', ');
  if (isIP(bare)) {
    if (!isLocal(bare)) {
      throw new ConfigError(
        `La dirección ${bare} no es de este equipo; sus direcciones son ${known()}. Use una de ellas, o --host 0.0.0.0 para escuchar en todas.`,
      );
    }
    return;
  }
  let resolved: string[];
  try {
    resolved = (await lookup(bare, { all: true })).map((a) => a.address);
  } catch {
    throw new ConfigError(`No se encuentra el nombre ${bare} (--host). Use una dirección IP de este equipo (${known()}) o 0.0.0.0.`);
  }
  if (!resolved.some(isLocal)) {
    throw new ConfigError(`El nombre ${bare} apunta a ${resolved.join(', ')}, que no es de este equipo; sus direcciones son ${known()}.`);
  }
}
