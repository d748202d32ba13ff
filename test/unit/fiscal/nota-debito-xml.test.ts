/**
 * The notaDebito 1.0.0 XML (core/fiscal/sri/nota-debito-xml.ts), built from what
 * prepareDebitNote computes: valid against the SRI's XSD with xmllint, with reasons at several
 * rates, an ICE, payments or none, escaped characters; and what would be a programming error refused.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { accessKeyFor } from '../../../core/fiscal/sri/access-key.js';
import { computeSale } from '../../../core/fiscal/sri/compute-invoice.js';
import type { ComputedDebitNote, Issuer, Numbering } from '../../../core/fiscal/sri/invoice-model.js';
import { buildNotaDebitoXml } from '../../../core/fiscal/sri/nota-debito-xml.js';
import { repoRoot } from '../../helpers/cli.js';
import { NOW, catalogs, issuer, validBody } from './invoice-fixtures.js';

const XSD = path.join(repoRoot, 'test/fixtures/sri/xsd/NotaDebito_V1.0.0.xsd');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sello-nota-debito-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

type Reason = { reason: string; amount: string; taxes: Array<{ type: string; rate?: string; specific_amount?: string }> };

/** A debit note computed the way prepareDebitNote does: each reason a one-unit line. */
function note(reasons: Reason[], payments?: Array<{ method: string; amount: string }>): ComputedDebitNote {
  const { payments: _p, lines: _l, ...header } = validBody();
  const lines = reasons.map((r, i) => ({ code: String(i + 1), description: r.reason, quantity: '1', unit_price: r.amount, discount: '0.00', taxes: r.taxes }));
  const result = computeSale({ ...header, lines, ...(payments ? { payments } : {}) }, catalogs, NOW, 'la nota de débito');
  if ('errors' in result) throw new Error(`refused: ${JSON.stringify(result.errors)}`);
  const s = result.ok;
  return {
    issueDate: s.issueDate,
    establishment: s.establishment,
    emissionPoint: s.emissionPoint,
    currency: s.currency,
    customer: s.customer,
    reasons: s.lines.map((l, i) => ({ reason: reasons[i]!.reason, amount: l.subtotal, taxes: l.taxes })),
    totalWithoutTaxes: s.totalWithoutTaxes,
    taxTotals: s.taxTotals,
    grandTotal: s.grandTotal,
    payments: s.payments,
    additionalInfo: s.additionalInfo,
    modified: { codDoc: '01', numero: '001-001-000000012', issueDate: '2026-03-02', documentId: null },
  };
}

function numbering(who: Issuer, n: ComputedDebitNote, codDoc = '05'): Numbering {
  const secuencial = '000000003';
  const accessKey = accessKeyFor({ issueDate: n.issueDate, codDoc, ruc: who.ruc, ambiente: 1, establishment: n.establishment, emissionPoint: n.emissionPoint, secuencial, numericCode: '87654321' });
  return { ambiente: 1, secuencial, numero: `${n.establishment}-${n.emissionPoint}-${secuencial}`, accessKey };
}

function built(name: string, who: Issuer, n: ComputedDebitNote): { xml: string; root: Element } {
  const bytes = buildNotaDebitoXml(who, n, numbering(who, n));
  const file = path.join(dir, `${name}.xml`);
  fs.writeFileSync(file, bytes);
  try {
    execFileSync('xmllint', ['--noout', '--nonet', '--schema', XSD, file], { stdio: 'pipe' });
  } catch (err) {
    throw new Error(`${name}.xml does not validate against NotaDebito_V1.0.0.xsd:\n${(err as { stderr?: Buffer }).stderr?.toString() ?? String(err)}`);
  }
  const xml = bytes.toString('utf8');
  return { xml, root: new DOMParser().parseFromString(xml, 'text/xml').documentElement! };
}

const text = (root: Element, tag: string) => root.getElementsByTagName(tag)[0]?.textContent;
const SAMPLE: Reason[] = [
  { reason: 'Intereses por mora', amount: '0.66', taxes: [{ type: 'ec-iva-0' }] },
  { reason: 'Gastos de cobranza', amount: '15.65', taxes: [{ type: 'ec-iva-15' }] },
];

describe('buildNotaDebitoXml', () => {
  it('writes a notaDebito 1.0.0 the XSD accepts: the modified invoice, taxes per rate, valorTotal and the motivos', () => {
    const n = note(SAMPLE);
    expect(n.grandTotal).toBe('18.66'); // 0.66 + 15.65 + 15 % of 15.65 (2.35), as the SRI's own sample
    const { xml, root } = built('sample', issuer(), n);
    expect(root.tagName).toBe('notaDebito');
    expect(root.getAttribute('version')).toBe('1.0.0');
    expect(text(root, 'codDoc')).toBe('05');
    expect(text(root, 'numDocModificado')).toBe('001-001-000000012');
    expect(text(root, 'totalSinImpuestos')).toBe('16.31');
    expect(text(root, 'valorTotal')).toBe('18.66');
    const motivos = [...root.getElementsByTagName('motivo')].map((m) => [m.getElementsByTagName('razon')[0]!.textContent, m.getElementsByTagName('valor')[0]!.textContent]);
    expect(motivos).toEqual([['Intereses por mora', '0.66'], ['Gastos de cobranza', '15.65']]);
    expect(xml).not.toMatch(/<detalles>|<pagos>/);
  });

  it('stays valid with an ICE, payments, escaped characters and a RIMPE issuer', () => {
    const n = note(
      [
        { reason: 'Recargo <por> "reposición" & envío', amount: '10.00', taxes: [{ type: 'ec-iva-15' }, { type: 'ec-ice-bebidas-alcoholicas', rate: '75' }] },
        { reason: 'Intereses', amount: '1.00', taxes: [{ type: 'ec-iva-5' }] },
      ],
      [{ method: '20', amount: '21.18' }],
    );
    const { root } = built('rich', issuer({ regimen: 'rimpe_negocio_popular' }), n);
    expect(text(root, 'razon')).toBe('Recargo <por> "reposición" & envío');
    expect(text(root, 'formaPago')).toBe('20');
    expect(text(root, 'contribuyenteRimpe')).toBe('CONTRIBUYENTE NEGOCIO POPULAR - RÉGIMEN RIMPE');
  });

  it('refuses an access key of another type and a malformed modified number', () => {
    const n = note(SAMPLE);
    expect(() => buildNotaDebitoXml(issuer(), n, numbering(issuer(), n, '04'))).toThrow(/access key .* does not match/);
    expect(() => buildNotaDebitoXml(issuer(), { ...n, modified: { ...n.modified, numero: '001-001-12' } }, numbering(issuer(), n))).toThrow(/modified document number/);
  });
});
