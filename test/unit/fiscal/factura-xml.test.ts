import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { accessKeyFor } from '../../../core/fiscal/sri/access-key.js';
import { computeInvoice } from '../../../core/fiscal/sri/compute-invoice.js';
import { buildFacturaXml, infoAdicionalOf } from '../../../core/fiscal/sri/factura-xml.js';
import type { InvoiceBody } from '../../../core/fiscal/sri/invoice-body.js';
import type { ComputedInvoice, Issuer, Numbering } from '../../../core/fiscal/sri/invoice-model.js';
import { repoRoot } from '../../helpers/cli.js';
import { NOW, catalogs, issuer, validBody, withBody } from './invoice-fixtures.js';

const XSD = path.join(repoRoot, 'test/fixtures/sri/xsd/factura_V2.1.0.xsd');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-factura-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function computed(body: InvoiceBody): ComputedInvoice {
  const result = computeInvoice(body, catalogs, NOW);
  if ('errors' in result) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  return result.ok;
}

function numbering(who: Issuer, invoice: ComputedInvoice, secuencial = '000000123', ambiente: 1 | 2 = 1): Numbering {
  const accessKey = accessKeyFor({
    issueDate: invoice.issueDate,
    codDoc: '01',
    ruc: who.ruc,
    ambiente,
    establishment: invoice.establishment,
    emissionPoint: invoice.emissionPoint,
    secuencial,
    numericCode: '40718263',
  });
  return { ambiente, secuencial, numero: `${invoice.establishment}-${invoice.emissionPoint}-${secuencial}`, accessKey };
}

/** Builds the XML, validates it with xmllint against the SRI's XSD, and returns it parsed. */
function built(name: string, who: Issuer, invoice: ComputedInvoice): { xml: string; root: Element } {
  const bytes = buildFacturaXml(who, invoice, numbering(who, invoice));
  const file = path.join(dir, `${name}.xml`);
  fs.writeFileSync(file, bytes);
  try {
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', XSD, file], { stdio: 'pipe' });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? String(err);
    throw new Error(`${name}.xml does not validate against factura_V2.1.0.xsd:\n${stderr}`);
  }
  const xml = bytes.toString('utf8');
  const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
  return { xml, root };
}

function first(root: Element, tag: string): Element {
  const found = root.getElementsByTagName(tag)[0];
  if (!found) throw new Error(`no <${tag}>`);
  return found;
}

const textOf = (root: Element, tag: string) => first(root, tag).textContent;
const childNames = (el: Element) => Array.from(el.childNodes).filter((n) => n.nodeType === 1).map((n) => (n as Element).tagName);

