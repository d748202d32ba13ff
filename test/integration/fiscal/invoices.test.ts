/**
 * `POST /api/v1/invoices` end to end (CONTRACT §15, issue 16 points 2 and 4): a real agent, an
 * issuer configured through `PUT /api/v1/issuer` with a real certificate, and the fake SRI,
 * which checks every comprobante it receives with xmllint (the SRI's XSD) and xmlsec1 (the
 * XAdES signature) and answers DEVUELTA to anything that fails. Webhooks go to a real HTTPS
 * receiver and are checked against the spec's body and the endpoint's secret.
 */
import { verify } from '@octokit/webhooks-methods';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyXadesBes } from '../../../core/xml/index.js';
import { sriMessages } from '../../helpers/fake-sri/index.js';
import { startWebhookRig, type InvoiceRig, type WebhookRig } from '../../helpers/invoices.js';
import type { Receiver } from '../../helpers/receiver.js';

const SECRET = 'un-secreto-de-webhooks';

let live: WebhookRig;
let rig: InvoiceRig;
let receiver: Receiver;

beforeAll(async () => {
  live = await startWebhookRig(SECRET);
  ({ rig, receiver } = live);
});

afterAll(async () => {
  await live?.close();
});

let ref = 0;
const nextRef = () => `ERP-${++ref}`;

/** Every comprobante the fake received for `accessKey` passed its checks (it answered RECIBIDA or a 43/70 of one it had). */
function receivedClean(accessKey: string): void {
  const calls = rig.sri.calls.filter((c) => c.service === 'recepcion' && c.accessKey === accessKey);
  expect(calls.length).toBeGreaterThan(0);
  for (const c of calls) {
    const codes = (c.answer?.mensajes ?? []).map((m) => m.identificador);
    expect(c.answer?.estado === 'RECIBIDA' || codes.every((code) => ['43', '70', '45'].includes(code)), JSON.stringify(c.answer)).toBe(true);
  }
}

