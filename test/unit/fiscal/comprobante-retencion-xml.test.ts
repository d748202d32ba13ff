/**
 * The comprobanteRetencion 2.0.0 XML (core/fiscal/sri/comprobante-retencion-xml.ts): valid
 * against the SRI's XSD with xmllint for a supplier with RUC and one with cédula, names with
 * accents, ñ and `&`; signed with Sello's XAdES-BES signer and checked by xmlsec1 and
 * verifyXadesBes; and what the XSD would refuse (a compute error) thrown before it is written.
 */
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { softwareKeySource } from '../../../core/signing/key-sources/index.js';
import { accessKeyFor, COD_DOC } from '../../../core/fiscal/sri/access-key.js';
import { buildComprobanteRetencionXml } from '../../../core/fiscal/sri/comprobante-retencion-xml.js';
import type { Issuer, Numbering } from '../../../core/fiscal/sri/invoice-model.js';
import type { ComputedWithholding } from '../../../core/fiscal/sri/withholding-model.js';
import { signXadesBes, verifyXadesBes, xmlSignerFrom } from '../../../core/xml/index.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';
import { xmllint, xmlsec1 } from '../../helpers/xml-tools.js';
import { issuer } from './invoice-fixtures.js';

const XSD = 'ComprobanteRetencion_V2.0.0.xsd';
const SUPPLIER_RUC = '1790011674001';

/** The supplier's factura 001-002-000004567 of 2026-03-06: its access key is the authorization. */
const SUPPORT_KEY = accessKeyFor({ issueDate: '2026-03-06', codDoc: COD_DOC.factura, ruc: SUPPLIER_RUC, ambiente: 1, establishment: '001', emissionPoint: '002', secuencial: '000004567', numericCode: '24681357' });

/**
 * A withholding on a factura of 100.00 + IVA 15 % (15.00) = 115.00: renta 312 at 1.75 % of the
 * subtotal (1.75) and IVA code 1 at 30 % of the IVA (4.50), 6.25 withheld.
 */
function withholding(change: (w: ComputedWithholding) => void = () => {}): ComputedWithholding {
  const w: ComputedWithholding = {
    issueDate: '2026-03-10',
    establishment: '001',
    emissionPoint: '002',
    currency: 'USD',
    fiscalPeriod: '03/2026',
    subject: { name: 'Ñandú & Compañía Constructora Cía. Ltda.', taxId: SUPPLIER_RUC, idType: 'ec-ruc', idTypeCode: '04', relatedParty: false },
    support: {
      purchaseId: 'pur_01',
      supportCode: '01',
      codDoc: '01',
      numero: '001-002-000004567',
      issueDate: '2026-03-06',
      authorizationNumber: SUPPORT_KEY,
      paymentLocation: '01',
      totalWithoutTaxes: '100.00',
      grandTotal: '115.00',
      taxes: [{ codigo: '2', codigoPorcentaje: '4', baseImponible: '100.00', tarifa: '15', valor: '15.00' }],
      payments: [{ method: '20', amount: '115.00' }],
    },
    lines: [
      { tax: 'renta', code: '312', base: '100.00', rate: '1.75', amount: '1.75' },
      { tax: 'iva', code: '1', base: '15.00', rate: '30', amount: '4.50' },
    ],
    totalWithheld: '6.25',
    additionalInfo: [{ name: 'Observación', value: 'Retención de la compra de cemento & varillas' }],
  };
  change(w);
  return w;
}

function numbering(who: Issuer, w: ComputedWithholding, codDoc: string = COD_DOC.comprobanteRetencion): Numbering {
  const secuencial = '000000017';
  const accessKey = accessKeyFor({ issueDate: w.issueDate, codDoc, ruc: who.ruc, ambiente: 1, establishment: w.establishment, emissionPoint: w.emissionPoint, secuencial, numericCode: '13572468' });
  return { ambiente: 1, secuencial, numero: `${w.establishment}-${w.emissionPoint}-${secuencial}`, accessKey };
}

/** The XML of `w`, after xmllint accepted it against the XSD. */
function built(who: Issuer, w: ComputedWithholding): { bytes: Buffer; root: Element } {
  const bytes = buildComprobanteRetencionXml(who, w, numbering(who, w));
  const schema = xmllint(bytes, XSD);
  expect(schema.ok, schema.output).toBe(true);
  return { bytes, root: new DOMParser().parseFromString(bytes.toString('utf8'), 'text/xml').documentElement! };
}

