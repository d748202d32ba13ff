/**
 * Hostile PDFs (test/helpers/hostile-pdfs.ts, one per class of issue 15) against a real
 * `sello serve` and the real `sello` command, with the real reader on the PDF thread: the agent
 * keeps answering other requests in under a second while they are read and signed; every one
 * either is refused at creation or ends `signed` or `failed` with its callback, never stuck;
 * a restart resumes none of them and does not crash; the CLI ends a hostile file with one line
 * and a non-zero exit. (The thread's own defences, deadline and memory, are tested with a
 * reader that misbehaves on purpose: hostile-pdf-agent.test.ts, pdf-thread.test.ts.)
 */
import BetterSqlite3 from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/agent.js';
import { sello, selloJson, startServe, type ServeProcess } from '../../helpers/cli.js';
import * as hostile from '../../helpers/hostile-pdfs.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { startReceiver, type Receiver } from '../../helpers/receiver.js';
import { insertCertificate, type SigningRequestJson } from '../../helpers/signing-requests.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';
import { probe } from '../../helpers/responsiveness.js';

let pki: TestPki;
let dir: string;
let receiver: Receiver;
let key: string;
let certId: string;
const serves: ServeProcess[] = [];

const env = (): NodeJS.ProcessEnv => ({
  SELLO_CA_FILE: pki.ca.certificatePath,
  SELLO_DELIVERY_TIME_SCALE: '0.001',
  SELLO_PDF_DEADLINE_MS: '3000',
  SELLO_PDF_MEMORY_MB: '256',
  // The probe's GETs go past 300 a minute: the rate limit is not what is measured.
  SELLO_RATE_LIMIT_PER_MINUTE: '1000000',
});

/** One of each class, as an attacker would send it. */
const files = (): Record<string, Buffer> => ({
  'recuperacion-cuadratica': hostile.quadraticRecovery(256),
  'streams-sin-fin': hostile.unterminatedStreams(256),
  'objeto-999999999': hostile.hugeObjectNumber(),
  'objeto-en-tabla': hostile.hugeObjectNumberInTable(),
  'length-ciclico': hostile.lengthCycle(),
  'objstm-ciclico': hostile.objStmListingItself(true),
  'xref-index-enorme': hostile.xrefStreamHugeIndex(),
  'columns-enormes': hostile.hugeColumns(),
  'count-enorme': hostile.hugeCount(),
  'size-fraccional': hostile.fractionalSize(10.5),
  'bomba-inflate': hostile.inflateBomb(64),
});

beforeAll(async () => {
  pki = await createTestPki();
  dir = tempDir('sello-hostile-serve-');
  receiver = await startReceiver(pki);
  key = selloJson<{ key: string }>(['keys', 'create', '--family', 'a', '--env', 'test', '--data-dir', dir]).key;
  const db = new BetterSqlite3(path.join(dir, 'sello.db'));
  certId = insertCertificate(db, dir, pki, { environment: 'test' }).id;
  db.close();
});

