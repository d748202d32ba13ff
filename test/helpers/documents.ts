import { withCheckDigit } from '../../core/documents/index.js';

/** A valid Ecuadorian access key for a key environment (digit 24: 1 test, 2 live). */
export function accessKey(environment: 'test' | 'live', sequence = 1): string {
  const first48 = `31032026011792146739001${environment === 'live' ? '2' : '1'}001001${String(sequence).padStart(9, '0')}123456781`;
  return withCheckDigit(first48);
}

export function invoiceBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    external_ref: 'FAC-001-001-000000123',
    country: 'EC',
    doc_type: 'invoice',
    numero: '001-001-000000123',
    issue_date: '2026-03-31',
    currency: 'USD',
    grand_total: '112.00',
    ...overrides,
  };
}

export function fiscalHeaders(key: string): Record<string, string> {
  return { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
}
