/**
 * The guía de remisión (guiaRemision 1.1.0): the body's schema and its Spanish refusals by path,
 * what computeRemissionGuide checks (ids by catalog type, the issue date, the transport dates, a
 * support document's access key), and the XML, valid against the SRI's XSD with xmllint.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { issueMessages } from '../../../core/errors/index.js';
import { accessKeyFor } from '../../../core/fiscal/sri/access-key.js';
import { computeRemissionGuide } from '../../../core/fiscal/sri/compute-remission-guide.js';
import { buildGuiaRemisionXml } from '../../../core/fiscal/sri/guia-remision-xml.js';
import type { Issuer, Numbering } from '../../../core/fiscal/sri/invoice-model.js';
import { remissionGuideBodySchema, type RemissionGuideBody } from '../../../core/fiscal/sri/remission-guide-body.js';
import type { ComputedRemissionGuide } from '../../../core/fiscal/sri/remission-guide-model.js';
import { repoRoot } from '../../helpers/cli.js';
import { NOW, catalogs, issuer } from './invoice-fixtures.js';

const XSD = path.join(repoRoot, 'test/fixtures/sri/xsd/GuiaRemision_V1.1.0.xsd');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-guia-remision-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The access key of invoice 001-001-000000123 of 2026-03-09 (a valid check digit). */
const INVOICE_KEY = accessKeyFor({ issueDate: '2026-03-09', codDoc: '01', ruc: '1792146739001', ambiente: 2, establishment: '001', emissionPoint: '001', secuencial: '000000123', numericCode: '12345678' });

function validBody(): RemissionGuideBody {
  return {
    external_ref: 'GR-0001',
    issue_date: '2026-03-10',
    establishment: '001',
    emission_point: '001',
    departure_address: 'Bodega central, Av. Maldonado S12-34, Quito',
    carrier: { name: 'Transportes del Sur S.A.', tax_id: '1790011674001', tax_id_type: { type: 'ec-ruc', code: '06' } },
    plate: 'PBA-1234',
    transport_start: '2026-03-10',
    transport_end: '2026-03-11',
    recipients: [
      {
        name: 'Juan Pérez',
        tax_id: '1714307103',
        tax_id_type: { type: 'ec-cedula', code: '05' },
        address: 'Av. 10 de Agosto N21-45, Quito',
        reason: 'Venta',
        goods: [{ code: 'P-1', description: 'Cajas de papel bond A4', quantity: '10' }],
      },
    ],
  };
}

function withBody(change: (body: RemissionGuideBody) => void): RemissionGuideBody {
  const body = structuredClone(validBody());
  change(body);
  return body;
}

/** The schema's refusals of `body`, by field path. */
function refusals(body: unknown): Record<string, string[]> {
  const parsed = remissionGuideBodySchema.safeParse(body);
  return parsed.success ? {} : { ...issueMessages(parsed.error.issues) };
}

/** The valid body with the value at `at` replaced (or removed, for `undefined`). */
function changed(at: Array<string | number>, value: unknown): unknown {
  const body = structuredClone(validBody()) as unknown as Record<string | number, unknown>;
  let node: Record<string | number, unknown> = body;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = at[at.length - 1]!;
  if (value === undefined) delete node[last];
  else node[last] = value;
  return body;
}

function computed(body: RemissionGuideBody, now = NOW): ComputedRemissionGuide {
  const result = computeRemissionGuide(body, catalogs, now);
  if ('errors' in result) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  return result.ok;
}

function errorsOf(body: RemissionGuideBody, now = NOW): Record<string, string> {
  const result = computeRemissionGuide(body, catalogs, now);
  if (!('errors' in result)) throw new Error('expected refusals');
  return Object.fromEntries(result.errors.map((e) => [e.path, e.message]));
}

