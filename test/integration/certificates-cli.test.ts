import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CertificateObject } from '../../core/certificates/index.js';
import { tempDir } from '../helpers/agent.js';
import { sello } from '../helpers/cli.js';
import { makePdf } from '../helpers/pdf-fixtures.js';
import { pdfsig } from '../helpers/pdf-tools.js';
import { testPrincipal as principal } from '../helpers/certificates.js';


/** CONTRACT §1 `certs issue-test`, §10; the issued key signs a PDF that pdfsig accepts. */
describe('sello certs issue-test', () => {
  let dir: string;
  const run = (args: string[]) => sello([...args, '--data-dir', path.join(dir, 'data')]);

  beforeAll(() => {
    dir = tempDir('sello-certs-cli-');
    fs.writeFileSync(path.join(dir, 'principal.json'), JSON.stringify(principal));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('refuses ec/instant for 365 days, naming the field, and stores nothing', () => {
    const res = run(['certs', 'issue-test', '--type', 'ec/instant', '--validity', '365', '--principal', path.join(dir, 'principal.json')]);
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain('validity');
    expect(run(['certs', 'list', '--json']).stdout.trim()).toBe('');
  });

  it('issues a certificate whose key signs a PDF showing the holder’s name', async () => {
    const res = run(['certs', 'issue-test', '--type', 'ec/individual', '--validity', '365', '--principal', path.join(dir, 'principal.json'), '--json']);
    expect(res.status, res.stderr).toBe(0);
    const cert = JSON.parse(res.stdout) as CertificateObject;
    expect(cert).toMatchObject({ type: 'ec/individual', validity: 365, environment: 'test', status: 'issued', principal });
    expect(fs.existsSync(path.join(dir, 'data', 'test-ca', 'test-ca.cert.pem'))).toBe(true);

    const input = path.join(dir, 'factura.pdf');
    const output = path.join(dir, 'factura-firmada.pdf');
    fs.writeFileSync(input, await makePdf());
    const signed = run(['sign', input, '--cert', cert.id, '--page', '1', '--x', '40', '--y', '40', '--out', output]);
    expect(signed.status, signed.stderr).toBe(0);
    const check = await pdfsig(fs.readFileSync(output));
    expect(check.validity).toEqual(['Signature is Valid.']);
    expect(check.output).toContain('Signer Certificate Common Name: Sofía Íñiguez Peña');
  });
});
