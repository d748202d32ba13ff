import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/agent.js';
import { sello } from '../../helpers/cli.js';
import { makePdf } from '../../helpers/pdf-fixtures.js';
import { pdfsig, qpdfCheck, readQrCode } from '../../helpers/pdf-tools.js';
import { createSoftHsm, SOFTHSM_MODULE, type SoftHsm } from '../../helpers/softhsm.js';
import { createTestPki, TEST_SUBJECT, type TestPki } from '../../helpers/test-ca.js';

/**
 * CONTRACT §1, §12 through the real command: a PDF signed by a token key, a .p12 key
 * and the token again keeps all three signatures valid (issue 4, acceptance).
 */
describe('sello sign, verify, tokens and certs', () => {
  let pki: TestPki;
  let hsm: SoftHsm;
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let tokenCert: string;
  let p12Cert: string;
  let unsigned: string;

  const run = (args: string[], input?: string) => sello([...args, '--data-dir', path.join(dir, 'data')], { env, ...(input !== undefined ? { input } : {}) });
  const json = <T>(args: string[], input?: string): T => {
    const res = run([...args, '--json'], input);
    if (res.status !== 0) throw new Error(`${args.join(' ')}: ${res.stderr}`);
    return JSON.parse(res.stdout.trim().split('\n')[0]!) as T;
  };

  function p12File(name: string, issued: { certificatePem: string; privateKeyPem: string; chain: Buffer[] }, password: string): string {
    const key = path.join(dir, `${name}.key.pem`);
    const cert = path.join(dir, `${name}.cert.pem`);
    const out = path.join(dir, `${name}.p12`);
    fs.writeFileSync(key, issued.privateKeyPem);
    fs.writeFileSync(cert, issued.certificatePem);
    execFileSync('openssl', ['pkcs12', '-export', '-inkey', key, '-in', cert, '-certfile', pki.ca.certificatePath, '-out', out, '-passout', `pass:${password}`]);
    return out;
  }

  beforeAll(async () => {
    dir = tempDir('sello-sign-');
    pki = await createTestPki();
    hsm = await createSoftHsm();
    // The test PKI's CA as a configured root: `sello verify` exits 0 only for trusted signers.
    env = { SOFTHSM2_CONF: hsm.confPath, SELLO_PKCS11_MODULES: SOFTHSM_MODULE, SELLO_TRUST_ROOTS: pki.ca.certificatePath };
    const token = await hsm.initToken({ label: 'ana', pin: '1234' });
    await token.importKey({ id: '01', label: 'ana', key: pki.leaf.privateKey, certificate: pki.leaf.certificate });

    const listed = json<{ token: { label: string }; certificates: Array<{ id: string; subject: string }> }>(['tokens', '--module', SOFTHSM_MODULE]);
    expect(listed.token.label).toBe('ana');
    tokenCert = listed.certificates[0]!.id;

    const luis = pki.issue({ subject: { commonName: 'LUIS ÑAUPARI QUISPE', country: 'PE' }, validityDays: 365 });
    p12Cert = json<{ id: string }>(['certs', 'import-p12', p12File('luis', luis, 'clave-ñ'), '--password-stdin'], 'clave-ñ\n').id;

    unsigned = path.join(dir, 'factura.pdf');
    fs.writeFileSync(unsigned, await makePdf({ pages: [{}, { size: [612, 792], rotate: 90 }] }));
  });
  afterAll(async () => {
    await hsm.cleanup();
    await pki.cleanup();
  });

  it('signs with the token, the .p12 and the token again: every signature valid, file clean', async () => {
    const one = path.join(dir, 'uno.pdf');
    const two = path.join(dir, 'dos.pdf');
    const three = path.join(dir, 'tres.pdf');
    const original = fs.readFileSync(unsigned);
    expect(run(['sign', unsigned, '--cert', tokenCert, '--page', '1', '--x', '36', '--y', '36', '--out', one, '--pin-stdin'], '1234\n').status).toBe(0);
    expect(run(['sign', one, '--cert', p12Cert, '--page', '2', '--x', '36', '--y', '36', '--size', 'm', '--out', two]).status).toBe(0);
    expect(run(['sign', two, '--cert', tokenCert, '--page', 'last', '--x', '300', '--y', '400', '--out', three, '--pin-stdin'], '1234\n').status).toBe(0);
    expect(fs.readFileSync(unsigned).equals(original)).toBe(true);

    const signed = fs.readFileSync(three);
    const report = await pdfsig(signed);
    expect(report.validity).toEqual(['Signature is Valid.', 'Signature is Valid.', 'Signature is Valid.']);
    expect(report.lastCoversWholeDocument).toBe(true);
    expect((await qpdfCheck(signed)).ok).toBe(true);

    const verified = run(['verify', three, '--json']);
    expect(verified.status).toBe(0);
    const lines = verified.stdout.trim().split('\n').map((l) => JSON.parse(l) as { signer: string; intact: boolean; covers_whole_file: boolean });
    expect(lines.map((l) => [l.signer, l.intact])).toEqual([
      [TEST_SUBJECT.commonName, true],
      ['LUIS ÑAUPARI QUISPE', true],
      [TEST_SUBJECT.commonName, true],
    ]);
    expect(lines.map((l) => l.covers_whole_file)).toEqual([false, false, true]);
  });

  it('stamps a QR that decodes to signer, time and certificate serial', async () => {
    const out = path.join(dir, 'qr.pdf');
    expect(run(['sign', unsigned, '--cert', p12Cert, '--page', '1', '--x', '50', '--y', '60', '--out', out]).status).toBe(0);
    const text = await readQrCode(fs.readFileSync(out), 1, { x: 40, y: 50, width: 170, height: 170 });
    const serial = new (await import('node:crypto')).X509Certificate(fs.readFileSync(path.join(dir, 'luis.cert.pem'))).serialNumber.toUpperCase();
    expect(text).toMatch(new RegExp(`^FIRMADO POR: LUIS ÑAUPARI QUISPE\\nFECHA: \\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z\\nCERTIFICADO: ${serial}$`));
  });

  it('lists certificates with their ids', () => {
    const res = run(['certs', 'list', '--json']);
    const ids = res.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { id: string }).id);
    expect(ids).toEqual(expect.arrayContaining([tokenCert, p12Cert]));
  });

  describe('bad input: a clear error, exit 1, nothing written', () => {
    const out = () => path.join(dir, 'nunca.pdf');
    function refuses(args: string[], message: RegExp, input?: string): void {
      const res = run(args, input);
      expect(res.status, res.stderr).toBe(1);
      expect(res.stderr.trim().split('\n')).toHaveLength(1);
      expect(res.stderr).toMatch(message);
      expect(fs.existsSync(out())).toBe(false);
    }

    it('refuses a file that is not a PDF, and a truncated one', () => {
      const notPdf = path.join(dir, 'no.pdf');
      fs.writeFileSync(notPdf, 'esto no es un PDF');
      refuses(['sign', notPdf, '--cert', p12Cert, '--page', '1', '--x', '0', '--y', '0', '--out', out()], /no empieza como un PDF/);
      const truncated = path.join(dir, 'cortado.pdf');
      const bytes = fs.readFileSync(unsigned);
      fs.writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
      refuses(['sign', truncated, '--cert', p12Cert, '--page', '1', '--x', '0', '--y', '0', '--out', out()], /PDF/);
    });

    it('refuses an encrypted PDF', () => {
      const encrypted = path.join(dir, 'cifrado.pdf');
      execFileSync('qpdf', ['--encrypt', 'usuario', 'dueno', '256', '--', unsigned, encrypted]);
      refuses(['sign', encrypted, '--cert', p12Cert, '--page', '1', '--x', '0', '--y', '0', '--out', out()], /protegido con contraseña/);
    });

    it('refuses page 0, a page beyond the last, and a stamp outside the crop box', () => {
      refuses(['sign', unsigned, '--cert', p12Cert, '--page', '0', '--x', '0', '--y', '0', '--out', out()], /página/i);
      refuses(['sign', unsigned, '--cert', p12Cert, '--page', '3', '--x', '0', '--y', '0', '--out', out()], /página/i);
      refuses(['sign', unsigned, '--cert', p12Cert, '--page', '1', '--x', '500', '--y', '800', '--out', out()], /no cabe en la página/);
    });

    it('refuses a wrong PIN once, without retrying, and signs with the right one afterwards', () => {
      refuses(['sign', unsigned, '--cert', tokenCert, '--page', '1', '--x', '36', '--y', '36', '--out', out(), '--pin-stdin'], /PIN no es correcto/, '9999\n');
      const ok = path.join(dir, 'despues.pdf');
      expect(run(['sign', unsigned, '--cert', tokenCert, '--page', '1', '--x', '36', '--y', '36', '--out', ok, '--pin-stdin'], '1234\n').status).toBe(0);
    });

    it('refuses an unknown certificate and a missing module path', () => {
      refuses(['sign', unsigned, '--cert', 'no-existe', '--page', '1', '--x', '0', '--y', '0', '--out', out()], /No existe el certificado no-existe/);
      refuses(['tokens', '--module', path.join(dir, 'no-existe.so')], /No existe el controlador PKCS#11/);
    });

    it('refuses a .p12 with a wrong password and stores nothing', () => {
      const before = run(['certs', 'list', '--json']).stdout;
      const file = p12File('otra', pki.issue({ subject: { commonName: 'OTRA PERSONA' } }), 'correcta');
      refuses(['certs', 'import-p12', file, '--password-stdin'], /contraseña del archivo \.p12 no es correcta/, 'equivocada\n');
      expect(run(['certs', 'list', '--json']).stdout).toBe(before);
    });

    it('refuses to sign with an expired certificate', () => {
      const expired = pki.issue({ subject: { commonName: 'CADUCADO' }, notBefore: new Date('2020-01-01'), notAfter: new Date('2021-01-01') });
      const id = json<{ id: string }>(['certs', 'import-p12', p12File('caducado', expired, 'x'), '--password-stdin'], 'x\n').id;
      refuses(['sign', unsigned, '--cert', id, '--page', '1', '--x', '0', '--y', '0', '--out', out()], /caducó/);
    });

    it('verify exits 1 for a PDF without signatures and for a tampered one', () => {
      expect(run(['verify', unsigned]).status).toBe(1);
      const good = path.join(dir, 'para-alterar.pdf');
      expect(run(['sign', unsigned, '--cert', p12Cert, '--page', '1', '--x', '36', '--y', '36', '--out', good]).status).toBe(0);
      const bytes = fs.readFileSync(good);
      // The binary comment on the second line: inside the signed range, harmless to parsers.
      expect(bytes.subarray(0, 9).toString('latin1')).toBe('%PDF-1.7\n');
      bytes[10] = bytes[10] === 0x81 ? 0x82 : 0x81;
      const tampered = path.join(dir, 'alterado.pdf');
      fs.writeFileSync(tampered, bytes);
      const res = run(['verify', tampered]);
      expect(res.status).toBe(1);
      expect(res.stdout).toMatch(/NO íntegra/);
    });
  });
});