/** A second recipient with everything optional: route, customs document, a support document, several goods. */
function richBody(): RemissionGuideBody {
  return withBody((b) => {
    b.recipients[0]!.route = 'Quito – Latacunga – Ambato';
    b.recipients[0]!.support_document = { type: '01', numero: '001-001-000000123', issue_date: '2026-03-09', authorization_number: INVOICE_KEY };
    b.recipients[0]!.goods.push({ code: 'P-2', additional_code: 'EAN-7861234567890', description: 'Tóner <negro> "original" & sellado', quantity: '2.5' });
    b.recipients.push({
      name: 'Distribuidora Ñandú & Cía. <Sucursal Sur>',
      tax_id: '1790011674001',
      tax_id_type: { type: 'ec-ruc', code: '06' },
      address: 'Calle Bolívar 5-12, Cuenca',
      reason: 'Traslado entre establecimientos',
      route: 'Quito – Cuenca (E35)',
      customs_document: '028-2026-10-00012345',
      destination_establishment: '002',
      support_document: { type: '01', numero: '001-002-000000045', issue_date: '2026-03-08', authorization_number: '1234567890' },
      goods: [
        { code: 'S-10', description: 'Sillas de oficina', quantity: '12' },
        { code: 'S-11', description: 'Escritorios', quantity: '3.000001' },
        { code: 'S-12', additional_code: 'LOTE-7', description: 'Archivadores metálicos', quantity: '999999999999.999999' },
      ],
    });
    b.additional_info = [
      { name: 'Orden de despacho', value: 'OD-2026-0042' },
      { name: 'Chofer', value: 'Luis "Lucho" Andrade & hijos' },
    ];
  });
}

describe('remissionGuideBodySchema', () => {
  it('accepts the minimal body and one with every optional field', () => {
    expect(refusals(validBody())).toEqual({});
    expect(refusals(richBody())).toEqual({});
    expect(refusals(withBody((b) => (b.recipients[0]!.invoice_id = 'inv_01J9')))).toEqual({});
  });

  it('names each field path it refuses, in Spanish', () => {
    const cases: Array<[Array<string | number>, unknown, string, RegExp]> = [
      [['departure_address'], undefined, 'departure_address', /es obligatorio/],
      [['carrier'], 'Transportes', 'carrier', /debe ser un objeto \{name, tax_id, tax_id_type\}/],
      [['carrier', 'tax_id'], '1'.repeat(21), 'carrier.tax_id', /hasta 20 caracteres/],
      [['plate'], 'P'.repeat(21), 'plate', /hasta 20 caracteres/],
      [['plate'], 'PBA\n1234', 'plate', /saltos de línea/],
      [['transport_start'], '2026-02-30', 'transport_start', /fecha válida AAAA-MM-DD/],
      [['transport_end'], '11/03/2026', 'transport_end', /fecha válida/],
      [['recipients'], [], 'recipients', /al menos un destinatario/],
      [['recipients', 0, 'goods'], [], 'recipients[0].goods', /al menos un bien/],
      [['recipients', 0, 'goods', 0, 'quantity'], '0', 'recipients[0].goods[0].quantity', /mayor que cero/],
      [['recipients', 0, 'goods', 0, 'quantity'], 10, 'recipients[0].goods[0].quantity', /entre comillas, por ejemplo "2"/],
      [['recipients', 0, 'goods', 0, 'quantity'], '1.1234567', 'recipients[0].goods[0].quantity', /hasta 6 decimales/],
      [['recipients', 0, 'goods', 0, 'code'], 'C'.repeat(26), 'recipients[0].goods[0].code', /hasta 25 caracteres/],
      [['recipients', 0, 'reason'], '  ', 'recipients[0].reason', /no puede estar vacío/],
      [['recipients', 0, 'customs_document'], 'D'.repeat(21), 'recipients[0].customs_document', /hasta 20 caracteres/],
      [['recipients', 0, 'destination_establishment'], '2', 'recipients[0].destination_establishment', /tres dígitos del establecimiento de destino/],
      [['recipients', 0, 'support_document'], { type: '01', numero: '1-1-123', issue_date: '2026-03-09' }, 'recipients[0].support_document.numero', /número del comprobante/],
      [['recipients', 0, 'support_document'], { type: 'FA', numero: '001-001-000000123', issue_date: '2026-03-09' }, 'recipients[0].support_document.type', /dos dígitos/],
      [['recipients', 0, 'support_document'], { type: '01', numero: '001-001-000000123', issue_date: '2026-03-09', authorization_number: '12345' }, 'recipients[0].support_document.authorization_number', /de 10 a 49 dígitos/],
      [['recipients', 0, 'colour'], 'rojo', 'recipients[0].colour', /campo no admitido/],
      [['additional_info'], Array.from({ length: 16 }, (_, i) => ({ name: `C${i}`, value: 'v' })), 'additional_info', /hasta 15 elementos/],
    ];
    for (const [at, value, field, message] of cases) {
      const errors = refusals(changed(at, value));
      expect(errors[field], `${field} ← ${JSON.stringify(value)?.slice(0, 40)}`).toEqual([expect.stringMatching(message)]);
    }
  });

  it('refuses a recipient that names its invoice twice', () => {
    const body = withBody((b) => {
      b.recipients[0]!.invoice_id = 'inv_01J9';
      b.recipients[0]!.support_document = { type: '01', numero: '001-001-000000123', issue_date: '2026-03-09' };
    });
    expect(refusals(body)).toEqual({ 'recipients[0].invoice_id': [expect.stringMatching(/una sola vez: invoice_id .* o support_document/)] });
  });
});

