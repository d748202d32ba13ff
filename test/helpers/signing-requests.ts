/**
 * Signing-request test helpers: certificate rows made with the test CA (written straight
 * into the store, so the tests don't depend on the issuance API), request bodies and
 * polling of a request's state.
 *
 * @example
 *   const cert = addCertificate(agent, pki, { environment: 'test' });
 *   const res = await createRequest(agent, agent.testApiKey, requestBody([await makePdf()], cert.id));
 */
import type BetterSqlite3 from 'better-sqlite3';
import crypto from 'node:crypto';
import type { IssuedCertificate } from '../../core/certificates/test-ca.js';
import { loadSecretBox } from '../../core/secrets/index.js';
import type { TestAgent } from './agent.js';
import type { TestPki } from './test-ca.js';
import { TEST_SUBJECT } from './test-ca.js';

export interface AddedCertificate {
  id: string;
  issued: IssuedCertificate;
}

/** A `test`-source certificate row with its key sealed, in `environment`. */
export function addCertificate(agent: TestAgent, pki: TestPki, opts: CertificateOptions): AddedCertificate {
  return insertCertificate(agent.store.sqlite, agent.dataDir, pki, opts);
}

export interface CertificateOptions {
  environment: 'test' | 'live';
  notBefore?: Date;
  notAfter?: Date;
  commonName?: string;
}

/** The same through any connection to a data folder's store (a `sello serve` holds the folder). */
export function insertCertificate(db: BetterSqlite3.Database, dataDir: string, pki: TestPki, opts: CertificateOptions): AddedCertificate {
  const issued = pki.issue({
    subject: { ...TEST_SUBJECT, commonName: opts.commonName ?? TEST_SUBJECT.commonName },
    ...(opts.notBefore ? { notBefore: opts.notBefore } : {}),
    ...(opts.notAfter ? { notAfter: opts.notAfter } : {}),
  });
  const x = new crypto.X509Certificate(issued.certificate);
  const id = crypto.randomUUID();
  const secrets = loadSecretBox(dataDir);
  db
    .prepare(
      `insert into certificates (id, environment, source, fingerprint, certificate, chain, subject_name, serial_number,
         not_before, not_after, private_key_sealed, created_at)
       values (?, ?, 'test', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      id,
      opts.environment,
      crypto.createHash('sha256').update(issued.certificate).digest('hex'),
      issued.certificate,
      JSON.stringify(issued.chain.map((c) => c.toString('base64'))),
      opts.commonName ?? TEST_SUBJECT.commonName,
      x.serialNumber.toUpperCase(),
      new Date(x.validFrom).toISOString(),
      new Date(x.validTo).toISOString(),
      secrets.seal(issued.privateKeyPem),
      new Date().toISOString(),
    );
  return { id, issued };
}

export interface SignatureSpec {
  signing_certificate: string;
  page: string;
  x: string;
  y: string;
  size?: string;
}

export function documentBody(pdf: Buffer, signatures: SignatureSpec[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { title: 'Contrato de servicios', document_base64: pdf.toString('base64'), file_extension: 'pdf', signatures, ...extra };
}

export async function createRequest(agent: TestAgent, apiKey: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await agent.fetch('/digital-signatures/signing-requests', {
    method: 'POST',
    headers: { 'X-Api-Key': apiKey, 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { res, json: (await res.json()) as Record<string, unknown> & SigningRequestJson };
}

export interface SigningRequestJson {
  id: string;
  environment: string;
  status: string;
  signed: string | null;
  reference_id: string | null;
  documents: Array<{
    id: string;
    client_id: string | null;
    original_file: string;
    original_file_hash: string;
    signed_file: string;
    signed_file_hash: string | null;
    signatures: Array<{ id: string; status: string; timestamp: string | null; last_error?: { code: string; message?: string | null; pin_tries: string | null } }>;
  }>;
}

export async function getRequest(agent: TestAgent, apiKey: string, id: string): Promise<{ status: number; json: SigningRequestJson }> {
  const res = await agent.fetch(`/digital-signatures/signing-requests/${id}`, { headers: { 'X-Api-Key': apiKey } });
  return { status: res.status, json: (await res.json()) as SigningRequestJson };
}

/** Polls until the request's status is `status`. */
export async function waitForStatus(agent: TestAgent, apiKey: string, id: string, status: string, timeoutMs = 15_000): Promise<SigningRequestJson> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const { json } = await getRequest(agent, apiKey, id);
    if (json.status === status) return json;
    if (Date.now() > until) throw new Error(`request ${id}: still ${json.status} after ${timeoutMs} ms: ${JSON.stringify(json)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Rows of the signing tables, to prove a bad request stored nothing. */
export function signingSnapshot(agent: TestAgent): string {
  const tables = ['signing_requests', 'signing_documents', 'signing_signatures', 'idempotency_keys', 'deliveries'];
  return JSON.stringify(tables.map((t) => agent.store.sqlite.prepare(`select count(*) as n from "${t}"`).get()));
}
