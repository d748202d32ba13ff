/**
 * An issuer whose certificate is on a PKCS#11 token (SoftHSM2): its invoices are numbered at
 * once and wait in `pending` until a person gives the token's PIN (the PIN cache of signing
 * requests, CONTRACT §11 and §15), listed per token by `GET /admin/api/fiscal/pending` and counted
 * by the status route the tray reads. A PIN given is tried on the token at once: a wrong one is
 * answered `pin_incorrect` with the tries left, kept nowhere and never tried again by itself; with
 * the right one the waiting comprobante goes on at once (not at its next check, 30 s away at
 * this rig's time scale), is signed on the token, and the fake SRI's xmlsec1 accepts it.
 */
import pkcs11js from 'pkcs11js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InvoiceRig } from '../../helpers/invoices.js';
import { createIssuerToken, startTokenIssuerRig, type IssuerToken } from '../../helpers/token-issuer.js';

let token: IssuerToken;
let tokenSerial: string;
const rigs: InvoiceRig[] = [];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts C_Login calls reaching the module (installed before any driver is loaded). */
let loginCalls = 0;
const nativeProto = Object.getPrototypeOf(pkcs11js.PKCS11.prototype) as { C_Login: (...a: unknown[]) => void };
const originalLogin = nativeProto.C_Login;
nativeProto.C_Login = function (this: unknown, ...args: unknown[]) {
  loginCalls++;
  return originalLogin.apply(this, args);
};

beforeAll(async () => {
  token = await createIssuerToken();
  tokenSerial = token.serial;
});

afterAll(async () => {
  for (const rig of rigs) await rig.close();
  await token?.cleanup();
});

/** An agent (its own PIN cache) whose test issuer's certificate is the token's. */
async function tokenRig(timeScale: number): Promise<InvoiceRig> {
  const rig = await startTokenIssuerRig(token, { deliveryTimeScale: timeScale });
  rigs.push(rig);
  return rig;
}