describe('buildFacturaXml', () => {
  it('writes a one-line invoice the XSD accepts, with every fixed value in place', () => {
    const invoice = computed(validBody());
    const who = issuer();
    const { xml, root } = built('one-line', who, invoice);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<factura id="comprobante" version="2.1.0">')).toBe(true);
    expect(childNames(root)).toEqual(['infoTributaria', 'infoFactura', 'detalles']);
    expect(childNames(first(root, 'infoTributaria'))).toEqual([
      'ambiente', 'tipoEmision', 'razonSocial', 'nombreComercial', 'ruc', 'claveAcceso', 'codDoc', 'estab', 'ptoEmi', 'secuencial', 'dirMatriz',
    ]);
    expect(textOf(root, 'claveAcceso')).toBe(numbering(who, invoice).accessKey);
    expect(textOf(root, 'fechaEmision')).toBe('10/03/2026');
    expect(textOf(root, 'dirEstablecimiento')).toBe('Av. Amazonas N34-451, Quito');
    expect(textOf(root, 'obligadoContabilidad')).toBe('SI');
    expect(textOf(root, 'tipoIdentificacionComprador')).toBe('05');
    expect(textOf(root, 'moneda')).toBe('DOLAR');
    expect(textOf(root, 'propina')).toBe('0.00');
    expect(textOf(root, 'importeTotal')).toBe('115.00');
    expect(childNames(first(root, 'pago'))).toEqual(['formaPago', 'total']);
    expect(root.getElementsByTagName('contribuyenteRimpe')).toHaveLength(0);
    expect(root.getElementsByTagName('infoAdicional')).toHaveLength(0);
  });

  it('writes many lines', () => {
    const body = withBody((b) => {
      b.lines = Array.from({ length: 80 }, (_, i) => ({
        code: `SKU-${String(i).padStart(4, '0')}`,
        description: `Artículo número ${i}`,
        quantity: '1.5',
        unit_price: '2.333333',
        discount: '0.10',
        taxes: [{ type: i % 2 === 0 ? 'ec-iva-15' : 'ec-iva-0' }],
      }));
      // Each line: 1.5 × 2.333333 = 3.4999995 → 3.50 − 0.10 = 3.40; 40 lines at 15 % → 0.51 each.
      b.payments = [{ method: '20', amount: '292.40' }]; // 80 × 3.40 + 40 × 0.51
    });
    const invoice = computed(body);
    expect(invoice.grandTotal).toBe('292.40');
    const { root } = built('many-lines', issuer(), invoice);
    expect(root.getElementsByTagName('detalle')).toHaveLength(80);
    expect(childNames(first(root, 'detalle'))).toEqual(['codigoPrincipal', 'descripcion', 'cantidad', 'precioUnitario', 'descuento', 'precioTotalSinImpuesto', 'impuestos']);
  });

  it('writes every VAT rate, one totalImpuesto each', () => {
    const types = ['ec-iva-0', 'ec-iva-12', 'ec-iva-14', 'ec-iva-15', 'ec-iva-5', 'ec-no-objeto-iva', 'ec-exento-iva', 'ec-iva-8', 'ec-iva-13'];
    const body = withBody((b) => {
      b.lines = types.map((type) => ({ code: type, description: type, quantity: '1', unit_price: '10', discount: '0', taxes: [{ type }] }));
      b.payments = [{ method: '01', amount: '96.70' }]; // 90.00 + 1.20 + 1.40 + 1.50 + 0.50 + 0.80 + 1.30
    });
    const { root } = built('all-vat-rates', issuer(), computed(body));
    const totals = Array.from(root.getElementsByTagName('totalImpuesto')).map((t) => [textOf(t, 'codigoPorcentaje'), textOf(t, 'tarifa'), textOf(t, 'valor')]);
    expect(totals).toEqual([
      ['0', '0', '0.00'], ['2', '12', '1.20'], ['3', '14', '1.40'], ['4', '15', '1.50'], ['5', '5', '0.50'],
      ['6', '0', '0.00'], ['7', '0', '0.00'], ['8', '8', '0.80'], ['10', '13', '1.30'],
    ]);
    expect(childNames(first(root, 'totalImpuesto'))).toEqual(['codigo', 'codigoPorcentaje', 'baseImponible', 'tarifa', 'valor']);
    expect(childNames(first(root, 'impuesto'))).toEqual(['codigo', 'codigoPorcentaje', 'tarifa', 'baseImponible', 'valor']);
  });

  it('writes ICE before VAT', () => {
    const body = withBody((b) => {
      b.lines = [{ code: 'WH-750', description: 'Whisky 750 ml', quantity: '2', unit_price: '15.00', discount: '0', taxes: [{ type: 'ec-iva-15' }, { type: 'ec-ice-bebidas-alcoholicas', rate: '75', specific_amount: '1.20' }] }];
      b.payments = [{ method: '19', amount: '61.76' }]; // 30.00 + 23.70 + 8.06
    });
    const { root } = built('ice', issuer(), computed(body));
    const impuestos = Array.from(root.getElementsByTagName('impuesto')).map((t) => [textOf(t, 'codigo'), textOf(t, 'codigoPorcentaje'), textOf(t, 'tarifa'), textOf(t, 'baseImponible'), textOf(t, 'valor')]);
    expect(impuestos).toEqual([['3', '3031', '75', '30.00', '23.70'], ['2', '4', '15', '53.70', '8.06']]);
    expect(textOf(root, 'importeTotal')).toBe('61.76');
  });

  it('writes the RIMPE legend of each regime as the XSD spells it', () => {
    const invoice = computed(validBody());
    const emprendedor = built('rimpe-emprendedor', issuer({ regimen: 'rimpe_emprendedor', obligado_contabilidad: false }), invoice).root;
    expect(textOf(emprendedor, 'contribuyenteRimpe')).toBe('CONTRIBUYENTE RÉGIMEN RIMPE');
    expect(textOf(emprendedor, 'obligadoContabilidad')).toBe('NO');
    const popular = built('rimpe-negocio-popular', issuer({ ruc: '1714307103001', regimen: 'rimpe_negocio_popular', obligado_contabilidad: false }), invoice).root;
    expect(textOf(popular, 'contribuyenteRimpe')).toBe('CONTRIBUYENTE NEGOCIO POPULAR - RÉGIMEN RIMPE');
  });

  it('writes a contribuyente especial and withholding agent in the XSD’s places', () => {
    const who = issuer({ contribuyente_especial: '5368', agente_retencion: '1', nombre_comercial: undefined });
    const { root } = built('especial', who, computed(validBody()));
    expect(childNames(first(root, 'infoTributaria'))).toEqual([
      'ambiente', 'tipoEmision', 'razonSocial', 'ruc', 'claveAcceso', 'codDoc', 'estab', 'ptoEmi', 'secuencial', 'dirMatriz', 'agenteRetencion',
    ]);
    expect(childNames(first(root, 'infoFactura')).slice(0, 4)).toEqual(['fechaEmision', 'dirEstablecimiento', 'contribuyenteEspecial', 'obligadoContabilidad']);
    expect(textOf(root, 'contribuyenteEspecial')).toBe('5368');
  });

  it('escapes text and keeps accents, in the customer, the lines and the additional info', () => {
    const body = withBody((b) => {
      b.establishment = '002';
      b.customer = {
        name: 'Ñandú & Cía. <Pérez> "Hermanos"',
        tax_id: '1790011674001',
        tax_id_type: { type: 'ec-ruc', code: '06' },
        email: 'compras@ñandu.ec, contabilidad@nandu.ec',
        phone: '+593 (2) 255-1234',
        address: 'Av. 10 de Agosto & Colón, edificio «Ártico»',
      };
      b.lines[0]!.description = 'Asesoría tributaria <IVA> & retenciones — año 2026';
      b.additional_info = [
        { name: 'Observación & nota', value: 'Pago en 30 días; "urgente" <sí>' },
        { name: 'Dirección de envío', value: 'Cuenca, calle Bolívar 5-12' },
      ];
    });
    const invoice = computed(body);
    const { xml, root } = built('additional-info', issuer(), invoice);
    expect(xml).toContain('<razonSocialComprador>Ñandú &amp; Cía. &lt;Pérez&gt; "Hermanos"</razonSocialComprador>');
    expect(xml).toContain('<campoAdicional nombre="Observación &amp; nota">Pago en 30 días; "urgente" &lt;sí&gt;</campoAdicional>');
    expect(textOf(root, 'razonSocialComprador')).toBe(body.customer.name);
    expect(textOf(root, 'direccionComprador')).toBe(body.customer.address);
    expect(textOf(root, 'descripcion')).toBe(body.lines[0]!.description);
    expect(textOf(root, 'tipoIdentificacionComprador')).toBe('04');
    expect(textOf(root, 'dirEstablecimiento')).toBe('Calle Bolívar 5-12, Cuenca');
    const campos = Array.from(root.getElementsByTagName('campoAdicional')).map((c) => [c.getAttribute('nombre'), c.textContent]);
    expect(campos).toEqual([
      ['Email', 'compras@ñandu.ec, contabilidad@nandu.ec'],
      ['Teléfono', '+593 (2) 255-1234'],
      ['Observación & nota', 'Pago en 30 días; "urgente" <sí>'],
      ['Dirección de envío', 'Cuenca, calle Bolívar 5-12'],
    ]);
    expect(infoAdicionalOf(invoice).map((f) => f.name)).toEqual(['Email', 'Teléfono', 'Observación & nota', 'Dirección de envío']);
  });

  it('writes a sale to the final consumer, and payments with a term', () => {
    const body = withBody((b) => {
      b.customer = { name: 'CONSUMIDOR FINAL', tax_id: '9999999999999', tax_id_type: { type: 'ec-consumidor-final', code: '07' } };
      b.payments = [{ method: '20', amount: '100.00', term: '30', unit: 'dias' }, { method: '01', amount: '15.00' }];
    });
    const { root } = built('consumidor-final', issuer(), computed(body));
    expect(textOf(root, 'tipoIdentificacionComprador')).toBe('07');
    expect(textOf(root, 'identificacionComprador')).toBe('9999999999999');
    expect(childNames(first(root, 'pago'))).toEqual(['formaPago', 'total', 'plazo', 'unidadTiempo']);
  });

  it('refuses to write what the SRI would refuse: an unknown series, an access key of another document', () => {
    const invoice = computed(validBody());
    const who = issuer();
    expect(() => buildFacturaXml(issuer({ establishments: [] }), invoice, numbering(who, invoice))).toThrow(/no establishment 001/);
    const other = numbering(issuer({ ruc: '1790011674001' }), invoice);
    expect(() => buildFacturaXml(who, invoice, other)).toThrow(/does not match the document/);
    expect(() => buildFacturaXml(who, invoice, { ...numbering(who, invoice), secuencial: '000000124' })).toThrow(/does not match/);
  });
});
