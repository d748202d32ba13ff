import { describe, expect, it } from 'vitest';
import { hostChecker, parseHost } from '../../../core/http/middleware/host-check.js';

describe('parseHost (RFC 9110 §7.2: uri-host [":" port])', () => {
  it('reads names, IPv4 and IPv6 literals, with or without a port, in lower case', () => {
    expect(parseHost('localhost')).toEqual({ hostname: 'localhost', port: undefined });
    expect(parseHost('LOCALHOST:8437')).toEqual({ hostname: 'localhost', port: 8437 });
    expect(parseHost('127.0.0.1:1')).toEqual({ hostname: '127.0.0.1', port: 1 });
    expect(parseHost('[::1]')).toEqual({ hostname: '[::1]', port: undefined });
    expect(parseHost('[::1]:65535')).toEqual({ hostname: '[::1]', port: 65535 });
    expect(parseHost('sello.oficina-central.ec')).toEqual({ hostname: 'sello.oficina-central.ec', port: undefined });
  });

  it('refuses userinfo, paths, queries, fragments and anything but digits in the port', () => {
    for (const header of [
      'localhost:80@evil.com',
      '127.0.0.1@evil.com',
      '[::1]@x',
      'user@localhost',
      '127.0.0.1:8437/evil',
      'localhost/',
      'localhost?x',
      'localhost#x',
      'localhost:',
      'localhost:+80',
      'localhost:-1',
      'localhost: 80',
      'localhost:80:80',
      'localhost:0',
      'localhost:65536',
      'localhost:123456',
      'local host',
      ' localhost',
      'localhost.',
      '.localhost',
      'local..host',
      'localhost%2eevil.com',
      'xn--lcalhost-?',
      '',
      '[::1',
      '[::1]x',
      '[::1]:',
      '[fe80::1%25eth0]',
      '[v1.x]',
      '[127.0.0.1]',
      'ĺocalhost',
    ]) {
      expect(parseHost(header), JSON.stringify(header)).toBeUndefined();
    }
  });
});

describe('hostChecker', () => {
  const check = hostChecker(['Sello.Oficina.EC']);

  it('accepts the loopback names and the configured ones, in any case, on the port the request came in on or without one', () => {
    expect(check('127.0.0.1:8437', 8437)).toEqual({ hostname: '127.0.0.1', port: 8437, authority: '127.0.0.1:8437' });
    expect(check('LOCALHOST', 8437)).toEqual({ hostname: 'localhost', port: undefined, authority: 'localhost' });
    expect(check('[::1]:8437', 8437)?.authority).toBe('[::1]:8437');
    expect(check('sello.oficina.ec:8437', 8437)?.authority).toBe('sello.oficina.ec:8437');
  });

  it('refuses other names, names that merely start like ours, another port and a missing header', () => {
    for (const header of ['evil.example', '127.0.0.1.evil.com', 'localhost.evil.example', 'localhost:80@evil.com', '127.0.0.2', '0:0:0:0:0:0:0:1', '[0::1]']) {
      expect(check(header, 8437), header).toBeUndefined();
    }
    expect(check('localhost:80', 8437)).toBeUndefined();
    expect(check('localhost:8437', undefined)).toBeUndefined();
    expect(check(undefined, 8437)).toBeUndefined();
  });
});