describe('an invoice from POST to AUTORIZADO', () => {
  it('is numbered, signed, sent, authorized; its XML is the autorizacion holding the exact bytes sent', async () => {
    const { status, json, headers } = await rig.post(rig.invoiceBody(nextRef()));
    expect(status, JSON.stringify(json)).toBe(201);
    const doc = json.data!;
    expect(headers.get('location')).toBe(`/api/v1/invoices/${doc.id}`);
    expect(doc).toMatchObject({ doc_type: 'invoice', country: 'EC', status: 'pending', currency: 'USD', grand_total: '135.00', environment: 'test' });
    expect(doc.numero).toMatch(/^001-001-\d{9}$/);
    expect(doc.access_key).toMatch(/^\d{49}$/);
    expect(doc.access_key[23]).toBe('1'); // ambiente 1, pruebas: a test key

    const done = await rig.waitForStatus(doc.id, ['authorized', 'rejected', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    expect(done.authorization).toMatchObject({ status: 'AUTORIZADO', number: doc.access_key });
    receivedClean(doc.access_key);
    const sent = rig.sri.documents.get(doc.access_key)!;
    expect(sent.receptions).toBe(1);

    const xmlRes = await rig.agent.fetch(`/api/v1/invoices/${doc.id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.testKey}` } });
    expect(xmlRes.status).toBe(200);
    expect(xmlRes.headers.get('content-type')).toMatch(/application\/xml/);
    const xml = await xmlRes.text();
    expect(xml).toContain('<estado>AUTORIZADO</estado>');
    expect(xml).toContain(`<numeroAutorizacion>${doc.access_key}</numeroAutorizacion>`);
    const inner = /<comprobante><!\[CDATA\[([\s\S]*)\]\]><\/comprobante>/.exec(xml)?.[1];
    expect(inner).toBe(sent.xml);
    expect(verifyXadesBes(Buffer.from(inner!, 'utf8')).valid).toBe(true);
    // The §6 document is the same, with the same XML.
    const asDocument = await rig.agent.fetch(`/api/v1/documents/${doc.id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.testKey}` } });
    expect(await asDocument.text()).toBe(xml);

    // The read: document view, the computed invoice, the submission.
    const read = await rig.get(doc.id);
    expect(read.json.data).toMatchObject({ id: doc.id, status: 'authorized', sri: { state: 'authorized', last_error: null } });
    expect(read.json.data.invoice).toMatchObject({ subtotal: '120.00', grand_total: '135.00', customer: { tax_id: '1714307103', sri_id_code: '05' } });
  });

  it('answers 404 not_ready for the XML before the authorization', async () => {
    rig.sri.enqueue('autorizacion', { kind: 'en-proceso' }, { kind: 'en-proceso' }, { kind: 'en-proceso' });
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    const id = json.data!.id;
    await rig.waitForStatus(id, ['sent']);
    const res = await rig.agent.fetch(`/api/v1/invoices/${id}/xml`, { headers: { Authorization: `Bearer ${rig.agent.testKey}` } });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_ready');
    expect((await rig.waitForStatus(id, ['authorized'])).status).toBe('authorized');
  });

  it('a live invoice: ambiente 2, one document.authorized webhook whose body is the spec’s', async () => {
    const before = receiver.requests.length;
    const { status, json } = await rig.post(rig.invoiceBody(nextRef()), rig.agent.liveKey);
    expect(status, JSON.stringify(json)).toBe(201);
    const doc = json.data!;
    expect(doc.access_key[23]).toBe('2');
    await rig.waitForStatus(doc.id, ['authorized'], { key: rig.agent.liveKey });
    await receiver.waitFor((r) => r.length > before);
    await new Promise((r) => setTimeout(r, 200)); // nothing else comes
    const hooks = receiver.requests.slice(before);
    expect(hooks).toHaveLength(1);
    const hook = hooks[0]!;
    const raw = hook.rawBody.toString('utf8');
    expect(await verify(SECRET, raw, String(hook.headers['x-service-signature']))).toBe(true);
    const body = JSON.parse(raw) as { event: string; sent_at: string; document: Record<string, unknown> };
    expect(Object.keys(body).sort()).toEqual(['document', 'event', 'sent_at']);
    expect(body.event).toBe('document.authorized');
    expect(body.document).toEqual({
      id: doc.id,
      doc_type: 'invoice',
      numero: doc.numero,
      access_key: doc.access_key,
      status: 'authorized',
      issue_date: doc.issue_date,
      currency: 'USD',
      grand_total: '135.00',
      authorization: { status: 'AUTORIZADO', number: doc.access_key, date: expect.any(String) },
      failure_reason: null,
    });
  });

  it('test invoices emit no webhook', async () => {
    const before = receiver.requests.length;
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    await rig.waitForStatus(json.data!.id, ['authorized']);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.requests.length).toBe(before);
  });

  it('NO AUTORIZADO ends rejected with the SRI’s message; numbering goes on', async () => {
    const mensaje = sriMessages.firmaInvalida('La firma es inválida [Firma inválida (firma y/o certificados alterados)]');
    rig.sri.enqueue('autorizacion', { kind: 'no-autorizado', mensajes: [mensaje] });
    const first = await rig.post(rig.invoiceBody(nextRef()));
    const done = await rig.waitForStatus(first.json.data!.id, ['authorized', 'rejected', 'failed']);
    expect(done.status).toBe('rejected');
    // Every message of the answer, as the SRI wrote it (the test environment adds its 60 warning).
    expect(done.failure_reason).toBe('39: FIRMA INVALIDA (La firma es inválida [Firma inválida (firma y/o certificados alterados)]); 60: ESTE PROCESO FUE REALIZADO EN EL AMBIENTE DE PRUEBAS');
    const next = await rig.post(rig.invoiceBody(nextRef()));
    expect(Number(next.json.data!.numero.slice(8))).toBe(Number(first.json.data!.numero.slice(8)) + 1);
    expect((await rig.waitForStatus(next.json.data!.id, ['authorized'])).status).toBe('authorized');
  });

  it('a DEVUELTA with another error ends rejected with every message, as the SRI wrote them', async () => {
    rig.sri.enqueue('recepcion', { kind: 'devuelta', mensajes: [sriMessages.fechaExtemporanea(), sriMessages.estructura('Falta el campo X')] });
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    const done = await rig.waitForStatus(json.data!.id, ['authorized', 'rejected', 'failed']);
    expect(done.status).toBe('rejected');
    expect(String(done.failure_reason)).toMatch(/^65: .+; 35: .+Falta el campo X/);
  });

  it('DEVUELTA 43 after a resend ends authorized without renumbering', async () => {
    // The first send reaches the SRI but its answer is lost; the resend is answered 43 or 70.
    rig.sri.enqueue('recepcion', { kind: 'lost' });
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    const doc = json.data!;
    const done = await rig.waitForStatus(doc.id, ['authorized', 'rejected', 'failed']);
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    expect(done.numero).toBe(doc.numero);
    expect(done.access_key).toBe(doc.access_key);
    const receptions = rig.sri.calls.filter((c) => c.service === 'recepcion' && c.accessKey === doc.access_key);
    expect(receptions.length).toBe(2);
    expect(['43', '70']).toContain(receptions[1]!.answer?.mensajes?.[0]?.identificador);
    expect(rig.sri.documents.get(doc.access_key)!.history.filter((h) => h.estado === 'AUTORIZADO')).toHaveLength(1);
  });

  it('DEVUELTA 43 straight away (registered before): asks the authorization, authorized', async () => {
    rig.sri.enqueue('recepcion', { kind: 'devuelta', mensajes: [sriMessages.claveRegistrada()], keep: true });
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    expect((await rig.waitForStatus(json.data!.id, ['authorized', 'rejected', 'failed'])).status).toBe('authorized');
  });

  it('a 45 whose key the authorization service does not know ends rejected with the SRI’s message; numbering continues', async () => {
    rig.sri.enqueue('recepcion', { kind: 'devuelta', mensajes: [sriMessages.secuencialRegistrado()] });
    // The SRI knows only what it received: the 45's key is nobody's.
    rig.sri.setPolicy('autorizacion', (call) => {
      const key = /<claveAccesoComprobante>(\d{49})</.exec(call.rawBody.toString('utf8'))?.[1] ?? '';
      return rig.sri.documents.has(key) ? undefined : { kind: 'unknown' };
    });
    try {
      const first = await rig.post(rig.invoiceBody(nextRef()));
      const done = await rig.waitForStatus(first.json.data!.id, ['authorized', 'rejected', 'failed']);
      expect(done.status).toBe('rejected');
      expect(done.failure_reason).toBe('45: ERROR SECUENCIAL REGISTRADO');
      const next = await rig.post(rig.invoiceBody(nextRef()));
      expect(Number(next.json.data!.numero.slice(8))).toBe(Number(first.json.data!.numero.slice(8)) + 1);
      expect((await rig.waitForStatus(next.json.data!.id, ['authorized'])).status).toBe('authorized');
    } finally {
      rig.sri.setPolicy('autorizacion', { kind: 'normal' });
    }
  });

  it('EN PROCESO for a while, then AUTORIZADO', async () => {
    rig.sri.enqueue('autorizacion', { kind: 'en-proceso' }, { kind: 'en-proceso' }, { kind: 'en-proceso' });
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    expect((await rig.waitForStatus(json.data!.id, ['authorized', 'rejected', 'failed'])).status).toBe('authorized');
  });

  it('the SRI down for a while, then back: authorized, sent once it is up', async () => {
    await rig.sri.down();
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    const id = json.data!.id;
    // Tries while it is down: the invoice stays signed, the reason in Spanish.
    const until = Date.now() + 5_000;
    let read = await rig.get(id);
    while (read.json.data.sri.last_error === null && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20));
      read = await rig.get(id);
    }
    expect(read.json.data.status).toBe('signed');
    expect(read.json.data.sri.last_error).toMatch(/Conexión rechazada|SRI/);
    expect(read.json.data.sri).toMatchObject({ state: 'signed', unreachable_since: expect.any(String) });
    await rig.sri.up();
    const done = await rig.waitForStatus(id, ['authorized', 'rejected', 'failed'], { timeoutMs: 30_000 });
    expect(done.status).toBe('authorized');
    expect((await rig.get(id)).json.data.sri).toMatchObject({ unreachable_since: null });
  });

  it('answers that are garbage, 500s and faults are tried again; nothing is numbered twice', async () => {
    rig.sri.enqueue('recepcion', { kind: 'garbage' }, { kind: 'status', status: 503 }, { kind: 'fault', faultstring: 'java.lang.NullPointerException' });
    rig.sri.enqueue('autorizacion', { kind: 'reset' }, { kind: 'garbage' });
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    const doc = json.data!;
    expect((await rig.waitForStatus(doc.id, ['authorized', 'rejected', 'failed'], { timeoutMs: 30_000 })).status).toBe('authorized');
    expect(rig.sri.documents.get(doc.access_key)!.receptions).toBe(1);
  });
});

