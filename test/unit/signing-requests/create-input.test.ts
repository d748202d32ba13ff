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
