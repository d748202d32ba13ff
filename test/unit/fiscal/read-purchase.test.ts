/**
 * readPurchaseXml (CONTRACT §15 `POST /api/v1/purchases {xml}`): a received factura, bare or in
 * the SRI's `autorizacion`, read into a ReceivedPurchase once its XAdES-BES signature verifies;
 * everything else refused with its reason in Spanish, the hostile texts before any parsing.
 * The comprobantes are the SRI samples re-keyed and re-signed with a test key (the samples' own
 * keys have wrong check digits: fiscal README); the last test goes through the SRI client's
 * answer thread.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withCheckDigit } from '../../../core/documents/index.js';
import { MAX_PURCHASE_BYTES } from '../../../core/fiscal/sri/purchase-limits.js';
import type { PurchaseReading, ReceivedPurchase } from '../../../core/fiscal/sri/purchase-model.js';
import { isoAuthorizationDate } from '../../../core/fiscal/sri/purchase-wrapper.js';
import { readPurchaseXml } from '../../../core/fiscal/sri/read-purchase.js';
import { createSriClient } from '../../../core/fiscal/sri/soap-client.js';
import { autorizacionAnswer, cdata, escapeXml } from '../../helpers/fake-sri/answers.js';
import { readSample, rekey, signedComprobante, signWithTemplate, type TestSigningKey } from '../../helpers/fake-sri/sign-for-tests.js';
import { createTestPki, TEST_SUBJECT, type TestPki } from '../../helpers/test-ca.js';

let pki: TestPki;
let key: TestSigningKey;
/** The invoice sample re-keyed, addressed to a company, signed with the test key. */
let signed: { xml: string; accessKey: string };

const BUYER = { idTypeCode: '04', taxId: '1790012345001', name: 'Comercial Andina & Cía. S.A.' };

beforeAll(async () => {
  pki = await createTestPki();
  key = { keyPem: pki.leaf.privateKeyPem, certPem: pki.leaf.certificatePem };
  signed = await signedComprobante(key, { secuencial: '000000123', buyer: BUYER });
});
afterAll(() => pki.cleanup());

function purchaseOf(reading: PurchaseReading): Extract<PurchaseReading, { kind: 'purchase' }> {
  if (reading.kind !== 'purchase') throw new Error(`refused: ${reading.reason}`);
  return reading;
}

function reasonOf(reading: PurchaseReading): string {
  if (reading.kind !== 'refused') throw new Error(`read as a purchase: ${reading.purchase.numero}`);
  return reading.reason;
}

/** An `autorizacion` as suppliers e-mail it: the SRI's element alone, the comprobante inside as text. */
function autorizacion(comprobante: string, over: { estado?: string; numero?: string; fecha?: string; ambiente?: string; escaped?: boolean; mensajes?: string } = {}): string {
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n<autorizacion>\n' +
    `  <estado>${over.estado ?? 'AUTORIZADO'}</estado>\n` +
    `  <numeroAutorizacion>${over.numero ?? signed.accessKey}</numeroAutorizacion>\n` +
    `  <fechaAutorizacion>${over.fecha ?? '2024-04-18T14:40:02-05:00'}</fechaAutorizacion>\n` +
    `  <ambiente>${over.ambiente ?? 'PRUEBAS'}</ambiente>\n` +
    `  <comprobante>${over.escaped ? escapeXml(comprobante) : cdata(comprobante)}</comprobante>\n` +
    `  ${over.mensajes ?? '<mensajes/>'}\n</autorizacion>\n`
  );
}

