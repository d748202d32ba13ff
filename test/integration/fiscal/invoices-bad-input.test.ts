/**
 * Issue 16, "Bad input that must get a clear error and change nothing", for invoices: every
 * refusal is a 422 (or the transport's 400/415) in the fiscal envelope with Spanish messages by
 * field path; it writes no document, no submission, no idempotency key, takes no number and
 * sends nothing to the SRI — the next accepted invoice gets the next secuencial.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecuadorDate } from '../../../core/fiscal/sri/index.js';
import { fiscalHeaders } from '../../helpers/documents.js';
import { startInvoiceRig, type InvoiceRig } from '../../helpers/invoices.js';

let rig: InvoiceRig;

beforeAll(async () => {
  rig = await startInvoiceRig();
});

afterAll(async () => {
  await rig?.close();
});

/** What a refused request must leave untouched. */
function footprint(): string {
  const db = rig.agent.store.sqlite;
  return JSON.stringify([
    db.prepare('select * from documents order by rowid').all(),
    db.prepare('select * from fiscal_sequences order by rowid').all(),
    db.prepare('select document_id from fiscal_submissions order by rowid').all(),
    db.prepare('select scope, key, state from idempotency_keys order by rowid').all(),
  ]);
}

let ref = 0;
const nextRef = () => `MAL-${++ref}`;
let lastNumber = 0;

/** Posts `body`; expects `status` and that nothing changed; returns the error envelope. */
async function refused(body: unknown, status = 422, key?: string): Promise<{ error: { code: string; message: string }; errors?: Record<string, string[]> }> {
  const before = footprint();
  const calls = rig.sri.calls.length;
  const res = await rig.post(body, key);
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(footprint()).toBe(before);
  expect(rig.sri.calls.length).toBe(calls);
  return res.json as { error: { code: string; message: string }; errors?: Record<string, string[]> };
}

/** An accepted invoice takes the very next number. */
async function acceptedNext(): Promise<void> {
  const res = await rig.post(rig.invoiceBody(nextRef()));
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  const n = Number(res.json.data!.numero.slice(8));
  expect(n).toBe(lastNumber + 1);
  lastNumber = n;
  // Settled, so that the footprints of the refusals that follow see nothing moving.
  expect((await rig.waitForStatus(res.json.data!.id, ['authorized', 'rejected', 'failed'])).status).toBe('authorized');
}

const daysAgo = (n: number) => ecuadorDate(new Date(Date.now() - n * 86_400_000));