const text = (root: Element, tag: string, i = 0) => root.getElementsByTagName(tag)[i]?.textContent;
const children = (e: Element) => [...(e.childNodes as unknown as Iterable<Element>)].filter((n) => n.nodeType === 1);
/** Each element named `tag` as [child name, text] pairs, in document order. */
const rows = (root: Element, tag: string) => [...root.getElementsByTagName(tag)].map((e) => children(e).map((c) => [c.tagName, c.textContent]));

describe('buildComprobanteRetencionXml', () => {
  it('writes a comprobanteRetencion 2.0.0 the XSD accepts: the supplier, the factura, its taxes, the withholdings and payments', () => {
    const who = issuer({ contribuyente_especial: '5368' });
    const w = withholding();
    const { bytes, root } = built(who, w);
    expect(bytes.toString('utf8')).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<comprobanteRetencion id="comprobante" version="2.0.0"><infoTributaria>/);
    expect(text(root, 'codDoc')).toBe('07');
    expect(text(root, 'claveAcceso')).toBe(numbering(who, w).accessKey);
    expect(text(root, 'claveAcceso')?.slice(8, 10)).toBe('07');
    const [info] = rows(root, 'infoCompRetencion');
    expect(info).toEqual([
      ['fechaEmision', '10/03/2026'],
      ['dirEstablecimiento', 'Av. Amazonas N34-451, Quito'],
      ['contribuyenteEspecial', '5368'],
      ['obligadoContabilidad', 'SI'],
      ['tipoIdentificacionSujetoRetenido', '04'],
      ['parteRel', 'NO'],
      ['razonSocialSujetoRetenido', 'Ñandú & Compañía Constructora Cía. Ltda.'],
      ['identificacionSujetoRetenido', SUPPLIER_RUC],
      ['periodoFiscal', '03/2026'],
    ]);
    const [doc] = [...root.getElementsByTagName('docSustento')];
    expect(root.getElementsByTagName('docSustento')).toHaveLength(1);
    expect(children(doc!).map((c) => c.tagName)).toEqual([
      'codSustento', 'codDocSustento', 'numDocSustento', 'fechaEmisionDocSustento', 'numAutDocSustento', 'pagoLocExt',
      'totalSinImpuestos', 'importeTotal', 'impuestosDocSustento', 'retenciones', 'pagos',
    ]);
    expect(text(doc!, 'numDocSustento')).toBe('001002000004567');
    expect(text(doc!, 'fechaEmisionDocSustento')).toBe('06/03/2026');
    expect(text(doc!, 'numAutDocSustento')).toBe(SUPPORT_KEY);
    expect(text(doc!, 'totalSinImpuestos')).toBe('100.00');
    expect(text(doc!, 'importeTotal')).toBe('115.00');
    expect(rows(root, 'impuestoDocSustento')).toEqual([
      [['codImpuestoDocSustento', '2'], ['codigoPorcentaje', '4'], ['baseImponible', '100.00'], ['tarifa', '15'], ['valorImpuesto', '15.00']],
    ]);
    expect(rows(root, 'retencion')).toEqual([
      [['codigo', '1'], ['codigoRetencion', '312'], ['baseImponible', '100.00'], ['porcentajeRetener', '1.75'], ['valorRetenido', '1.75']],
      [['codigo', '2'], ['codigoRetencion', '1'], ['baseImponible', '15.00'], ['porcentajeRetener', '30'], ['valorRetenido', '4.50']],
    ]);
    expect(rows(root, 'pago')).toEqual([[['formaPago', '20'], ['total', '115.00']]]);
    expect(root.getElementsByTagName('campoAdicional')[0]?.getAttribute('nombre')).toBe('Observación');
    expect(text(root, 'campoAdicional')).toBe('Retención de la compra de cemento & varillas');
    expect(bytes.toString('utf8')).toContain('Ñandú &amp; Compañía');
    expect(bytes.toString('utf8')).not.toMatch(/tipoSujetoRetenido|maquinaFiscal|<infoAdicional\/>/);
  });

  it('stays valid for a related supplier with cédula, an ISD at 5 %, several taxes and payments, no additional info and no contribuyente especial', () => {
    const w = withholding((x) => {
      x.subject = { name: 'José Peñaherrera <Ayala> & Hijos', taxId: '1712345675', idType: 'ec-cedula', idTypeCode: '05', relatedParty: true };
      x.support.taxes = [
        { codigo: '2', codigoPorcentaje: '4', baseImponible: '80.00', tarifa: '15', valor: '12.00' },
        { codigo: '2', codigoPorcentaje: '0', baseImponible: '20.00', tarifa: '0', valor: '0.00' },
      ];
      x.support.grandTotal = '112.00';
      x.support.payments = [{ method: '01', amount: '12.00' }, { method: '19', amount: '100.00' }];
      x.lines = [
        { tax: 'renta', code: '3440', base: '100.00', rate: '2.75', amount: '2.75' },
        { tax: 'iva', code: '3', base: '12.00', rate: '100', amount: '12.00' },
        { tax: 'isd', code: '4580', base: '100.00', rate: '5', amount: '5.00' },
      ];
      x.totalWithheld = '19.75';
      x.additionalInfo = [];
    });
    const { bytes, root } = built(issuer({ obligado_contabilidad: false, regimen: 'rimpe_emprendedor' }), w);
    expect(text(root, 'tipoIdentificacionSujetoRetenido')).toBe('05');
    expect(text(root, 'parteRel')).toBe('SI');
    expect(text(root, 'obligadoContabilidad')).toBe('NO');
    expect(text(root, 'razonSocialSujetoRetenido')).toBe('José Peñaherrera <Ayala> & Hijos');
    expect(text(root, 'identificacionSujetoRetenido')).toBe('1712345675');
    expect(text(root, 'contribuyenteRimpe')).toBe('CONTRIBUYENTE RÉGIMEN RIMPE');
    expect(rows(root, 'retencion').map((r) => r.map(([, v]) => v).join(' '))).toEqual(['1 3440 100.00 2.75 2.75', '2 3 12.00 100 12.00', '6 4580 100.00 5 5.00']);
    expect(root.getElementsByTagName('impuestoDocSustento')).toHaveLength(2);
    expect(rows(root, 'pago')).toEqual([[['formaPago', '01'], ['total', '12.00']], [['formaPago', '19'], ['total', '100.00']]]);
    const xml = bytes.toString('utf8');
    expect(xml).not.toMatch(/contribuyenteEspecial|infoAdicional/);
    expect(xml).toContain('José Peñaherrera &lt;Ayala&gt; &amp; Hijos');
  });

  it('writes a passport and a foreign id without tipoSujetoRetenido, which the XSD leaves optional', () => {
    for (const [idTypeCode, taxId] of [['06', 'X1234567'], ['08', 'DE811569869']] as const) {
      const { root } = built(issuer(), withholding((x) => (x.subject = { name: 'Müller GmbH', taxId, idType: 'ec-exterior', idTypeCode, relatedParty: false })));
      expect(text(root, 'tipoIdentificacionSujetoRetenido')).toBe(idTypeCode);
      expect(root.getElementsByTagName('tipoSujetoRetenido')).toHaveLength(0);
    }
  });

  it('writes percentages without trailing zeros; the XSD itself refuses one of more than three digits', () => {
    const { root } = built(issuer(), withholding((w) => {
      w.lines[1]!.rate = '30.00';
      w.support.taxes[0]!.tarifa = '015.0';
    }));
    expect(text(root, 'porcentajeRetener', 1)).toBe('30');
    expect(text(root, 'tarifa')).toBe('15');
    // What the builder refuses below, judged by xmllint: 12.55 has four digits.
    const good = buildComprobanteRetencionXml(issuer(), withholding(), numbering(issuer(), withholding()));
    const tampered = Buffer.from(good.toString('utf8').replace('<porcentajeRetener>30</porcentajeRetener>', '<porcentajeRetener>12.55</porcentajeRetener>'));
    expect(tampered.equals(good)).toBe(false);
    expect(xmllint(tampered, XSD).ok).toBe(false);
  });

  it('refuses what the XSD (or the SRI) would: a programming error of the compute step, never written', () => {
    const who = issuer();
    const refused = (change: (w: ComputedWithholding) => void, message: RegExp, by: Issuer = who) => {
      const w = withholding(change);
      expect(() => buildComprobanteRetencionXml(by, w, numbering(by, w))).toThrow(message);
    };
    refused((w) => (w.lines[1]!.rate = '12.55'), /porcentajeRetener must have three digits at most/);
    refused((w) => (w.lines[1]!.rate = '100.5'), /porcentajeRetener must have three digits at most/);
    refused((w) => (w.lines[0]!.rate = '1.755'), /porcentajeRetener must have three digits at most/);
    refused((w) => (w.lines[0]!.rate = '1000'), /porcentajeRetener must have three digits at most/);
    refused((w) => (w.lines[0]!.rate = '-1'), /porcentajeRetener must have three digits at most/);
    refused((w) => (w.support.taxes[0]!.tarifa = '15.005'), /tarifa must have three digits at most/);
    refused((w) => (w.lines[0]!.amount = '-1.75'), /valorRetenido must be a non-negative amount/);
    refused((w) => (w.lines[0]!.amount = '1.755'), /valorRetenido must be a non-negative amount/);
    refused((w) => (w.lines[0]!.code = '312456'), /codigoRetencion must be 1–5 characters/);
    refused((w) => (w.lines = []), /at least one retencion/);
    refused((w) => (w.support.payments = []), /at least one payment/);
    refused((w) => (w.support.payments[0]!.method = '22'), /formaPago must be 01–21/);
    refused((w) => (w.support.taxes = []), /at least one tax/);
    refused((w) => (w.support.taxes[0]!.codigo = '4'), /codImpuestoDocSustento/);
    refused((w) => (w.support.numero = '001-002-4567'), /support document number must be 000-000-000000000/);
    refused((w) => (w.support.authorizationNumber = '123'), /numAutDocSustento must be 10–49 digits/);
    refused((w) => (w.support.issueDate = '1999-12-31'), /support document date must be a date of the 2000s/);
    refused((w) => (w.fiscalPeriod = '2026-03'), /periodoFiscal must be MM\/20YY/);
    refused((w) => (w.subject = { ...w.subject, idTypeCode: '07', taxId: '9999999999999' }), /never as a consumidor final/);
    refused((w) => (w.subject.name = 'Línea uno\nLínea dos'), /withheld subject name must be 1–300 characters on one line/);
    refused((w) => (w.lines[0]!.tax = 'ice' as never), /withheld tax ice/);
    // infoTributaria would take a 13-character resolution; this XSD takes five.
    refused(() => {}, /contribuyente_especial must be 3–5/, issuer({ contribuyente_especial: '536800' }));
  });

  it('refuses an access key of another type', () => {
    const w = withholding();
    expect(() => buildComprobanteRetencionXml(issuer(), w, numbering(issuer(), w, COD_DOC.factura))).toThrow(/access key .* does not match/);
  });
});