describe('a signed factura, bare', () => {
  it('is read field by field, with its signer and its exact text', () => {
    const reading = purchaseOf(readPurchaseXml(signed.xml));
    expect(reading.purchase).toEqual({
      accessKey: signed.accessKey,
      codDoc: '01',
      version: '1.1.0',
      ambiente: 1,
      supplier: { ruc: '1234567890001', name: 'Nombre Apellido', tradeName: '1500932445001', address: 'Quito, Amazonas y El Inca' },
      buyer: BUYER,
      numero: '001-001-000000123',
      issueDate: '2024-04-18',
      currency: 'USD',
      totalWithoutTaxes: '38.75',
      totalDiscount: '3.00',
      taxes: [{ codigo: '2', codigoPorcentaje: '4', baseImponible: '38.75', tarifa: '15', valor: '5.81' }],
      grandTotal: '44.56',
      payments: [{ method: '20', amount: '44.56' }],
    } satisfies ReceivedPurchase);
    expect(signed.accessKey).toMatch(/^180420240112345678900011001001000000123123456781\d$/);
    expect(reading.signerName).toBe(TEST_SUBJECT.commonName);
    expect(reading.comprobante).toBe(signed.xml);
    expect(reading).not.toHaveProperty('authorization');
  });

  it('with a byte order mark: read, and kept without it', () => {
    const reading = purchaseOf(readPurchaseXml(`\uFEFF${signed.xml}`));
    expect(reading.comprobante).toBe(signed.xml);
    expect(reading.purchase.accessKey).toBe(signed.accessKey);
  });

  it('takes each rate from tarifa when written, else from the IVA code, else (ICE) from valor ÷ base', async () => {
    const taxes =
      '<totalImpuesto><codigo>2</codigo><codigoPorcentaje>2</codigoPorcentaje><baseImponible>10</baseImponible><tarifa>12.00</tarifa><valor>1.2</valor></totalImpuesto>' +
      '<totalImpuesto><codigo>2</codigo><codigoPorcentaje>10</codigoPorcentaje><baseImponible>20.00</baseImponible><valor>2.60</valor></totalImpuesto>' +
      '<totalImpuesto><codigo>3</codigo><codigoPorcentaje>3011</codigoPorcentaje><baseImponible>38.75</baseImponible><valor>5.00</valor></totalImpuesto>' +
      '<totalImpuesto><codigo>5</codigo><codigoPorcentaje>5001</codigoPorcentaje><baseImponible>0.00</baseImponible><valor>0.00</valor></totalImpuesto>';
    const { xml } = rekey(readSample('invoice').replace('</totalConImpuestos>', `${taxes}</totalConImpuestos>`), { secuencial: '000000124' });
    const reading = purchaseOf(readPurchaseXml(await signWithTemplate(xml, key)));
    expect(reading.purchase.taxes).toEqual([
      { codigo: '2', codigoPorcentaje: '4', baseImponible: '38.75', tarifa: '15', valor: '5.81' },
      { codigo: '2', codigoPorcentaje: '2', baseImponible: '10.00', tarifa: '12', valor: '1.20' },
      { codigo: '2', codigoPorcentaje: '10', baseImponible: '20.00', tarifa: '13', valor: '2.60' },
      // 5.00 / 38.75 × 100 = 12.903…
      { codigo: '3', codigoPorcentaje: '3011', baseImponible: '38.75', tarifa: '12.9', valor: '5.00' },
      { codigo: '5', codigoPorcentaje: '5001', baseImponible: '0.00', tarifa: '0', valor: '0.00' },
    ]);
  });

  it('the third party’s own sample: its signature holds, its access key’s check digit does not', () => {
    expect(reasonOf(readPurchaseXml(readSample('invoice')))).toBe(
      'La clave de acceso 1804202401123456789000110010010000000051234567816 no es válida: su dígito verificador (módulo 11) debería ser 2, no 6.',
    );
  });
});