describe('computeRemissionGuide', () => {
  it('computes the guide: the SRI id codes, the goods, a support document, an invoice id kept for the caller', () => {
    const guide = computed(withBody((b) => (b.recipients[0]!.invoice_id = 'inv_01J9')));
    expect(guide).toEqual({
      issueDate: '2026-03-10',
      establishment: '001',
      emissionPoint: '001',
      departureAddress: 'Bodega central, Av. Maldonado S12-34, Quito',
      carrier: { name: 'Transportes del Sur S.A.', taxId: '1790011674001', idType: 'ec-ruc', idTypeCode: '04' },
      plate: 'PBA-1234',
      transportStart: '2026-03-10',
      transportEnd: '2026-03-11',
      recipients: [
        expect.objectContaining({
          name: 'Juan Pérez',
          taxId: '1714307103',
          idType: 'ec-cedula',
          idTypeCode: '05',
          reason: 'Venta',
          invoiceId: 'inv_01J9',
          supportDocument: undefined,
          goods: [{ code: 'P-1', additionalCode: undefined, description: 'Cajas de papel bond A4', quantity: '10' }],
        }),
      ],
      additionalInfo: [],
    });
    const rich = computed(richBody());
    expect(rich.recipients[1]).toMatchObject({
      idTypeCode: '04',
      destinationEstablishment: '002',
      supportDocument: { codDoc: '01', numero: '001-002-000000045', issueDate: '2026-03-08', authorizationNumber: '1234567890', documentId: null },
    });
    expect(rich.recipients[1]!.goods).toHaveLength(3);
  });

  it('refuses a transport that ends before it starts, naming transport_end; the same day is fine', () => {
    expect(errorsOf(withBody((b) => ((b.transport_start = '2026-03-12'), (b.transport_end = '2026-03-11'))))).toEqual({
      transport_end: expect.stringMatching(/anterior al inicio del transporte \(transport_start, 2026-03-12\)/),
    });
    expect(computed(withBody((b) => (b.transport_end = b.transport_start))).transportEnd).toBe('2026-03-10');
    // A transport that started before the guide's date, or starts days later, is the issuer's business.
    expect(computed(withBody((b) => ((b.transport_start = '2026-03-08'), (b.transport_end = '2026-03-20')))).transportStart).toBe('2026-03-08');
  });

  it('refuses id types the catalog does not have, a final consumer as carrier, a code that is not the catalog’s, and an id that does not fit', () => {
    expect(errorsOf(withBody((b) => (b.carrier.tax_id_type = { type: 'ec-licencia', code: '09' })))).toEqual({
      'carrier.tax_id_type.type': expect.stringMatching(/ec-licencia no es un tipo de identificación del catálogo/),
    });
    expect(errorsOf(withBody((b) => (b.recipients[0]!.tax_id_type = { type: 'pe-dni', code: '1' })))).toEqual({
      'recipients[0].tax_id_type.type': expect.stringMatching(/pe-dni no es un tipo de identificación de destinatario de Ecuador/),
    });
    expect(errorsOf(withBody((b) => (b.carrier = { name: 'Consumidor final', tax_id: '9999999999999', tax_id_type: { type: 'ec-consumidor-final', code: '07' } })))).toEqual({
      'carrier.tax_id_type.type': expect.stringMatching(/el transportista debe identificarse/),
    });
    expect(errorsOf(withBody((b) => (b.carrier.tax_id_type.code = '04')))).toEqual({
      'carrier.tax_id_type.code': 'el código de ec-ruc en el catálogo es 06, no 04',
    });
    expect(errorsOf(withBody((b) => (b.recipients[0]!.tax_id = '1714307104')))).toEqual({
      'recipients[0].tax_id': expect.stringMatching(/dígito verificador/),
    });
    // A recipient may be the final consumer: the XSD writes only its id.
    const toConsumer = computed(withBody((b) => Object.assign(b.recipients[0]!, { tax_id: '9999999999999', tax_id_type: { type: 'ec-consumidor-final', code: '07' } })));
    expect(toConsumer.recipients[0]!.idTypeCode).toBe('07');
  });

  it('applies the invoice’s issue date rule', () => {
    expect(errorsOf(withBody((b) => (b.issue_date = '2026-03-11')))).toEqual({ issue_date: expect.stringMatching(/posterior a hoy en Ecuador \(2026-03-10\)/) });
    expect(errorsOf(withBody((b) => (b.issue_date = '2026-03-06')))).toEqual({ issue_date: expect.stringMatching(/tiene 4 días .*72 horas/) });
    expect(computed(withBody((b) => (b.issue_date = '2026-03-07'))).issueDate).toBe('2026-03-07');
  });

  it('refuses a support document dated in the future, or whose access key is another document’s', () => {
    const support = (doc: Partial<NonNullable<RemissionGuideBody['recipients'][number]['support_document']>>) =>
      withBody((b) => (b.recipients[0]!.support_document = { type: '01', numero: '001-001-000000123', issue_date: '2026-03-09', authorization_number: INVOICE_KEY, ...doc }));
    expect(computed(support({})).recipients[0]!.supportDocument?.authorizationNumber).toBe(INVOICE_KEY);
    const path = 'recipients[0].support_document.authorization_number';
    expect(errorsOf(support({ issue_date: '2026-03-08' }))).toEqual({ [path]: expect.stringMatching(/del 09\/03\/2026, no del 08\/03\/2026/) });
    expect(errorsOf(support({ numero: '001-001-000000124' }))).toEqual({ [path]: expect.stringMatching(/del comprobante 001-001-000000123, no del 001-001-000000124/) });
    expect(errorsOf(support({ type: '03' }))).toEqual({ [path]: expect.stringMatching(/de tipo 01, no 03/) });
    expect(errorsOf(support({ authorization_number: `${INVOICE_KEY.slice(0, 48)}${(Number(INVOICE_KEY[48]) + 1) % 10}` }))).toEqual({ [path]: expect.stringMatching(/dígito verificador/) });
    expect(errorsOf(support({ issue_date: '2026-03-11', authorization_number: undefined }))).toEqual({
      'recipients[0].support_document.issue_date': expect.stringMatching(/posterior a hoy en Ecuador/),
    });
  });

  it('bounds the goods of all recipients together', () => {
    const goods = Array.from({ length: 600 }, (_, i) => ({ code: `P-${i}`, description: 'Caja', quantity: '1' }));
    const body = withBody((b) => {
      b.recipients[0]!.goods = goods;
      b.recipients.push({ ...structuredClone(b.recipients[0]!), goods: structuredClone(goods) });
    });
    expect(refusals(body)).toEqual({});
    expect(errorsOf(body)).toEqual({ recipients: expect.stringMatching(/suman 1200 bienes .* hasta 1000/) });
  });
});

