/**
 * The SRI settings of CONTRACT §15 that change how an invoice travels: `SELLO_SRI_SIGNATURE_HASH`
 * (SHA-256 instead of SHA-1; the fake SRI's xmlsec1 still verifies it) and
 * `SELLO_SRI_GIVE_UP_HOURS` (an SRI that stays unreachable past it ends the invoice `failed`,
 * and numbering goes on).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startInvoiceRig, type InvoiceRig } from '../../helpers/invoices.js';

let rig: InvoiceRig | undefined;

afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('SRI settings', () => {
  it('SELLO_SRI_SIGNATURE_HASH=sha256: signed with RSA-SHA256 and SHA-256 digests, authorized', async () => {
    rig = await startInvoiceRig({ config: { sriSignatureHash: 'sha256' } });
    const { json } = await rig.post(rig.invoiceBody('SHA-1'));
    expect((await rig.waitForStatus(json.data!.id, ['authorized', 'rejected', 'failed'])).status).toBe('authorized');
    const xml = rig.sri.documents.get(json.data!.access_key)!.xml;
    expect(xml).toContain('Algorithm="http://www.w3.org/2001/04/xmldsig-more#rsa-sha256"');
    expect(xml).toContain('Algorithm="http://www.w3.org/2001/04/xmlenc#sha256"');
    expect(xml).not.toContain('#rsa-sha1"');
  });

  it('SELLO_SRI_GIVE_UP_HOURS: the SRI unreachable past it ends the invoice failed; the next number follows', async () => {
    rig = await startInvoiceRig({ config: { sriGiveUpHours: 0.0003 } }); // about a second
    await rig.sri.down();
    const first = await rig.post(rig.invoiceBody('DOWN-1'));
    const done = await rig.waitForStatus(first.json.data!.id, ['authorized', 'rejected', 'failed'], { timeoutMs: 20_000 });
    expect(done.status).toBe('failed');
    expect(done.failure_reason).toMatch(/^El SRI no estuvo disponible durante más de 0.0003 h .*Conexión rechazada/);
    await rig.sri.up();
    const next = await rig.post(rig.invoiceBody('DOWN-2'));
    expect(next.json.data!.numero).toBe('001-001-000000002');
    expect((await rig.waitForStatus(next.json.data!.id, ['authorized', 'rejected', 'failed'])).status).toBe('authorized');
  });
});