describe('an autorizacion holding the factura', () => {
  it('in CDATA: the comprobante’s exact text, and the authorization as the SRI wrote it', () => {
    const reading = purchaseOf(readPurchaseXml(autorizacion(signed.xml)));
    expect(reading.comprobante).toBe(signed.xml);
    expect(reading.authorization).toEqual({ number: signed.accessKey, date: '2024-04-18T14:40:02-05:00' });
    expect(reading.purchase.numero).toBe('001-001-000000123');
    expect(reading.signerName).toBe(TEST_SUBJECT.commonName);
  });

  it('as escaped text, its dd/mm/aaaa date turned into ISO (Ecuador, UTC−5)', () => {
    const reading = purchaseOf(readPurchaseXml(autorizacion(signed.xml, { escaped: true, fecha: '18/04/2024 14:40:02' })));
    expect(reading.comprobante).toBe(signed.xml);
    expect(reading.authorization).toEqual({ number: signed.accessKey, date: '2024-04-18T14:40:02-05:00' });
  });

  it('inside the SRI’s SOAP answer, the AUTORIZADO one among several attempts', () => {
    const answer = autorizacionAnswer(signed.accessKey, [
      { estado: 'NO AUTORIZADO', numeroAutorizacion: signed.accessKey, fechaAutorizacion: '2024-04-18T14:30:00-05:00', mensajes: [] },
      { estado: 'AUTORIZADO', numeroAutorizacion: signed.accessKey, fechaAutorizacion: '2024-04-18T14:40:02.123-05:00', ambiente: 'PRUEBAS', comprobante: signed.xml, mensajes: [] },
    ]);
    const reading = purchaseOf(readPurchaseXml(answer));
    expect(reading.authorization).toEqual({ number: signed.accessKey, date: '2024-04-18T14:40:02.123-05:00' });
    expect(reading.comprobante).toBe(signed.xml);
  });

  it('with a 37-digit number of the old scheme: kept as it is', () => {
    const old = '1804201614402517921467390011234567891';
    expect(purchaseOf(readPurchaseXml(autorizacion(signed.xml, { numero: old }))).authorization?.number).toBe(old);
  });

  it('NO AUTORIZADO: refused with the SRI’s messages', () => {
    const mensajes = '<mensajes><mensaje><identificador>39</identificador><mensaje>FIRMA INVALIDA</mensaje><tipo>ERROR</tipo></mensaje></mensajes>';
    expect(reasonOf(readPurchaseXml(autorizacion(signed.xml, { estado: 'NO AUTORIZADO', mensajes })))).toBe(
      'El SRI no autorizó este comprobante: la autorización dice NO AUTORIZADO (39: FIRMA INVALIDA).',
    );
    expect(reasonOf(readPurchaseXml(autorizacionAnswer(signed.accessKey, [])))).toMatch(/no trae ninguna autorización/);
  });

  it('refuses a number that is not this comprobante’s key, nor any authorization number', () => {
    const other = withCheckDigit(`${signed.accessKey.slice(0, 39)}99999999${signed.accessKey[47]}`);
    expect(reasonOf(readPurchaseXml(autorizacion(signed.xml, { numero: other })))).toBe(
      `El número de autorización ${other} no es la clave de acceso del comprobante (${signed.accessKey}): la autorización es de otro documento.`,
    );
    expect(reasonOf(readPurchaseXml(autorizacion(signed.xml, { numero: '12345' })))).toMatch(/«12345» no es una clave de acceso \(49 dígitos\) ni un número de autorización del esquema anterior/);
  });

  it('refuses an ambiente that is not the comprobante’s', () => {
    expect(reasonOf(readPurchaseXml(autorizacion(signed.xml, { ambiente: 'PRODUCCIÓN' })))).toBe('La autorización es del ambiente de producción y el comprobante dice pruebas.');
  });

  it('refuses a comprobante written as elements, whose signed bytes are lost', () => {
    const asElements = autorizacion('x').replace('<comprobante><![CDATA[x]]></comprobante>', `<comprobante>${signed.xml.replace(/^<\?xml[^>]*\?>/, '')}</comprobante>`);
    expect(reasonOf(readPurchaseXml(asElements))).toMatch(/como elementos XML y no como texto/);
  });
});

