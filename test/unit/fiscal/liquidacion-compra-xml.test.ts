/**
 * The liquidacionCompra 1.1.0 XML (core/fiscal/sri/liquidacion-compra-xml.ts), built from what
 * preparePurchaseSettlement computes: valid against the SRI's XSD with xmllint, the supplier as
 * the proveedor; and the refusals of the supplier's fields by their `supplier.…` paths.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { preparePurchaseSettlement } from '../../../core/fiscal/invoices/purchase-settlement.js';
import { accessKeyFor } from '../../../core/fiscal/sri/access-key.js';
import type { ComputedPurchaseSettlement, Issuer, Numbering } from '../../../core/fiscal/sri/invoice-model.js';
import { buildLiquidacionCompraXml } from '../../../core/fiscal/sri/liquidacion-compra-xml.js';
import type { PurchaseSettlementBody } from '../../../core/fiscal/sri/purchase-settlement-body.js';
import { repoRoot } from '../../helpers/cli.js';
import { NOW, catalogs, issuer, validBody } from './invoice-fixtures.js';

const XSD = path.join(repoRoot, 'test/fixtures/sri/xsd/LiquidacionCompra_V1.1.0.xsd');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-liquidacion-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function body(change: (b: PurchaseSettlementBody) => void = () => {}): PurchaseSettlementBody {
  const { customer, ...rest } = validBody();
  const b: PurchaseSettlementBody = structuredClone({ ...rest, supplier: { ...customer, name: 'Rosa Quishpe Chicaiza', address: 'Comunidad San Pablo, Otavalo' } });
  change(b);
  return b;
}

function prepared(b: PurchaseSettlementBody) {
  return preparePurchaseSettlement(b, { catalogs }, NOW);
}

function settlement(b: PurchaseSettlementBody): ComputedPurchaseSettlement {
  const result = prepared(b);
  if ('errors' in result) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  return result.computed as ComputedPurchaseSettlement;
}

function numbering(who: Issuer, s: ComputedPurchaseSettlement, codDoc = '03'): Numbering {
  const secuencial = '000000009';
  const accessKey = accessKeyFor({ issueDate: s.issueDate, codDoc, ruc: who.ruc, ambiente: 1, establishment: s.establishment, emissionPoint: s.emissionPoint, secuencial, numericCode: '11223344' });
  return { ambiente: 1, secuencial, numero: `${s.establishment}-${s.emissionPoint}-${secuencial}`, accessKey };
}

function built(name: string, who: Issuer, s: ComputedPurchaseSettlement): { xml: string; root: Element } {
  const bytes = buildLiquidacionCompraXml(who, s, numbering(who, s));
  const file = path.join(dir, `${name}.xml`);
  fs.writeFileSync(file, bytes);
  try {
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', XSD, file], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`${name}.xml does not validate against LiquidacionCompra_V1.1.0.xsd:\n${(err as { stderr?: Buffer }).stderr?.toString() ?? String(err)}`);
  }
  const xml = bytes.toString('utf8');
  return { xml, root: new DOMParser().parseFromString(xml, 'text/xml').documentElement! };
}

const text = (root: Element, tag: string) => root.getElementsByTagName(tag)[0]?.textContent;

describe('buildLiquidacionCompraXml', () => {
  it('writes a liquidacionCompra 1.1.0 the XSD accepts, with the supplier as the proveedor', () => {
    const s = settlement(body());
    const { xml, root } = built('basic', issuer(), s);
    expect(root.tagName).toBe('liquidacionCompra');
    expect(text(root, 'codDoc')).toBe('03');
    expect(text(root, 'tipoIdentificacionProveedor')).toBe('05');
    expect(text(root, 'razonSocialProveedor')).toBe('Rosa Quishpe Chicaiza');
    expect(text(root, 'direccionProveedor')).toBe('Comunidad San Pablo, Otavalo');
    expect(text(root, 'importeTotal')).toBe('115.00');
    expect(text(root, 'formaPago')).toBe('01');
    expect(xml).not.toMatch(/<propina>|Comprador/);
  });

  it('stays valid without payments, with a passport, several rates and escaped characters', () => {
    const s = settlement(
      body((b) => {
        delete (b as { payments?: unknown }).payments;
        b.supplier = { name: 'John O’Brien & Sons <Ltd>', tax_id: 'X1234567', tax_id_type: { type: 'ec-pasaporte', code: '06' }, email: 'john@example.com' };
        b.lines = [
          { code: 'CAF-1', description: 'Café en grano "especial"', quantity: '10.5', unit_price: '3.250000', discount: '1.00', taxes: [{ type: 'ec-iva-0' }] },
          { code: 'SRV-2', description: 'Transporte', quantity: '1', unit_price: '20', discount: '0', taxes: [{ type: 'ec-iva-15' }] },
          { code: 'SRV-3', description: 'Servicio a tarifa 5 %', quantity: '2', unit_price: '7.5', discount: '0', taxes: [{ type: 'ec-iva-5' }] },
        ];
      }),
    );
    const { root } = built('rich', issuer({ contribuyente_especial: '5368' }), s);
    expect(text(root, 'razonSocialProveedor')).toBe('John O’Brien & Sons <Ltd>');
    expect(root.getElementsByTagName('pagos').length).toBe(0);
    expect(root.getElementsByTagName('campoAdicional')[0]?.textContent).toBe('john@example.com');
  });

  it('refuses an access key of another type', () => {
    const s = settlement(body());
    expect(() => buildLiquidacionCompraXml(issuer(), s, numbering(issuer(), s, '01'))).toThrow(/access key .* does not match/);
  });
});

describe('preparePurchaseSettlement', () => {
  it('names the supplier’s fields, refuses the consumidor final and an ICE, and checks payments only when given', () => {
    const final = prepared(body((b) => (b.supplier = { name: 'X', tax_id: '9999999999999', tax_id_type: { type: 'ec-consumidor-final', code: '07' } })));
    expect(final).toEqual({ errors: [{ path: 'supplier.tax_id_type.type', message: expect.stringMatching(/no es un consumidor final/) }] });
    const badId = prepared(body((b) => (b.supplier.tax_id = '1714307104')));
    expect('errors' in badId && badId.errors.map((e) => e.path)).toEqual(['supplier.tax_id']);
    const ice = prepared(body((b) => (b.lines[0]!.taxes = [{ type: 'ec-iva-15' }, { type: 'ec-ice-bebidas-alcoholicas', rate: '75' }])));
    expect(ice).toEqual({ errors: [{ path: 'lines[0].taxes[1].type', message: 'ec-ice-bebidas-alcoholicas es un ICE: la liquidación de compra del SRI solo lleva IVA' }] });
    const unpaid = prepared(body((b) => (b.payments = [{ method: '01', amount: '1.00' }])));
    expect('errors' in unpaid && unpaid.errors[0]!.message).toMatch(/no coincide con el total de la liquidación de compra, 115\.00/);
  });
});
