import { describe, expect, it } from 'vitest';
import { callbackUrlProblem, decodeBase64, fileName } from '../../../core/signing/requests/index.js';

describe('decodeBase64', () => {
  it('decodes padded base64 and tolerates line breaks', () => {
    expect(decodeBase64('JVBERi0=')?.toString()).toBe('%PDF-');
    expect(decodeBase64('JVBE\r\nRi0=')?.toString()).toBe('%PDF-');
  });
  it('refuses characters outside the alphabet, bad padding and emptiness', () => {
    expect(decodeBase64('no es base64!!')).toBeUndefined();
    expect(decodeBase64('JVBERi0')).toBeUndefined();
    expect(decodeBase64('')).toBeUndefined();
    expect(decodeBase64('JVBERi0-')).toBeUndefined();
  });
  it('refuses padding anywhere but at the end, and more than two', () => {
    expect(decodeBase64('JV=ERi0=')).toBeUndefined();
    expect(decodeBase64('JVBE=i0=')).toBeUndefined();
    expect(decodeBase64('JVB===')).toBeUndefined();
    expect(decodeBase64('JVBERg==')?.toString()).toBe('%PDF');
    expect(decodeBase64('JVBERi0=\r\n')?.toString()).toBe('%PDF-');
  });
  it('decodes megabytes of line-wrapped base64 to the same bytes', () => {
    const bytes = Buffer.from(Array.from({ length: 3 * 1024 * 1024 }, (_, i) => (i * 7919) % 256));
    const wrapped = bytes.toString('base64').replace(/.{76}/g, '$&\r\n');
    expect(decodeBase64(wrapped)?.equals(bytes)).toBe(true);
  });
});

describe('callbackUrlProblem', () => {
  it('accepts https URLs only', () => {
    expect(callbackUrlProblem('https://erp.example/cb')).toBeUndefined();
    expect(callbackUrlProblem('http://erp.example/cb')).toBe('debe ser una URL HTTPS');
    expect(callbackUrlProblem('ftp://erp.example')).toBe('debe ser una URL HTTPS');
    expect(callbackUrlProblem('no una url')).toBe('no es una URL válida');
    expect(callbackUrlProblem('https://u:p@erp.example')).toBe('no debe llevar usuario ni contraseña');
  });
});

describe('fileName', () => {
  it('adds the extension once and drops path separators', () => {
    expect(fileName('Contrato', 'pdf')).toBe('Contrato.pdf');
    expect(fileName('Contrato.PDF', 'pdf')).toBe('Contrato.PDF');
    expect(fileName('../../etc/passwd', 'pdf')).toBe('.._.._etc_passwd.pdf');
    expect(fileName('   ', 'pdf')).toBe('documento.pdf');
  });
});