describe('refused', () => {
  it('a factura whose amount changed after signing, bare or in its autorizacion: the signature says why', () => {
    const tampered = signed.xml.replace('<importeTotal>44.56</importeTotal>', '<importeTotal>4456.00</importeTotal>');
    expect(tampered).not.toBe(signed.xml);
    const reason = 'La firma electrónica del comprobante no es válida. El contenido del comprobante cambió después de firmarlo: el resumen de #comprobante no coincide.';
    expect(reasonOf(readPurchaseXml(tampered))).toBe(reason);
    expect(reasonOf(readPurchaseXml(autorizacion(tampered)))).toBe(reason);
  });

  it('a comprobante with no signature', () => {
    const { xml } = rekey(readSample('invoice', 'unsigned'));
    expect(reasonOf(readPurchaseXml(xml))).toBe('La firma electrónica del comprobante no es válida. El XML no tiene firma (ds:Signature).');
  });

  it('an access key whose check digit is wrong', async () => {
    const digit = Number(signed.accessKey[48]);
    const wrong = `${signed.accessKey.slice(0, 48)}${(digit + 1) % 10}`;
    const { xml } = await signedComprobante(key, { secuencial: '000000123', claveAcceso: wrong });
    expect(reasonOf(readPurchaseXml(xml))).toBe(`La clave de acceso ${wrong} no es válida: su dígito verificador (módulo 11) debería ser ${digit}, no ${(digit + 1) % 10}.`);
  });

  it('an access key, valid, that names another document than the fields say', async () => {
    const another = withCheckDigit(`${signed.accessKey.slice(0, 30)}000000999${signed.accessKey.slice(39, 48)}`);
    const { xml } = await signedComprobante(key, { secuencial: '000000123', claveAcceso: another });
    expect(reasonOf(readPurchaseXml(xml))).toBe(`La clave de acceso ${another} no corresponde al comprobante: su secuencial es 000000999 y el comprobante dice 000000123.`);
  });

  it('an issue date that is no day', async () => {
    const { xml } = await signedComprobante(key, { fechaEmision: '31/02/2024' });
    expect(reasonOf(readPurchaseXml(xml))).toBe('infoFactura/fechaEmision «31/02/2024» no es una fecha dd/mm/aaaa válida.');
  });

  it('a nota de crédito or a comprobante de retención, named', async () => {
    const { xml } = await signedComprobante(key, { sample: 'credit-note' });
    expect(reasonOf(readPurchaseXml(xml))).toBe('El XML es una nota de crédito (notaCredito), no una factura: Sello registra como compras solo facturas (codDoc 01).');
    expect(reasonOf(readPurchaseXml(autorizacion(xml)))).toMatch(/^El XML es una nota de crédito/);
    expect(reasonOf(readPurchaseXml(readSample('withholding-certificate')))).toMatch(/^El XML es un comprobante de retención \(comprobanteRetencion\)/);
    expect(reasonOf(readPurchaseXml('<pedido><numero>1</numero></pedido>'))).toBe('El XML no es una factura del SRI ni su autorización: su elemento raíz es <pedido>.');
  });

  it('what is not XML, or empty', () => {
    expect(reasonOf(readPurchaseXml('factura 001-001-123 por 44,56'))).toMatch(/^El XML está mal formado/);
    expect(reasonOf(readPurchaseXml('<factura id="comprobante"><infoTributaria>'))).toMatch(/^El XML está mal formado/);
    expect(reasonOf(readPurchaseXml('  \n'))).toBe('No llegó el XML del comprobante.');
    expect(reasonOf(readPurchaseXml(autorizacion('no es xml')))).toMatch(/^El comprobante que trae la autorización no se puede leer\. El XML está mal formado/);
  });

  it('a DTD, an entity bomb, also inside an autorizacion, before any parser sees them', () => {
    const dtd = `<?xml version="1.0"?><!DOCTYPE factura SYSTEM "file:///etc/passwd">${signed.xml.replace(/^<\?xml[^>]*\?>/, '')}`;
    const lol = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('');
    const bomb = `<?xml version="1.0"?><!DOCTYPE factura [<!ENTITY l0 "lol">${lol}]><factura id="comprobante" version="1.1.0">&l9;</factura>`;
    for (const text of [dtd, bomb, autorizacion(bomb)]) expect(reasonOf(readPurchaseXml(text))).toMatch(/declaración DOCTYPE o ENTITY/);
  });

  it('3 MB, by its size alone', () => {
    expect(reasonOf(readPurchaseXml(`<factura>${' '.repeat(3 * 1024 * 1024)}</factura>`))).toBe('El XML pesa al menos 3 MB; Sello admite hasta 2 MB para una compra.');
    // Under the limit in characters, over it in UTF-8 bytes.
    expect(reasonOf(readPurchaseXml(`<factura>${'ñ'.repeat(MAX_PURCHASE_BYTES / 2)}</factura>`))).toBe('El XML pesa 2,01 MB; Sello admite hasta 2 MB para una compra.');
  });

  it('more than 2,000 lines or 100 taxes, counted before parsing, also escaped', () => {
    const lines = `<factura id="comprobante" version="1.1.0"><detalles>${'<detalle/>'.repeat(2_001)}</detalles></factura>`;
    expect(reasonOf(readPurchaseXml(lines))).toBe('El comprobante tiene más de 2.000 líneas de detalle; Sello no registra compras tan largas.');
    expect(reasonOf(readPurchaseXml(autorizacion(lines, { escaped: true })))).toMatch(/más de 2\.000 líneas/);
    const taxes = `<factura id="comprobante" version="1.1.0"><infoFactura><totalConImpuestos>${'<totalImpuesto></totalImpuesto>'.repeat(101)}</totalConImpuestos></infoFactura></factura>`;
    expect(reasonOf(readPurchaseXml(taxes))).toMatch(/más de 100 impuestos/);
    // Written with character references inside the autorizacion: counted again on the comprobante's own text.
    const hidden = `<autorizacion><estado>AUTORIZADO</estado><numeroAutorizacion>${signed.accessKey}</numeroAutorizacion><fechaAutorizacion>x</fechaAutorizacion><comprobante>&#60;factura id="comprobante" version="1.1.0">&#60;detalles>${'&#60;detalle/>'.repeat(2_001)}&#60;/detalles>&#60;/factura></comprobante></autorizacion>`;
    expect(reasonOf(readPurchaseXml(hidden))).toMatch(/más de 2\.000 líneas/);
  });
});

