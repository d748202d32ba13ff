/**
 * `sello verify` and `GET /v/{id}` on the files of issue 15's "Forgery accepted": exit 0 and
 * `valid`/`trusted` only for a signature that is intact, unchanged after (or changed only as
 * allowed) and made by a certificate that chains to the data folder's test CA or a configured
 * root.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDataTestCa } from '../../core/certificates/index.js';
import { signPdf } from '../../core/pdf/index.js';
import type { PdfRef } from '../../core/pdf/syntax/pdf-objects.js';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';
import { sello } from '../helpers/cli.js';
import { fiscalHeaders, invoiceBody } from '../helpers/documents.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { testPdfSigner } from '../helpers/pdf-signer.js';
import { appendRevision, issuedSigner, page, stream } from '../helpers/pdf-updates.js';
import { TEST_SUBJECT } from '../helpers/test-ca.js';

const dataDir = tempDir('sello-verify-');
const files = path.join(dataDir, 'archivos');
const file = (n: string): string => path.join(files, n);
const forger = testPdfSigner(TEST_SUBJECT.commonName);

beforeAll(async () => {
  fs.mkdirSync(files);
  // The data folder's own test CA, as `certs issue-test` would create it.
  const ca = await openDataTestCa(dataDir);
  const signer = issuedSigner(ca.issue({ subject: { ...TEST_SUBJECT } }));
  const good = await signPdf(await makePdf(), signer, {});
  fs.writeFileSync(file('buena.pdf'), good);
  fs.writeFileSync(file('dos-firmas.pdf'), await signPdf(good, signer, {}));
  fs.writeFileSync(file('autofirmada.pdf'), await signPdf(await makePdf(), forger, {}));
  fs.writeFileSync(file('forger.pem'), forger.certPem);
  fs.writeFileSync(
    file('cambiada.pdf'),
    appendRevision(good, (doc) => {
      const c = page(doc).dict.get('Contents');
      return [{ num: (Array.isArray(c) ? (c[0] as PdfRef) : (c as PdfRef)).num, gen: 0, value: stream('BT /F1 24 Tf 72 700 Td (TOTAL: 9.999.999) Tj ET') }];
    }),
  );
  fs.writeFileSync(file('sin-firma.pdf'), await makePdf());
  fs.writeFileSync(file('rota.pdf'), Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const verify = (name: string, ...extra: string[]) => sello(['verify', file(name), '--data-dir', dataDir, ...extra]);

describe('sello verify', () => {
  it('exits 0 for a signature intact and trusted by the test CA, and says both', () => {
    const res = verify('buena.pdf');
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toMatch(/^Firma 1: ANA MARÍA PÉREZ LÓPEZ, .*, íntegra, cubre todo el documento, de confianza \(CA de pruebas de Sello «Sello Test CA»\)$/m);
  });

  it('exits 0 after a second signature, saying it came after and is allowed', () => {
    const res = verify('dos-firmas.pdf');
    expect(res.status, res.stdout).toBe(0);
    expect(res.stdout).toMatch(/^Firma 1: .*íntegra, después se agregaron firmas \(permitido\), de confianza/m);
  });

  it('exits 1 for a self-made certificate with a victim’s name: intact but "NO de confianza"', () => {
    const res = verify('autofirmada.pdf');
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(/ANA MARÍA PÉREZ LÓPEZ, .*, íntegra, .*NO de confianza \(certificado autofirmado/);
    // The same certificate as a configured root (--trust, or SELLO_TRUST_ROOTS).
    const trusted = verify('autofirmada.pdf', '--trust', file('forger.pem'));
    expect(trusted.status, trusted.stdout).toBe(0);
    expect(trusted.stdout).toMatch(/de confianza \(raíz configurada «ANA MARÍA PÉREZ LÓPEZ»\)/);
    const viaEnv = sello(['verify', file('autofirmada.pdf'), '--data-dir', dataDir], { env: { SELLO_TRUST_ROOTS: file('forger.pem') } });
    expect(viaEnv.status).toBe(0);
  });

  it('exits 1 when a later update replaced the content, and says so', () => {
    const res = verify('cambiada.pdf');
    expect(res.status).toBe(1);
    expect(res.stdout).toMatch(/íntegra, después se cambió el contenido: NO permitido \(.*\); la firma ya no respalda lo que muestra el documento/);
  });

  it('prints each report as JSON with the first version’s fields and the new ones', () => {
    const res = verify('cambiada.pdf', '--json');
    const line = JSON.parse(res.stdout.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({
      field: 'Firma1',
      signer: TEST_SUBJECT.commonName,
      signed_at: expect.stringMatching(/^\d{4}-/),
      intact: true,
      covers_whole_file: false,
      sub_filter: 'ETSI.CAdES.detached',
      modification: 'other',
      modification_problem: expect.any(String),
      trusted: true,
      trust: { anchor: 'test_ca', anchor_name: 'Sello Test CA', checked_at: expect.any(String), time_source: 'now' },
      valid: false,
    });
  });

  it('exits 1 for a PDF without signatures, and for one it cannot read, with code and reason on one line', () => {
    const none = verify('sin-firma.pdf');
    expect(none.status).toBe(1);
    expect(none.stdout).toMatch(/no tiene firmas/);
    const broken = verify('rota.pdf');
    expect(broken.status).toBe(1);
    expect(broken.stderr.trim().split('\n')).toHaveLength(1);
    expect(broken.stderr).toMatch(/^sello: pdf_damaged: .*PDF/);
  });

  it('refuses a --trust file that holds no certificate', () => {
    const res = verify('buena.pdf', '--trust', file('sin-firma.pdf'));
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/no contiene certificados PEM/);
  });
});

describe('GET /v/{id}', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent({ dataDir });
  });
  afterAll(() => agent.close());

  async function verified(name: string): Promise<Array<Record<string, unknown>>> {
    const pdf = fs.readFileSync(file(name));
    const res = await agent.fetch('/api/v1/documents', {
      method: 'POST',
      headers: fiscalHeaders(agent.liveKey),
      body: JSON.stringify(invoiceBody({ external_ref: `v-${name}`, pdf_base64: pdf.toString('base64') })),
    });
    const id = ((await res.json()) as { data: { id: string } }).data.id;
    const v = await agent.fetch(`/v/${id}`, { headers: { 'X-Api-Key': agent.liveApiKey } });
    expect(v.status).toBe(200);
    return ((await v.json()) as { signatures: Array<Record<string, unknown>> }).signatures;
  }

  it('shows intact, trusted, the trust anchor, the later changes and a verdict for each signature', async () => {
    expect(await verified('dos-firmas.pdf')).toEqual([
      expect.objectContaining({ signer: TEST_SUBJECT.commonName, intact: true, covers_whole_file: false, trusted: true, trust_anchor: 'test_ca', modification: 'signatures', valid: true }),
      expect.objectContaining({ intact: true, covers_whole_file: true, trusted: true, trust_anchor: 'test_ca', modification: 'none', valid: true }),
    ]);
  });

  it('says trusted: false for a self-made certificate, and valid: false for content changed later', async () => {
    const [self] = await verified('autofirmada.pdf');
    expect(self).toMatchObject({ intact: true, trusted: false, trust_anchor: null, trust_problem: expect.stringMatching(/autofirmado/) });
    const [changed] = await verified('cambiada.pdf');
    expect(changed).toMatchObject({ intact: true, trusted: true, modification: 'other', valid: false, modification_problem: expect.any(String) });
  });
});
