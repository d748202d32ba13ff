/**
 * The notaCredito 1.1.0 XML (core/fiscal/sri/nota-credito-xml.ts): valid against the SRI's XSD
 * with xmllint, in every variant a computed credit note can take (ICE, several rates, special
 * characters, a RIMPE issuer, campos adicionales), and refusing what would be a programming error.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { accessKeyFor } from '../../../core/fiscal/sri/access-key.js';
import { computeSale } from '../../../core/fiscal/sri/compute-invoice.js';
import type { InvoiceBody } from '../../../core/fiscal/sri/invoice-body.js';
import type { ComputedCreditNote, Issuer, Numbering } from '../../../core/fiscal/sri/invoice-model.js';
import { buildNotaCreditoXml } from '../../../core/fiscal/sri/nota-credito-xml.js';
import { repoRoot } from '../../helpers/cli.js';
import { NOW, catalogs, issuer, validBody, withBody } from './invoice-fixtures.js';

const XSD = path.join(repoRoot, 'test/fixtures/sri/xsd/NotaCredito_V1.1.0.xsd');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-nota-credito-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function note(body: InvoiceBody, reason = 'Devolución de mercadería'): ComputedCreditNote {
  const { payments: _p, ...sale } = body;
  const result = computeSale(sale, catalogs, NOW, 'la nota de crédito');
  if ('errors' in result) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  const { payments: _payments, tip: _tip, ...lines } = result.ok;
  return { ...lines, modified: { codDoc: '01', numero: '001-001-000000012', issueDate: '2026-03-02', documentId: null }, reason };
}

function numbering(who: Issuer, n: ComputedCreditNote, codDoc = '04'): Numbering {
  const secuencial = '000000007';
  const accessKey = accessKeyFor({ issueDate: n.issueDate, codDoc, ruc: who.ruc, ambiente: 1, establishment: n.establishment, emissionPoint: n.emissionPoint, secuencial, numericCode: '12345678' });
  return { ambiente: 1, secuencial, numero: `${n.establishment}-${n.emissionPoint}-${secuencial}`, accessKey };
}

function built(name: string, who: Issuer, n: ComputedCreditNote): { xml: string; root: Element } {
  const bytes = buildNotaCreditoXml(who, n, numbering(who, n));
  const file = path.join(dir, `${name}.xml`);
  fs.writeFileSync(file, bytes);
  try {
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', XSD, file], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`${name}.xml does not validate against NotaCredito_V1.1.0.xsd:\n${(err as { stderr?: Buffer }).stderr?.toString() ?? String(err)}`);
  }
  const xml = bytes.toString('utf8');
  return { xml, root: new DOMParser().parseFromString(xml, 'text/xml').documentElement! };
}

const text = (root: Element, tag: string) => root.getElementsByTagName(tag)[0]?.textContent;

describe('buildNotaCreditoXml', () => {
  it('writes a notaCredito 1.1.0 the XSD accepts, naming the modified invoice, the value and the reason', () => {
    const n = note(validBody());
    const { xml, root } = built('basic', issuer(), n);
    expect(root.tagName).toBe('notaCredito');
    expect(root.getAttribute('version')).toBe('1.1.0');
    expect(text(root, 'codDoc')).toBe('04');
    expect(text(root, 'codDocModificado')).toBe('01');
    expect(text(root, 'numDocModificado')).toBe('001-001-000000012');
    expect(text(root, 'fechaEmisionDocSustento')).toBe('02/03/2026');
    expect(text(root, 'valorModificacion')).toBe(n.grandTotal);
    expect(text(root, 'motivo')).toBe('Devolución de mercadería');
    // No payments, tip or total discount in a nota de crédito; a line's code is codigoInterno.
    expect(xml).not.toMatch(/<pagos>|<propina>|<totalDescuento>|<codigoPrincipal>/);
    expect(root.getElementsByTagName('codigoInterno').length).toBe(n.lines.length);
  });

  it('stays valid with ICE, several rates, a RIMPE issuer, escaped characters and 15 campos', () => {
    const body = withBody((b) => {
      b.customer.name = 'Ñandú & Cía. <"Los Andes">';
      b.lines = [
        { code: 'WH-750', description: 'Whisky <750 ml> & "añejo"', quantity: '2', unit_price: '15.000000', discount: '0.50', taxes: [{ type: 'ec-iva-15' }, { type: 'ec-ice-bebidas-alcoholicas', rate: '75', specific_amount: '1.20' }] },
        { code: 'SRV-2', description: 'Servicio a tarifa 5 %', quantity: '1', unit_price: '10', discount: '0', taxes: [{ type: 'ec-iva-5' }] },
        { code: 'LIB-3', description: 'Libro', quantity: '1', unit_price: '20', discount: '0', taxes: [{ type: 'ec-iva-0' }] },
      ];
      b.customer.email = 'compras@cliente.ec';
      b.customer.phone = '0991234567';
      b.additional_info = Array.from({ length: 13 }, (_, i) => ({ name: `Campo ${i}`, value: `valor ${i}` }));
    });
    const { root } = built('rich', issuer({ regimen: 'rimpe_emprendedor', agente_retencion: '1' }), note(body, 'Motivo con «comillas» & <signos>'));
    expect(text(root, 'razonSocialComprador')).toBe('Ñandú & Cía. <"Los Andes">');
    expect(text(root, 'motivo')).toBe('Motivo con «comillas» & <signos>');
    expect(text(root, 'contribuyenteRimpe')).toBe('CONTRIBUYENTE RÉGIMEN RIMPE');
    expect(root.getElementsByTagName('campoAdicional').length).toBe(15);
  });

  it('refuses an access key that is not the note’s (an invoice’s, say), and a malformed modified number', () => {
    const n = note(validBody());
    expect(() => buildNotaCreditoXml(issuer(), n, numbering(issuer(), n, '01'))).toThrow(/access key .* does not match/);
    expect(() => buildNotaCreditoXml(issuer(), { ...n, modified: { ...n.modified, numero: '1-1-12' } }, numbering(issuer(), n))).toThrow(/modified document number/);
    expect(() => buildNotaCreditoXml(issuer(), { ...n, reason: 'dos\nlíneas' }, numbering(issuer(), n))).toThrow(/motivo/);
  });
});