describe('isoAuthorizationDate', () => {
  it('keeps xs:dateTime with its offset, converts dd/mm/aaaa hh:mm:ss, keeps other short texts', () => {
    expect(isoAuthorizationDate('2024-04-18T14:40:02-05:00')).toBe('2024-04-18T14:40:02-05:00');
    expect(isoAuthorizationDate('2024-04-18T19:40:02Z')).toBe('2024-04-18T19:40:02Z');
    expect(isoAuthorizationDate('01/12/2023 08:05:09')).toBe('2023-12-01T08:05:09-05:00');
    expect(isoAuthorizationDate('01/12/2023 08:05')).toBe('2023-12-01T08:05:00-05:00');
    expect(isoAuthorizationDate('31/02/2023 08:05:09')).toBe('31/02/2023 08:05:09');
    expect(isoAuthorizationDate('2024-04-18 14:40')).toBe('2024-04-18 14:40');
    expect(isoAuthorizationDate('x'.repeat(65))).toBeUndefined();
  });
});

describe('SriClient.readPurchase', () => {
  it('reads on the client’s answer thread, and refuses an oversized text without it', async () => {
    const sri = createSriClient();
    try {
      const [bare, wrapped, hostile] = await Promise.all([
        sri.readPurchase(signed.xml),
        sri.readPurchase(autorizacion(signed.xml, { escaped: true })),
        sri.readPurchase('<!DOCTYPE x [<!ENTITY a "a">]><x>&a;</x>'),
      ]);
      expect(purchaseOf(bare).purchase).toEqual(purchaseOf(readPurchaseXml(signed.xml)).purchase);
      expect(purchaseOf(wrapped).authorization).toEqual({ number: signed.accessKey, date: '2024-04-18T14:40:02-05:00' });
      expect(purchaseOf(wrapped).comprobante).toBe(signed.xml);
      expect(reasonOf(hostile)).toMatch(/declaración DOCTYPE o ENTITY/);
      expect(reasonOf(await sri.readPurchase('x'.repeat(MAX_PURCHASE_BYTES + 1)))).toMatch(/^El XML pesa al menos 2 MB/);
    } finally {
      sri.close();
    }
  });
});