/** An admin answer, read loosely: each test names the fields it asserts. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the shapes are asserted field by field below
type Loose = any;

async function admin(rig: InvoiceRig, pathname: string, body?: unknown): Promise<{ status: number; json: Loose }> {
  const res = await rig.agent.fetch(pathname, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { Authorization: `Bearer ${rig.agent.adminToken}`, 'Content-Type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

const givePin = (rig: InvoiceRig, value: string, serial = tokenSerial) => admin(rig, '/admin/api/fiscal/token-pin', { token_serial: serial, pin: value });

async function lastError(rig: InvoiceRig, id: string, match: RegExp): Promise<{ status: string; sri: { state: string; last_error: string | null } }> {
  const until = Date.now() + 10_000;
  for (;;) {
    const { json } = await rig.get(id);
    if (json.data.sri.last_error && match.test(json.data.sri.last_error)) return json.data;
    if (Date.now() > until) throw new Error(`last_error of ${id} never matched ${match}: ${JSON.stringify(json.data.sri)}`);
    await sleep(20);
  }
}

describe('an issuer on a token', () => {
  it('lists what waits; a wrong PIN is answered at once and kept nowhere; the right one signs on the token at once', async () => {
    // Time scale 1: a waiting comprobante looks at the PIN cache again only every 30 s.
    const rig = await tokenRig(1);
    const { status, json } = await rig.post(rig.invoiceBody('TOKEN-1'));
    expect(status, JSON.stringify(json)).toBe(201);
    const doc = json.data!;
    const waiting = await lastError(rig, doc.id, /Esperando el PIN del token «emisor».*Firmas pendientes/);
    expect(waiting).toMatchObject({ status: 'pending', sri: { state: 'pending' } });
    expect(rig.sri.calls).toHaveLength(0);

    // The queue the tray and "Firmas pendientes" show: one token, its document, why it waits.
    const pending = await admin(rig, '/admin/api/fiscal/pending');
    expect(pending.status).toBe(200);
    expect(pending.json.data).toEqual([
      {
        token: { serial: tokenSerial, label: 'emisor', present: true, pin_tries: 'ok', pin_cached: false },
        invoices: [
          expect.objectContaining({ document_id: doc.id, numero: doc.numero, access_key: doc.access_key, external_ref: 'TOKEN-1', environment: 'test', book: rig.agent.book.slug, reason: waiting.sri.last_error }),
        ],
      },
    ]);
    expect((await admin(rig, '/admin/api/status')).json.data.pending_invoices).toBe(1);

    // An unknown token, an empty PIN: clear errors, nothing cached, nothing tried.
    const loginsBefore = loginCalls;
    const unknown = await givePin(rig, '1234', 'NO-SUCH-TOKEN');
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toMatch(/no tiene certificados del token de serie NO-SUCH-TOKEN/);
    const empty = await givePin(rig, '');
    expect(empty.status).toBe(422);
    expect(JSON.stringify(empty.json)).toMatch(/pin.*es obligatorio/);
    expect(loginCalls).toBe(loginsBefore);

    // A wrong PIN: one login, answered now with the tries the token reports, kept nowhere.
    const wrong = await givePin(rig, '9999');
    expect(wrong.status, JSON.stringify(wrong.json)).toBe(400);
    expect(wrong.json.error.code).toBe('pin_incorrect');
    expect(loginCalls - loginsBefore).toBe(1);
    await sleep(300);
    expect(loginCalls - loginsBefore).toBe(1);
    expect((await rig.get(doc.id)).json.data).toMatchObject({ status: 'pending', sri: { state: 'pending', last_error: waiting.sri.last_error } });
    expect((await admin(rig, '/admin/api/fiscal/pending')).json.data[0].token.pin_cached).toBe(false);
    expect(rig.sri.calls).toHaveLength(0);

    // The right PIN: the comprobante goes on now, not 30 s later.
    const right = await givePin(rig, '1234');
    expect(right.status, JSON.stringify(right.json)).toBe(200);
    expect(right.json.data).toEqual({ token_serial: tokenSerial, pin_cached: true, waiting_invoices: 1 });
    const done = await rig.waitForStatus(doc.id, ['authorized', 'rejected', 'failed'], { timeoutMs: 10_000 });
    expect(done.status, JSON.stringify(done)).toBe('authorized');
    const received = rig.sri.calls.find((c) => c.service === 'recepcion' && c.accessKey === doc.access_key)!;
    expect(received.answer?.estado).toBe('RECIBIDA'); // xmllint and xmlsec1 accepted the token's signature
    expect((await admin(rig, '/admin/api/fiscal/pending')).json.data).toEqual([]);
    expect((await admin(rig, '/admin/api/status')).json.data.pending_invoices).toBe(0);

    // The PIN is kept for the session: the next invoice signs at once.
    const next = await rig.post(rig.invoiceBody('TOKEN-2'));
    expect((await rig.waitForStatus(next.json.data!.id, ['authorized', 'rejected', 'failed'], { timeoutMs: 10_000 })).status).toBe('authorized');
  });

  it('a certificate that expires while its invoice waits ends it failed, with the reason in Spanish', async () => {
    const rig = await tokenRig(0.001);
    const { json } = await rig.post(rig.invoiceBody('TOKEN-3'));
    const id = json.data!.id;
    await lastError(rig, id, /Esperando el PIN/);
    const db = rig.agent.store.sqlite;
    const certificateId = (db.prepare('select certificate_id from fiscal_submissions where document_id = ?').get(id) as { certificate_id: string }).certificate_id;
    db.prepare('update certificates set not_after = ? where id = ?').run('2020-01-01T00:00:00.000Z', certificateId);
    expect((await givePin(rig, '1234')).status).toBe(200);
    const done = await rig.waitForStatus(id, ['authorized', 'rejected', 'failed']);
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/^No se pudo firmar el comprobante: .*caducó/);
    expect(rig.sri.calls.some((c) => c.accessKey === json.data!.access_key)).toBe(false);
  });
});