describe('a signed comprobanteRetencion 2.0.0', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await createTestPki();
  });
  afterAll(() => pki.cleanup());

  it('is signed by Sello’s XAdES-BES signer into a document that xmllint, xmlsec1 and verifyXadesBes accept, its values intact', async () => {
    const signer = xmlSignerFrom(softwareKeySource({ key: pki.leaf.privateKey, certificate: pki.leaf.certificate, chain: pki.leaf.chain }));
    const who = issuer({ contribuyente_especial: '5368' });
    const w = withholding();
    const unsigned = buildComprobanteRetencionXml(who, w, numbering(who, w));
    const signed = await signXadesBes(unsigned, signer);

    const schema = xmllint(signed, XSD);
    expect(schema.ok, schema.output).toBe(true);
    const dsig = xmlsec1(signed, 'comprobanteRetencion');
    expect(dsig.ok, dsig.output).toBe(true);
    expect(dsig.output).toMatch(/^OK$/m);
    expect(verifyXadesBes(signed)).toMatchObject({ valid: true });

    const xml = signed.toString('utf8');
    expect(xml).toMatch(/<\/docsSustento><infoAdicional>.*<\/infoAdicional><ds:Signature [^>]*>.*<\/ds:Signature><\/comprobanteRetencion>\n?$/s);
    // The signature only goes in before the root's end tag: every byte before it as built.
    const before = unsigned.toString('utf8');
    const end = before.lastIndexOf('</comprobanteRetencion>');
    expect(xml.slice(0, end)).toBe(before.slice(0, end));
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
    expect(text(root, 'razonSocialSujetoRetenido')).toBe('Ñandú & Compañía Constructora Cía. Ltda.');
    expect(rows(root, 'retencion').map((r) => r.map(([, v]) => v).join(' '))).toEqual(['1 312 100.00 1.75 1.75', '2 1 15.00 30 4.50']);

    // One changed digit of a withheld value and the signature no longer holds.
    const forged = Buffer.from(xml.replace('<valorRetenido>4.50</valorRetenido>', '<valorRetenido>4.05</valorRetenido>'));
    expect(forged.equals(signed)).toBe(false);
    expect(verifyXadesBes(forged).valid).toBe(false);
    expect(xmlsec1(forged, 'comprobanteRetencion').ok).toBe(false);
  });
});
