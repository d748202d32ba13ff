import { describe, expect, it } from 'vitest';
import { errorText, failureFromFields } from '../../../core/watch/index.js';

const at = new Date('2026-03-01T15:04:05.000Z');

/** Code → a word the headline or the advice must contain (Spanish, for a person). */
const expected: Record<string, { headline: RegExp; todo: RegExp }> = {
  not_pdf: { headline: /No es un PDF/, todo: /exporte el documento como PDF/ },
  pdf_damaged: { headline: /dañado/, todo: /vuelva a generarlo o a escanearlo/ },
  pdf_encrypted: { headline: /contraseña/, todo: /guárdelo sin contraseña/ },
  pdf_changes_forbidden: { headline: /certificado y no admite firmas/, todo: /sin certificar/ },
  page_out_of_range: { headline: /página del sello no existe/, todo: /--page last/ },
  stamp_outside_page: { headline: /no cabe/, todo: /x, y o el tamaño/ },
  certificate_expired: { headline: /vencido/, todo: /Renuévelo/ },
  certificate_not_issued: { headline: /todavía no es válido/, todo: /fecha de inicio es futura/ },
  certificate_not_found: { headline: /no existe/, todo: /sello certs list/ },
  pin_incorrect: { headline: /PIN incorrecto/, todo: /PIN correcto/ },
  pin_locked: { headline: /PIN bloqueado/, todo: /Desbloquéelo/ },
  rejected: { headline: /rechazada/, todo: /rechazó la firma/ },
};

describe('errorText', () => {
  for (const [code, { headline, todo }] of Object.entries(expected)) {
    it(`explains ${code} in Spanish with what to do`, () => {
      const text = errorText('factura ñ.pdf', { code, detail: `detalle de ${code}` }, at);
      const lines = text.split('\r\n');
      expect(lines[0]).toMatch(/^No se firmó «factura ñ\.pdf»: /);
      expect(lines[0]).toMatch(headline);
      expect(text).toContain(`Detalle: detalle de ${code}`);
      expect(text).toMatch(new RegExp(`Qué hacer: .*${todo.source}`));
      expect(text).toContain('Fecha: 2026-03-01T15:04:05.000Z');
      expect(text).toContain(`Código: ${code}`);
    });
  }

  it('gives a generic headline and advice for a code it does not know', () => {
    const text = errorText('x.pdf', { code: 'codigo_nuevo', detail: 'algo' }, at);
    expect(text).toMatch(/^No se firmó «x\.pdf»: No se pudo firmar\./);
    expect(text).toContain('Qué hacer: Revise el detalle');
    expect(text).toContain('Código: codigo_nuevo');
  });

  it('uses CRLF line ends (read with Notepad on Windows) and ends with one', () => {
    const text = errorText('x.pdf', { code: 'not_pdf', detail: 'd' }, at);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/\r\n/g, '')).not.toMatch(/\n/);
  });
});

describe('failureFromFields', () => {
  const cases: Array<[Record<string, string[]>, string]> = [
    [{ 'documents.0.document_base64': ['el PDF está cifrado'] }, 'pdf_encrypted'],
    [{ 'documents.0.document_base64': ['el PDF está certificado sin permitir cambios'] }, 'pdf_changes_forbidden'],
    [{ 'documents.0.document_base64': ['no es un PDF legible'] }, 'pdf_damaged'],
    [{ 'documents.0.signatures.0.signing_certificate': ['el certificado caducó el 2025-01-01'] }, 'certificate_expired'],
    [{ 'documents.0.signatures.0.signing_certificate': ['el certificado está vencido'] }, 'certificate_expired'],
    [{ 'documents.0.signatures.0.signing_certificate': ['el certificado es válido desde 2030-01-01'] }, 'certificate_not_issued'],
    [{ 'documents.0.signatures.0.signing_certificate': ['no existe'] }, 'certificate_not_found'],
    [{ 'documents.0.signatures.0.page': ['la página 5 no existe'] }, 'page_out_of_range'],
    [{ 'documents.0.signatures.0.x': ['fuera de la página'] }, 'stamp_outside_page'],
    [{ 'documents.0.signatures.0.y': ['fuera de la página'] }, 'stamp_outside_page'],
    [{ subject: ['demasiado largo'] }, 'validation_failed'],
  ];
  for (const [fields, code] of cases) {
    it(`maps ${JSON.stringify(fields)} to ${code}`, () => {
      const failure = failureFromFields(fields);
      expect(failure.code).toBe(code);
      expect(failure.detail).toBe(Object.values(fields).flat().join('; '));
    });
  }
});
