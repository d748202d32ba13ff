import { describe, expect, it } from 'vitest';
import { candidateModules } from '../../../native/index.js';

describe('candidateModules', () => {
  it('lists configured modules first, then SELLO_PKCS11_MODULES, then the known drivers, each with exists', () => {
    const present = new Set(['/opt/x/libtoken.so', '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so']);
    const list = candidateModules({
      platform: 'linux',
      configured: ['/opt/x/libtoken.so'],
      env: { SELLO_PKCS11_MODULES: '/opt/y/liby.so:/opt/x/libtoken.so' },
      exists: (p) => present.has(p),
    });
    expect(list.slice(0, 2)).toEqual([
      { path: '/opt/x/libtoken.so', name: 'configurado', source: 'configured', exists: true },
      { path: '/opt/y/liby.so', name: 'configurado', source: 'configured', exists: false },
    ]);
    const paths = list.map((m) => m.path);
    expect(paths).toContain('/usr/lib/libeTPkcs11.so');
    expect(paths).toContain('/usr/lib/libcastle.so.1.0.0');
    expect(paths).toContain('/usr/lib/libbit4xpki.so');
    expect(list.find((m) => m.path === '/usr/lib/x86_64-linux-gnu/opensc-pkcs11.so')).toMatchObject({ name: 'OpenSC', exists: true });
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('uses ; as the path delimiter and the Windows DLL names on win32', () => {
    const list = candidateModules({
      platform: 'win32',
      env: { SELLO_PKCS11_MODULES: 'C:\\a\\x.dll;D:\\b\\y.dll', SystemRoot: 'C:\\Windows' },
      exists: () => false,
    });
    const paths = list.map((m) => m.path);
    expect(paths.slice(0, 2)).toEqual(['C:\\a\\x.dll', 'D:\\b\\y.dll']);
    expect(paths).toContain('C:\\Windows\\System32\\eTPKCS11.dll');
    expect(paths).toContain('C:\\Windows\\System32\\ShuttleCsp11_3003.dll');
    expect(paths).toContain('C:\\Windows\\System32\\bit4xpki.dll');
  });

  it('lists the macOS dylibs on darwin', () => {
    const paths = candidateModules({ platform: 'darwin', env: {}, exists: () => false }).map((m) => m.path);
    expect(paths).toContain('/usr/local/lib/libeTPkcs11.dylib');
    expect(paths.some((p) => p.includes('libes_3003'))).toBe(true);
  });
});