function numbering(who: Issuer, g: ComputedRemissionGuide, codDoc = '06'): Numbering {
  const secuencial = '000000007';
  const accessKey = accessKeyFor({ issueDate: g.issueDate, codDoc, ruc: who.ruc, ambiente: 1, establishment: g.establishment, emissionPoint: g.emissionPoint, secuencial, numericCode: '24681357' });
  return { ambiente: 1, secuencial, numero: `${g.establishment}-${g.emissionPoint}-${secuencial}`, accessKey };
}

function built(name: string, who: Issuer, g: ComputedRemissionGuide): { xml: string; root: Element } {
  const bytes = buildGuiaRemisionXml(who, g, numbering(who, g));
  const file = path.join(dir, `${name}.xml`);
  fs.writeFileSync(file, bytes);
  try {
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', XSD, file], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`${name}.xml does not validate against GuiaRemision_V1.1.0.xsd:\n${(err as { stderr?: Buffer }).stderr?.toString() ?? String(err)}`);
  }
  const xml = bytes.toString('utf8');
  return { xml, root: new DOMParser().parseFromString(xml, 'text/xml').documentElement! };
}

const textOf = (root: Element, tag: string) => root.getElementsByTagName(tag)[0]?.textContent;
const childNames = (e: Element) => [...e.childNodes].filter((n): n is Element => n.nodeType === 1).map((n) => n.tagName);

