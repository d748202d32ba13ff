import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertUsableForSigning,
  findCertificateForEnvironment,
  issueTestCertificate,
  listCertificateObjects,
  parseTestCertificateRequest,
  toCertificateObject,
  type CertificateRow,
} from '../../../core/certificates/index.js';
import { openStore, type Store } from '../../../core/db/index.js';
import { loadSecretBox } from '../../../core/secrets/index.js';
import { tempDir } from '../../helpers/agent.js';
import { createTestPki, type TestPki } from '../../helpers/test-ca.js';

const principal = {
  first_name: 'Ana',
  last_name: 'Pérez',
  email: 'ana@contadores.ec',
  mobile_phone: '0991234567',
  legal_id: '0912345678',
  legal_id_type: { type: 'ec-cedula', code: '05', name: 'Cédula' },
  address: { line_1: 'Calle 1', locality: 'Centro', administrative_district_level_1: 'Azuay', administrative_district_level_2: 'Cuenca', country: { code: 'EC', name: 'Ecuador' } },
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as { code?: string }).code;
  }
}

/** The functions signing uses to pick a certificate (CONTRACT §3, §11). */
describe('certificate records', () => {
  let dir: string;
  let store: Store;
  let pki: TestPki;
  let row: CertificateRow;

  beforeAll(async () => {
    dir = tempDir('sello-cert-records-');
    store = await openStore(path.join(dir, 'sello.db'));
    pki = await createTestPki();
    const cert = issueTestCertificate(store, loadSecretBox(dir), pki.ca, parseTestCertificateRequest({ type: 'ec/individual', validity: 365, principal }));
    row = findCertificateForEnvironment(store, cert.id, 'test');
  });
  afterAll(async () => {
    await store.close();
    await pki.cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds a certificate only in its own environment', () => {
    expect(row.source).toBe('test');
    expect(codeOf(() => findCertificateForEnvironment(store, row.id, 'live'))).toBe('certificate_not_found');
    expect(codeOf(() => findCertificateForEnvironment(store, 'nope', 'test'))).toBe('certificate_not_found');
    expect(listCertificateObjects(store, 'live')).toEqual([]);
  });

  it('is usable while issued and valid; expired, not yet valid and non-issued are refused', () => {
    expect(() => assertUsableForSigning(row)).not.toThrow();
    expect(codeOf(() => assertUsableForSigning(row, new Date(Date.parse(row.not_after) + 1000)))).toBe('certificate_expired');
    expect(codeOf(() => assertUsableForSigning(row, new Date(Date.parse(row.not_before) - 1000)))).toBe('certificate_expired');
    expect(codeOf(() => assertUsableForSigning({ ...row, status: 'processing' }))).toBe('certificate_not_issued');
  });

  it('describes rows stored before migration 0005 from their X.509', () => {
    const legacy = toCertificateObject({ ...row, type: null, principal: null, organization: null, validity: null, issued_at: null });
    expect(legacy).toMatchObject({ id: row.id, type: 'ec/individual', validity: 365, principal: { first_name: 'Ana', last_name: 'Pérez', legal_id: '0912345678', mobile_phone: '' } });
  });
});
