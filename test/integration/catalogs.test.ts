import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonApiHeaders, snapshot, startTestAgent, type TestAgent } from '../helpers/agent.js';

type Row = { id: string; type: string; attributes: Record<string, string> };

describe('catalogs', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  const list = async (path: string) => {
    const res = await agent.fetch(path, { headers: jsonApiHeaders(agent.testKey) });
    return { status: res.status, body: (await res.json()) as { data: Row[]; errors?: unknown[] } };
  };

  it('serves exactly the spec’s identification types, with its codes', async () => {
    const { body } = await list('/api/v1/identification-types?page[limit]=250&sort=code');
    const pairs = body.data.map((r) => `${r.attributes.code}=${r.attributes.authority_code}`);
    expect(pairs.sort()).toEqual(
      [
        'ec-ruc=06', 'ec-cedula=05', 'ec-pasaporte=06', 'ec-consumidor-final=07', 'ec-identificacion-exterior=08',
        'pe-no-tax-id=0', 'pe-dni=1', 'pe-carnet-extranjeria=4', 'pe-ruc=6', 'pe-pasaporte=7',
        'pe-cedula-diplomatica=A', 'pe-no-domiciliado=B', 'pe-numero-identificacion=D', 'pe-tarjeta-andina=E',
      ].sort(),
    );
    expect(body.data[0]).toMatchObject({ type: 'identification_type' });
    expect(body.data.every((r) => r.id === r.attributes.code)).toBe(true);
  });

  it('serves exactly the spec’s tax types and the 2024 VAT rates (CONTRACT §15), with groups', async () => {
    const { body } = await list('/api/v1/tax-types?page[limit]=250');
    const pairs = body.data.map((r) => `${r.attributes.code}=${r.attributes.authority_code}`);
    expect(pairs.sort()).toEqual(
      [
        'ec-iva-12=2', 'ec-iva-0=0', 'ec-iva-14=3', 'ec-no-objeto-iva=6', 'ec-exento-iva=7',
        'ec-iva-15=4', 'ec-iva-5=5', 'ec-iva-13=10', 'ec-iva-8=8',
        'ec-ice-bebidas-alcoholicas=3031', 'ec-ice-cerveza-artesanal=3041',
        'pe-igv=1000', 'pe-isc=2000', 'pe-ivap=1016', 'pe-exportacion=9995', 'pe-gratuito=9996', 'pe-exonerado=1000',
      ].sort(),
    );
    expect(body.data.find((r) => r.id === 'ec-ice-cerveza-artesanal')?.attributes.group).toBe('ice');
  });

  it('filters by country, sorts and pages through the generic machinery', async () => {
    const { body } = await list('/api/v1/identification-types?filter[country]=EC&sort=-authority_code,code&page[limit]=2&page[count]=true');
    expect(body.data.map((r) => r.id)).toEqual(['ec-identificacion-exterior', 'ec-consumidor-final']);
    expect((body as unknown as { meta: { page: { total: number } } }).meta.page.total).toBe(5);
  });

  it('gets one by code and 404s an unknown one', async () => {
    expect((await list('/api/v1/tax-types/pe-igv')).body).toMatchObject({ data: { id: 'pe-igv', attributes: { authority_code: '1000' } } });
    const missing = await list('/api/v1/tax-types/pe-nope');
    expect(missing.status).toBe(404);
  });

  it('is read-only: writes are 405 and change nothing', async () => {
    const before = snapshot(agent);
    const res = await agent.fetch('/api/v1/tax-types', {
      method: 'POST',
      headers: jsonApiHeaders(agent.testKey),
      body: JSON.stringify({ data: { type: 'tax_type', attributes: { code: 'x' } } }),
    });
    expect(res.status).toBe(405);
    expect(snapshot(agent)).toBe(before);
  });
});