describe('buildGuiaRemisionXml', () => {
  it('writes a minimal guiaRemision 1.1.0 the XSD accepts: one recipient, one good, no optional element', () => {
    const { xml, root } = built('minimal', issuer(), computed(validBody()));
    expect(root.tagName).toBe('guiaRemision');
    expect(root.getAttribute('version')).toBe('1.1.0');
    expect(textOf(root, 'codDoc')).toBe('06');
    const info = root.getElementsByTagName('infoGuiaRemision')[0]!;
    expect(childNames(info)).toEqual([
      'dirEstablecimiento', 'dirPartida', 'razonSocialTransportista', 'tipoIdentificacionTransportista', 'rucTransportista',
      'obligadoContabilidad', 'fechaIniTransporte', 'fechaFinTransporte', 'placa',
    ]);
    expect(textOf(info, 'tipoIdentificacionTransportista')).toBe('04');
    expect(textOf(info, 'fechaIniTransporte')).toBe('10/03/2026');
    expect(textOf(info, 'fechaFinTransporte')).toBe('11/03/2026');
    expect(childNames(root.getElementsByTagName('destinatario')[0]!)).toEqual(['identificacionDestinatario', 'razonSocialDestinatario', 'dirDestinatario', 'motivoTraslado', 'detalles']);
    expect(childNames(root.getElementsByTagName('detalle')[0]!)).toEqual(['codigoInterno', 'descripcion', 'cantidad']);
    expect(xml).not.toMatch(/<infoAdicional>|<fechaEmision>|<rise>|<maquinaFiscal>/);
    // The access key is dated by the guide's issue date (it has no fechaEmision element).
    expect(textOf(root, 'claveAcceso')!.slice(0, 10)).toBe('1003202606');
  });

  it('stays valid with two recipients, support documents, routes, several goods, escaped characters and a special taxpayer', () => {
    const who = issuer({ contribuyente_especial: '5368', agente_retencion: '1', regimen: 'rimpe_emprendedor', obligado_contabilidad: false });
    const { xml, root } = built('rich', who, computed(richBody()));
    const info = root.getElementsByTagName('infoGuiaRemision')[0]!;
    expect(childNames(info).slice(5, 7)).toEqual(['obligadoContabilidad', 'contribuyenteEspecial']);
    expect(textOf(info, 'obligadoContabilidad')).toBe('NO');
    const [first, second] = [...root.getElementsByTagName('destinatario')];
    expect(childNames(first!)).toEqual([
      'identificacionDestinatario', 'razonSocialDestinatario', 'dirDestinatario', 'motivoTraslado', 'ruta',
      'codDocSustento', 'numDocSustento', 'numAutDocSustento', 'fechaEmisionDocSustento', 'detalles',
    ]);
    expect(textOf(first!, 'numAutDocSustento')).toBe(INVOICE_KEY);
    expect(textOf(first!, 'fechaEmisionDocSustento')).toBe('09/03/2026');
    expect(childNames(second!)).toEqual([
      'identificacionDestinatario', 'razonSocialDestinatario', 'dirDestinatario', 'motivoTraslado', 'docAduaneroUnico', 'codEstabDestino', 'ruta',
      'codDocSustento', 'numDocSustento', 'numAutDocSustento', 'fechaEmisionDocSustento', 'detalles',
    ]);
    expect(textOf(second!, 'razonSocialDestinatario')).toBe('Distribuidora Ñandú & Cía. <Sucursal Sur>');
    expect(second!.getElementsByTagName('detalle')).toHaveLength(3);
    expect(textOf(first!, 'codigoAdicional')).toBe('EAN-7861234567890');
    expect(textOf(first!.getElementsByTagName('detalle')[1]!, 'descripcion')).toBe('Tóner <negro> "original" & sellado');
    expect(xml).toContain('Distribuidora Ñandú &amp; Cía. &lt;Sucursal Sur&gt;');
    const campos = [...root.getElementsByTagName('campoAdicional')].map((c) => [c.getAttribute('nombre'), c.textContent]);
    expect(campos).toEqual([['Orden de despacho', 'OD-2026-0042'], ['Chofer', 'Luis "Lucho" Andrade & hijos']]);
  });

  it('refuses an access key of another type, and an invoice id nobody resolved', () => {
    const guide = computed(validBody());
    expect(() => buildGuiaRemisionXml(issuer(), guide, numbering(issuer(), guide, '01'))).toThrow(/access key .* does not match/);
    const unresolved = computed(withBody((b) => (b.recipients[0]!.invoice_id = 'inv_01J9')));
    expect(() => buildGuiaRemisionXml(issuer(), unresolved, numbering(issuer(), unresolved))).toThrow(/inv_01J9 must be resolved/);
    const resolved: ComputedRemissionGuide = {
      ...unresolved,
      recipients: [{ ...unresolved.recipients[0]!, supportDocument: { codDoc: '01', numero: '001-001-000000123', issueDate: '2026-03-09', authorizationNumber: INVOICE_KEY, documentId: 'inv_01J9' } }],
    };
    expect(textOf(built('resolved', issuer(), resolved).root, 'numDocSustento')).toBe('001-001-000000123');
  });
});
