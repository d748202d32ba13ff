/**
 * A crash mid-signing loses nothing (CONTRACT §11; issue 5 item 3): `sello serve` is killed
 * with SIGKILL while a request's signatures are being applied; on restart the request
 * resumes from the last committed signature and completes with every signature valid.
 */
import BetterSqlite3 from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/agent.js';
import { selloJson, startServe, type ServeProcess } from '../helpers/cli.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { insertCertificate, type SigningRequestJson } from '../helpers/signing-requests.js';
import { createTestPki, type TestPki } from '../helpers/test-ca.js';

let pki: TestPki;
let dir: string;
let receiver: Receiver;
const serves: ServeProcess[] = [];

beforeAll(async () => {
  pki = await createTestPki();
  dir = tempDir('sello-crash-');
  receiver = await startReceiver(pki);
});

afterAll(async () => {
  for (const s of serves) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  await receiver?.close();
  await pki?.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = () => ({ SELLO_CA_FILE: pki.ca.certificatePath, SELLO_DELIVERY_TIME_SCALE: '0.001' });

describe('kill -9 of sello serve mid-signing', () => {
  it('resumes at start and completes every signature', async () => {
    const { key } = selloJson<{ key: string }>(['keys', 'create', '--family', 'a', '--env', 'test', '--data-dir', dir]);
    let serve = await startServe(dir, env());
    serves.push(serve);
    const db = new BetterSqlite3(path.join(dir, 'sello.db'));
    const cert = insertCertificate(db, dir, pki, { environment: 'test' });
    const pages = 10;
    const pdf = await makePdf({ pages: Array.from({ length: pages }, () => ({})) });
    const signatures = Array.from({ length: pages * 4 }, (_, i) => ({ signing_certificate: cert.id, page: String(1 + Math.floor(i / 4)), x: '20', y: String(20 + (i % 4) * 160) }));
    const res = await fetch(`${serve.baseUrl}/digital-signatures/signing-requests`, {
      method: 'POST',
      headers: { 'X-Api-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        subject: 'Muchas firmas',
        reference_id: 'crash-1',
        callback_url: receiver.url,
        send: true,
        documents: [{ title: 'Acta', file_extension: 'pdf', document_base64: pdf.toString('base64'), signatures }],
      }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as SigningRequestJson;
    const signedCount = () => (db.prepare("select count(*) as n from signing_signatures where request_id = ? and state = 'signed'").get(id) as { n: number }).n;
    const until = Date.now() + 20_000;
    while (signedCount() < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 2));
    serve.child.kill('SIGKILL');
    await serve.exited;
    const atKill = signedCount();
    expect(atKill).toBeGreaterThan(0);
    expect(atKill).toBeLessThan(signatures.length);

    serve = await startServe(dir, env());
    serves.push(serve);
    await receiver.waitFor((r) => r.length >= 1, 30_000);
    const final = (await (await fetch(`${serve.baseUrl}/digital-signatures/signing-requests/${id}`, { headers: { 'X-Api-Key': key } })).json()) as SigningRequestJson;
    expect(final.status).toBe('signed');
    const payload = JSON.parse(receiver.requests[0]!.rawBody.toString('utf8')) as { documents: Array<{ hash: string; content_base64: string }> };
    const bytes = Buffer.from(payload.documents[0]!.content_base64, 'base64');
    expect(crypto.createHash('sha256').update(bytes).digest('hex')).toBe(final.documents[0]!.signed_file_hash);
    const check = await pdfsig(bytes);
    expect(check.validity).toEqual(signatures.map(() => 'Signature is Valid.'));
    db.close();
    serve.child.kill('SIGTERM');
    await serve.exited;
    expect(receiver.requests).toHaveLength(1);
  });
});