describe('what the fake SRI checked', () => {
  it('every comprobante it received passed xmllint (factura 2.1.0) and xmlsec1, its key checked', () => {
    const checked = rig.sri.calls.filter((c) => c.service === 'recepcion' && c.behaviour === 'normal' && c.answer);
    expect(checked.length).toBeGreaterThan(10);
    for (const c of checked) {
      const codes = (c.answer!.mensajes ?? []).map((m) => m.identificador);
      // RECIBIDA, or the "already have it" answers of a resend: never 35 (XSD), 39 (signature), 58 (key).
      expect(c.answer!.estado === 'RECIBIDA' || codes.every((code) => ['43', '45', '70'].includes(code)), JSON.stringify(c.answer)).toBe(true);
    }
  });
});

describe('the RIDE at /d and /p', () => {
  it('is a PDF whose text has the access key and whose barcode reads as it', async () => {
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    const doc = json.data!;
    await rig.waitForStatus(doc.id, ['authorized']);
    const res = await rig.agent.fetch(`/d/${doc.id}`, { headers: { 'X-Api-Key': rig.agent.testApiKey } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const p = await rig.agent.fetch(`/p/${doc.id}`, { headers: { 'X-Api-Key': rig.agent.testApiKey } });
    expect(Buffer.from(await p.arrayBuffer()).equals(pdf)).toBe(true);

    const dir = fs.mkdtempSync(path.join(rig.agent.dataDir, 'ride-'));
    const file = path.join(dir, 'ride.pdf');
    fs.writeFileSync(file, pdf);
    const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
    expect(text.replace(/\s+/g, '')).toContain(doc.access_key);
    expect(text).toContain(doc.numero);
    expect(text).toMatch(/AUTORIZ/);
    execFileSync('pdftoppm', ['-r', '200', '-png', '-f', '1', '-l', '1', file, path.join(dir, 'page')]);
    const png = fs.readdirSync(dir).find((f) => f.endsWith('.png'))!;
    const read = execFileSync('zbarimg', ['-q', '--raw', '-Sdisable', '-Scode128.enable', path.join(dir, png)], { encoding: 'utf8' });
    expect(read.trim()).toBe(doc.access_key);
  });

  it('before the authorization, the RIDE says so; another key’s environment does not see it', async () => {
    rig.sri.enqueue('autorizacion', { kind: 'en-proceso' }, { kind: 'en-proceso' }, { kind: 'en-proceso' });
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    const res = await rig.agent.fetch(`/d/${json.data!.id}`, { headers: { 'X-Api-Key': rig.agent.testApiKey } });
    expect(res.status).toBe(200);
    const live = await rig.agent.fetch(`/d/${json.data!.id}`, { headers: { 'X-Api-Key': rig.agent.liveApiKey } });
    expect(live.status).toBe(404);
    await rig.waitForStatus(json.data!.id, ['authorized']);
  });
});

describe('the document route does not change an issued invoice', () => {
  it('POST /documents/:id/status is refused: the SRI gives its status', async () => {
    const { json } = await rig.post(rig.invoiceBody(nextRef()));
    const id = json.data!.id;
    const res = await rig.agent.fetch(`/api/v1/documents/${id}/status`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rig.agent.testKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'failed', failure_reason: 'a mano' }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string[]> }).errors.status![0]).toMatch(/SRI/);
    expect((await rig.waitForStatus(id, ['authorized'])).status).toBe('authorized');
  });
});