describe('refused invoices take no number and reach nothing', () => {
  it('a first accepted invoice is number 1', async () => {
    await acceptedNext();
    expect(lastNumber).toBe(1);
  });

  it('the body: each field path named, in Spanish', async () => {
    const body = rig.invoiceBody(nextRef(), { currency: 'EUR', colour: 'azul' }) as { lines: Array<Record<string, unknown>>; customer: Record<string, unknown> };
    body.lines[0]!.unit_price = 50;
    body.lines[1]!.quantity = '0';
    delete body.customer.name;
    const { error, errors } = await refused(body);
    expect(error.code).toBe('validation_failed');
    expect(errors!['lines[0].unit_price']![0]).toMatch(/texto.*"10.25"/);
    expect(errors!['lines[1].quantity']![0]).toMatch(/mayor que cero/);
    expect(errors!['customer.name']![0]).toBe('es obligatorio');
    expect(errors!.currency![0]).toMatch(/USD/);
    expect(errors!.colour![0]).toBe('campo no admitido');
    await acceptedNext();
  });

  it('a stated grand_total that disagrees names grand_total with Sello’s figure', async () => {
    const { errors } = await refused(rig.invoiceBody(nextRef(), { grand_total: '136.00' }));
    expect(errors!.grand_total![0]).toMatch(/135\.00.*136\.00/);
  });

  it('payments that do not add up to the total name payments', async () => {
    const { errors } = await refused(rig.invoiceBody(nextRef(), { payments: [{ method: '20', amount: '100.00' }] }));
    expect(errors!.payments![0]).toMatch(/100\.00.*135\.00/);
  });

  it('an unknown tax type and an unknown IdType', async () => {
    const body = rig.invoiceBody(nextRef()) as { lines: Array<{ taxes: Array<{ type: string }> }>; customer: { tax_id_type: { type: string; code: string } } };
    body.lines[0]!.taxes[0]!.type = 'ec-iva-99';
    const tax = await refused(body);
    expect(tax.errors!['lines[0].taxes[0].type']![0]).toMatch(/ec-iva-99.*catálogo/);
    const idType = rig.invoiceBody(nextRef()) as typeof body;
    idType.customer.tax_id_type = { type: 'ec-licencia', code: '05' };
    expect((await refused(idType)).errors!['customer.tax_id_type.type']![0]).toMatch(/ec-licencia/);
    const wrongCode = rig.invoiceBody(nextRef()) as typeof body;
    wrongCode.customer.tax_id_type = { type: 'ec-cedula', code: '04' };
    expect((await refused(wrongCode)).errors!['customer.tax_id_type.code']![0]).toMatch(/05/);
    await acceptedNext();
  });

  it('a cédula or a RUC with a wrong check digit, and an id that does not fit its type', async () => {
    const cedula = rig.invoiceBody(nextRef(), {
      customer: { name: 'Juan Pérez', tax_id: '1714307104', tax_id_type: { type: 'ec-cedula', code: '05' } },
    });
    expect((await refused(cedula)).errors!['customer.tax_id']![0]).toMatch(/verificador/);
    const ruc = rig.invoiceBody(nextRef(), {
      customer: { name: 'Juan Pérez', tax_id: '1714307104001', tax_id_type: { type: 'ec-ruc', code: '06' } },
    });
    expect((await refused(ruc)).errors!['customer.tax_id']![0]).toMatch(/verificador/);
    const shape = rig.invoiceBody(nextRef(), {
      customer: { name: 'Juan Pérez', tax_id: '17143071', tax_id_type: { type: 'ec-cedula', code: '05' } },
    });
    expect((await refused(shape)).errors!['customer.tax_id']![0]).toMatch(/10 dígitos/);
    await acceptedNext();
  });

  it('a date in the future, or too old for the SRI', async () => {
    const future = await refused(rig.invoiceBody(nextRef(), { issue_date: daysAgo(-2) }));
    expect(future.errors!.issue_date![0]).toMatch(/futura/);
    const old = await refused(rig.invoiceBody(nextRef(), { issue_date: daysAgo(10) }));
    expect(old.errors!.issue_date![0]).toMatch(/72 horas/);
    await acceptedNext();
  });

  it('an establishment or emission point the issuer does not have', async () => {
    expect((await refused(rig.invoiceBody(nextRef(), { establishment: '009' }))).errors!.establishment![0]).toMatch(/009/);
    expect((await refused(rig.invoiceBody(nextRef(), { emission_point: '007' }))).errors!.emission_point![0]).toMatch(/007/);
  });

  it('a book and environment without issuer: 422 emisor_not_configured', async () => {
    // The rig configured only the test issuer: the live environment has none.
    const { error } = await refused(rig.invoiceBody(nextRef()), 422, rig.agent.liveKey);
    expect(error.code).toBe('emisor_not_configured');
    expect(error.message).toMatch(/producción/);
  });

  it('the same external_ref with another body: 422 naming external_ref; the same body: the first answer, replayed', async () => {
    const body = rig.invoiceBody(nextRef());
    const first = await rig.post(body);
    expect(first.status).toBe(201);
    lastNumber++;
    await rig.waitForStatus(first.json.data!.id, ['authorized']);
    const again = await rig.post(body);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json).toEqual(first.json);
    const other = await refused({ ...body, additional_info: [{ name: 'Orden', value: 'OC-8' }] });
    expect(other.error.code).toBe('validation_failed');
    expect(other.errors!.external_ref![0]).toMatch(/otro contenido/);
    // The same reference given to a manual document of POST /api/v1/documents is the same conflict.
    const res = await rig.agent.fetch('/api/v1/documents', {
      method: 'POST',
      headers: fiscalHeaders(rig.agent.testKey),
      body: JSON.stringify({ external_ref: body.external_ref, country: 'EC', doc_type: 'invoice', numero: '001-001-000000999', issue_date: '2026-03-31', currency: 'USD', grand_total: '1.00' }),
    });
    expect(res.status).toBe(422);
    await acceptedNext();
  });

  it('an issuer certificate that expired since it was configured: 422, no number', async () => {
    const db = rig.agent.store.sqlite;
    const { not_after } = db.prepare('select not_after from certificates where id = ?').get(rig.testCertificateId) as { not_after: string };
    db.prepare('update certificates set not_after = ? where id = ?').run('2020-01-01T00:00:00.000Z', rig.testCertificateId);
    try {
      const { error } = await refused(rig.invoiceBody(nextRef()));
      expect(error.code).toBe('certificate_expired');
      expect(error.message).toMatch(/Certificado del emisor.*caduc/);
    } finally {
      db.prepare('update certificates set not_after = ? where id = ?').run(not_after, rig.testCertificateId);
    }
    await acceptedNext();
  });

  it('transport: not JSON 400, another content type 415', async () => {
    await refused('{"external_ref": ', 400);
    const before = footprint();
    const res = await rig.agent.fetch('/api/v1/invoices', { method: 'POST', headers: { Authorization: `Bearer ${rig.agent.testKey}`, 'Content-Type': 'text/plain' }, body: '{}' });
    expect(res.status).toBe(415);
    expect(footprint()).toBe(before);
  });

  it('numbers of accepted invoices have no gaps and every one is authorized', async () => {
    const rows = rig.agent.store.sqlite.prepare("select numero, status from documents where environment = 'test' order by numero").all() as Array<{ numero: string; status: string }>;
    expect(rows.map((r) => Number(r.numero.slice(8)))).toEqual(Array.from({ length: rows.length }, (_, i) => i + 1));
    for (const r of rows) {
      const id = (rig.agent.store.sqlite.prepare('select id from documents where numero = ? and environment = ?').get(r.numero, 'test') as { id: string }).id;
      expect((await rig.waitForStatus(id, ['authorized', 'rejected', 'failed'])).status).toBe('authorized');
    }
  });
});