afterAll(async () => {
  for (const s of serves) if (s.child.exitCode === null) s.child.kill('SIGKILL');
  await receiver?.close();
  pki?.cleanup();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function serve(): Promise<ServeProcess> {
  const s = await startServe(dir, env());
  serves.push(s);
  return s;
}

function api(s: ServeProcess, pathname: string, init: RequestInit = {}): Promise<Response> {
  return fetch(`${s.baseUrl}${pathname}`, { ...init, headers: { 'X-Api-Key': key, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
}

function requestBody(pdf: Buffer, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    subject: 'Documento recibido',
    documents: [{ title: 'Documento', file_extension: 'pdf', document_base64: pdf.toString('base64'), signatures: [{ signing_certificate: certId, page: '1', x: '36', y: '36' }] }],
    ...extra,
  });
}

const STACK = /\bat [\w.<>]+ \(|\.ts:\d+|Error:|RangeError|TypeError/;

describe('hostile PDFs against sello serve', () => {
  it('answers in under a second while they are processed; each is refused or ends signed or failed, with its callback; a restart resumes none', async () => {
    let s = await serve();
    const draft = (await (await api(s, '/digital-signatures/signing-requests', { method: 'POST', body: requestBody(await makePdf()) })).json()) as SigningRequestJson;
    const watch = probe(() => api(s, `/digital-signatures/signing-requests/${draft.id}`));

    const created: Array<{ name: string; id: string }> = [];
    await Promise.all(
      Object.entries(files()).map(async ([name, pdf]) => {
        const res = await api(s, '/digital-signatures/signing-requests', { method: 'POST', body: requestBody(pdf, { send: true, reference_id: `hostil-${name}`, callback_url: receiver.url }) });
        const body = (await res.json()) as SigningRequestJson & { type?: string; message?: string };
        expect([200, 400], `${name}: ${res.status} ${JSON.stringify(body)}`).toContain(res.status);
        if (res.status === 400) {
          expect(body.type).toBe('invalid_request_error');
          expect(body.message, name).not.toMatch(STACK);
        } else {
          created.push({ name, id: body.id });
        }
      }),
    );

    // Every created one ends, signed or failed: never left processing.
    const until = Date.now() + 60_000;
    const finals = new Map<string, SigningRequestJson>();
    while (finals.size < created.length) {
      if (Date.now() > until) throw new Error(`still processing: ${created.filter((c) => !finals.has(c.name)).map((c) => c.name)}`);
      for (const c of created) {
        if (finals.has(c.name)) continue;
        const json = (await (await api(s, `/digital-signatures/signing-requests/${c.id}`)).json()) as SigningRequestJson;
        if (json.status === 'signed' || json.status === 'failed') finals.set(c.name, json);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const { worstMs, count } = await watch.stop();
    expect(count).toBeGreaterThan(5);
    expect(worstMs).toBeLessThan(1_000); // the acceptance: other requests answered in under a second
    expect(s.child.exitCode).toBeNull();
    for (const [name, json] of finals) {
      if (json.status !== 'failed') continue;
      const failure = json.documents[0]!.signatures[0]! as { status: string; last_error?: { code: string; message?: string } };
      expect(failure.status, name).toBe('failed');
      expect(failure.last_error?.code, name).toMatch(/^pdf_|^internal_error$/);
      expect(failure.last_error?.message, name).not.toMatch(STACK);
    }
    // One callback per request that ended.
    await receiver.waitFor((r) => r.length >= created.length, 20_000);
    const references = receiver.requests.map((r) => (JSON.parse(r.rawBody.toString()) as { reference_id: string }).reference_id).sort();
    expect(references).toEqual(created.map((c) => `hostil-${c.name}`).sort());

    // A restart: it starts, resumes nothing, sends nothing again, and signs.
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    s = await serve();
    const db = new BetterSqlite3(path.join(dir, 'sello.db'), { readonly: true });
    expect(db.prepare("select count(*) as n from signing_requests where status = 'processing'").get()).toEqual({ n: 0 });
    db.close();
    const res = await api(s, '/digital-signatures/signing-requests', { method: 'POST', body: requestBody(await makePdf(), { send: true }) });
    const next = (await res.json()) as SigningRequestJson;
    const stop = Date.now() + 30_000;
    while (((await (await api(s, `/digital-signatures/signing-requests/${next.id}`)).json()) as SigningRequestJson).status !== 'signed') {
      if (Date.now() > stop) throw new Error('not signed after the restart');
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(receiver.requests.length).toBe(created.length);
    expect(s.child.exitCode).toBeNull();
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  }, 180_000);

  it('ends sello sign and sello verify on a hostile file with one line and a non-zero exit', () => {
    const input = path.join(dir, 'hostil.pdf');
    fs.writeFileSync(input, hostile.quadraticRecovery(256));
    const out = path.join(dir, 'hostil-firmado.pdf');
    const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => sello([...args, '--data-dir', dir], { env: { ...env(), ...extra } });
    for (const args of [
      ['sign', input, '--cert', certId, '--page', '1', '--x', '36', '--y', '36', '--out', out],
      ['verify', input],
    ]) {
      const res = cli(args);
      expect(res.status, args[0]).toBe(1);
      const lines = res.stderr.trim().split('\n');
      expect(lines, res.stderr).toHaveLength(1);
      expect(lines[0]).toMatch(/^sello: pdf_[a-z_]+: \S/);
      expect(lines[0]).not.toMatch(STACK);
    }
    expect(fs.existsSync(out)).toBe(false);
  }, 120_000);

  it('shows an unexpected error as one internal_error line, its stack only with SELLO_DEBUG=1', () => {
    const notAFolder = path.join(dir, 'no-es-carpeta');
    fs.writeFileSync(notAFolder, 'x');
    const plain = sello(['books', 'list', '--data-dir', notAFolder]);
    expect(plain.status).toBe(1);
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    expect(plain.stderr).toMatch(/^sello: internal_error: Error interno de Sello\. .*SELLO_DEBUG=1/);
    expect(plain.stderr).not.toMatch(STACK);
    const debug = sello(['books', 'list', '--data-dir', notAFolder], { env: { SELLO_DEBUG: '1' } });
    expect(debug.status).toBe(1);
    expect(debug.stderr.split('\n')[0]).toBe(plain.stderr.trim());
    expect(debug.stderr).toMatch(/\n\w*Error: .*\n\s+at /);
  }, 60_000);
});
