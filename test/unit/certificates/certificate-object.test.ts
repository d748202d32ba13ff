import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeX509, ecuadorianArcs } from '../../../core/certificates/index.js';
import type { ExtraExtension } from '../../../core/certificates/test-ca.js';
import { createTestPki, TEST_SUBJECT, type TestPki } from '../../helpers/test-ca.js';

const { asn1 } = forge;

/** A custom extension whose value is a DER UTF8String, as Security Data and the BCE write them. */
function utf8Ext(oid: string, text: string): ExtraExtension {
  const der = asn1.toDer(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.UTF8, false, forge.util.encodeUtf8(text))).getBytes();
  return { oid, value: Buffer.from(der, 'binary') };
}

/** CONTRACT §10: live certificates → the spec's Principal and Organization, nothing invented. */
describe('describeX509', () => {
  let pki: TestPki;
  beforeAll(async () => {
    pki = await createTestPki();
  });
  afterAll(() => pki.cleanup());

  it('maps the subject of an individual, accents included', () => {
    const d = describeX509(pki.leaf.certificate);
    expect(d.type).toBe('ec/individual');
    expect(d.principal).toMatchObject({
      first_name: TEST_SUBJECT.givenName,
      last_name: TEST_SUBJECT.surname,
      email: TEST_SUBJECT.emailAddress,
      legal_id: '0912345678',
      legal_id_type: { type: 'ec-cedula', code: '05', name: 'Cédula' },
      mobile_phone: '',
      address: { line_1: '', country: { code: 'EC', name: 'Ecuador' } },
    });
    // O without a RUC is not a company certificate.
    expect(d.organization).toBeUndefined();
    expect(d.principal.tax_id).toBeUndefined();
  });

  it('reads Security Data extensions (1.3.6.1.4.1.37746.3.x) of a company representative', () => {
    const arc = ecuadorianArcs.securityData;
    const cert = pki.issue({
      subject: { commonName: 'JOSÉ ÑUSTE CAÑAR', country: 'EC' },
      extraExtensions: [
        utf8Ext(`${arc}.1`, '1712345675'),
        utf8Ext(`${arc}.2`, 'JOSÉ ANDRÉS'),
        utf8Ext(`${arc}.3`, 'ÑUSTE'),
        utf8Ext(`${arc}.4`, 'CAÑAR'),
        utf8Ext(`${arc}.5`, 'GERENTE GENERAL'),
        utf8Ext(`${arc}.7`, 'AV. AMAZONAS N34-451'),
        utf8Ext(`${arc}.8`, '0998765432'),
        utf8Ext(`${arc}.9`, 'QUITO'),
        utf8Ext(`${arc}.10`, 'CONSTRUCCIONES ANDINAS CÍA. LTDA.'),
        utf8Ext(`${arc}.11`, '1790012345001'),
      ],
    }).certificate;
    const d = describeX509(cert);
    expect(d.type).toBe('ec/business-director');
    expect(d.principal).toMatchObject({
      first_name: 'JOSÉ ANDRÉS',
      last_name: 'ÑUSTE',
      second_last_name: 'CAÑAR',
      legal_id: '1712345675',
      legal_id_type: { type: 'ec-cedula', code: '05' },
      mobile_phone: '0998765432',
      position: 'GERENTE GENERAL',
      address: { line_1: 'AV. AMAZONAS N34-451', administrative_district_level_2: 'QUITO', country: { code: 'EC' } },
    });
    expect(d.organization).toMatchObject({
      legal_name: 'CONSTRUCCIONES ANDINAS CÍA. LTDA.',
      tax_id: '1790012345001',
      tax_id_type: { type: 'ec-ruc', code: '06', name: 'RUC' },
      position: 'GERENTE GENERAL',
    });
  });

  it('reads Banco Central del Ecuador extensions (1.3.6.1.4.1.37947.3.x) of a sole proprietor', () => {
    const arc = ecuadorianArcs.bancoCentral;
    const cert = pki.issue({
      subject: { commonName: 'LUCÍA ÁLVAREZ', country: 'EC' },
      extraExtensions: [utf8Ext(`${arc}.1`, '0102030405'), utf8Ext(`${arc}.2`, 'LUCÍA'), utf8Ext(`${arc}.3`, 'ÁLVAREZ'), utf8Ext(`${arc}.11`, '0102030405001')],
    }).certificate;
    const d = describeX509(cert);
    expect(d.type).toBe('ec/sole-proprietorship');
    expect(d.principal).toMatchObject({
      first_name: 'LUCÍA',
      last_name: 'ÁLVAREZ',
      legal_id: '0102030405',
      tax_id: '0102030405001',
      tax_id_type: { type: 'ec-ruc', code: '06' },
    });
    expect(d.organization).toBeUndefined();
  });

  it('reads ANF AC extensions (1.3.6.1.4.1.18332.3.x), also when the value is bare bytes', () => {
    const arc = ecuadorianArcs.anfAc;
    const cert = pki.issue({
      subject: { commonName: 'PEDRO PÁEZ', organization: 'EXPORTADORA DEL PACÍFICO S.A.', country: 'EC' },
      extraExtensions: [
        { oid: `${arc}.1`, value: Buffer.from('0923456784'), raw: true },
        utf8Ext(`${arc}.5`, 'CONTADOR'),
        utf8Ext(`${arc}.11`, '0990012345001'),
      ],
    }).certificate;
    const d = describeX509(cert);
    expect(d.type).toBe('ec/business-employee');
    expect(d.principal.legal_id).toBe('0923456784');
    // No givenName/surname nor "nombres": the whole CN is the first name, never split by guesswork.
    expect(d.principal.first_name).toBe('PEDRO PÁEZ');
    expect(d.principal.last_name).toBe('');
    expect(d.organization).toMatchObject({ legal_name: 'EXPORTADORA DEL PACÍFICO S.A.', tax_id: '0990012345001' });
  });

  it('takes a RUC from an ETSI organizationIdentifier-style serialNumber and leaves the rest empty', () => {
    const cert = pki.issue({ subject: { commonName: 'ROSA QUISPE', serialNumber: 'IDCPE-45678912', country: 'PE' } }).certificate;
    const d = describeX509(cert);
    expect(d.type).toBe('ec/individual');
    expect(d.principal).toMatchObject({
      legal_id: '45678912',
      legal_id_type: { type: 'pe-dni', code: '1' },
      email: '',
      address: { line_1: '', locality: '', administrative_district_level_1: '', administrative_district_level_2: '', country: { code: 'PE', name: 'Perú' } },
    });
  });
});
