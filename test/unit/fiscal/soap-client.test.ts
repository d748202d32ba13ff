/**
 * The SRI's addresses as settings (CONTRACT §15), the base URL per ambiente, and how the
 * client's errors tell the submission job whether to retry. No network here; the client
 * against a live fake is test/integration/fiscal/sri-client.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../core/config.js';
import { SriFault, SriHttpError, SriRequestError, SriUnreachable, isSriError, serviceUrl, sriBaseUrl } from '../../../core/fiscal/sri/soap-client.js';

describe('SELLO_SRI_TEST_URL and SELLO_SRI_PRODUCTION_URL', () => {
  it('default to the SRI’s own hosts', () => {
    const config = loadConfig({ dataDir: '/tmp/x' }, {});
    expect(config.sriTestUrl).toBe('https://celcer.sri.gob.ec/comprobantes-electronicos-ws');
    expect(config.sriProductionUrl).toBe('https://cel.sri.gob.ec/comprobantes-electronicos-ws');
    expect(sriBaseUrl(config, 1)).toBe(config.sriTestUrl);
    expect(sriBaseUrl(config, 2)).toBe(config.sriProductionUrl);
  });

  it('read from the environment, trailing slash dropped; http only towards this machine', () => {
    const config = loadConfig({ dataDir: '/tmp/x' }, { SELLO_SRI_TEST_URL: 'http://127.0.0.1:9999/ws/', SELLO_SRI_PRODUCTION_URL: 'https://proxy.oficina.ec/sri' });
    expect(config.sriTestUrl).toBe('http://127.0.0.1:9999/ws');
    expect(config.sriProductionUrl).toBe('https://proxy.oficina.ec/sri');
    expect(loadConfig({ dataDir: '/tmp/x' }, { SELLO_SRI_TEST_URL: 'http://localhost:8080' }).sriTestUrl).toBe('http://localhost:8080');
  });

  it('refuse what could leak comprobantes or is not a URL, naming the setting', () => {
    for (const bad of ['http://celcer.sri.gob.ec/comprobantes-electronicos-ws', 'ftp://x', 'celcer.sri.gob.ec', 'https://x/ws?wsdl', 'https://u:p@x/ws']) {
      expect(() => loadConfig({ dataDir: '/tmp/x' }, { SELLO_SRI_PRODUCTION_URL: bad })).toThrow(ConfigError);
    }
    expect(() => loadConfig({ dataDir: '/tmp/x' }, { SELLO_SRI_TEST_URL: 'nada' })).toThrow(/SELLO_SRI_TEST_URL debe ser una URL https:\/\//);
  });

  it('overrides win, as for every setting', () => {
    expect(loadConfig({ dataDir: '/tmp/x', sriTestUrl: 'http://127.0.0.1:1/ws' }, { SELLO_SRI_TEST_URL: 'nada' }).sriTestUrl).toBe('http://127.0.0.1:1/ws');
  });
});

describe('serviceUrl', () => {
  it('appends the service to the base', () => {
    expect(serviceUrl('https://celcer.sri.gob.ec/comprobantes-electronicos-ws', 'RecepcionComprobantesOffline').href).toBe(
      'https://celcer.sri.gob.ec/comprobantes-electronicos-ws/RecepcionComprobantesOffline',
    );
    expect(serviceUrl('http://[::1]:8080/ws/', 'AutorizacionComprobantesOffline').href).toBe('http://[::1]:8080/ws/AutorizacionComprobantesOffline');
  });

  it('refuses plain HTTP to another host, other schemes, queries', () => {
    for (const bad of ['http://cel.sri.gob.ec/ws', 'file:///etc', 'https://x/ws?a=1', 'no es url']) {
      expect(() => serviceUrl(bad, 'X')).toThrow(SriRequestError);
    }
  });
});

describe('errors say whether to retry', () => {
  it('unreachable: always', () => {
    const err = new SriUnreachable('garbage', 'x', 200);
    expect(err).toMatchObject({ code: 'sri_unreachable', retryable: true, status: 200 });
    expect(isSriError(err)).toBe(true);
    expect(isSriError(new Error('x'))).toBe(false);
  });

  it('faults: the SRI’s own (Server) yes, a refused request (Client) no', () => {
    expect(new SriFault('soap:Server', 'x', 500, 'x').retryable).toBe(true);
    expect(new SriFault('S:Server', 'x', 500, 'x').retryable).toBe(true);
    expect(new SriFault('soap:Client', 'x', 500, 'x').retryable).toBe(false);
    expect(new SriFault('soap:Client.Authentication', 'x', 500, 'x').retryable).toBe(false);
    expect(new SriFault('', 'x', 500, 'x').retryable).toBe(true);
  });

  it('HTTP: redirects, 408, 425 and 429 yes; other 4xx no', () => {
    expect([301, 302, 408, 425, 429].map((s) => new SriHttpError(s, 'x').retryable)).toEqual([true, true, true, true, true]);
    expect([400, 401, 403, 404, 405, 415].map((s) => new SriHttpError(s, 'x').retryable)).toEqual([false, false, false, false, false, false]);
  });

  it('bad requests never', () => {
    expect(new SriRequestError('x')).toMatchObject({ code: 'sri_bad_request', retryable: false });
  });
});
