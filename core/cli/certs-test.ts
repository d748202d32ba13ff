import fs from 'node:fs/promises';
import { withDataStore } from '../data-store.js';
import { issueTestCertificate, openDataTestCa, parseTestCertificateRequest } from '../certificates/index.js';
import { loadSecretBox } from '../secrets/index.js';
import { dataDirOf, parse, UsageError, type Io } from './args.js';

async function readJsonFile(file: string, option: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    throw new UsageError(`No se puede leer ${file} (${option}).`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(`${file} (${option}) no es JSON válido.`);
  }
}

/**
 * `sello certs issue-test --type T --validity D --principal FILE.json [--organization FILE.json]`
 * (CONTRACT §1, §10): issues a test certificate from the data folder's test CA. The same
 * checks as `POST /admin/api/test-certificates`; a bad request exits 1 naming the field.
 */
export async function issueTest(args: string[], io: Io): Promise<number> {
  const { values } = parse(args, {
    type: { type: 'string' },
    validity: { type: 'string' },
    principal: { type: 'string' },
    organization: { type: 'string' },
  });
  if (!values.type) throw new UsageError('Falta --type (por ejemplo ec/individual).');
  if (values.validity === undefined) throw new UsageError('Falta --validity (1, 365, 732, 1095 o 1825 días).');
  if (!values.principal) throw new UsageError('Falta --principal ARCHIVO.json con los datos del titular.');
  const validity = /^\d+(\.\d+)?$/.test(values.validity) ? Number(values.validity) : values.validity;
  const body: Record<string, unknown> = { type: values.type, validity, principal: await readJsonFile(values.principal, '--principal') };
  if (values.organization) body.organization = await readJsonFile(values.organization, '--organization');
  // Checked before the store or the CA is opened: a bad request changes nothing.
  const request = parseTestCertificateRequest(body);
  const dataDir = dataDirOf(values);
  const ca = await openDataTestCa(dataDir);
  await withDataStore(dataDir, (store) => {
    const cert = issueTestCertificate(store, loadSecretBox(dataDir), ca, request);
    const name = [cert.principal.first_name, cert.principal.middle_name, cert.principal.last_name, cert.principal.second_last_name].filter(Boolean).join(' ');
    io.out(values.json ? JSON.stringify(cert) : `Certificado de prueba emitido: ${cert.id}\t${cert.type}\t${name}\tvence ${cert.expiry.slice(0, 10)}`);
  });
  return 0;
}
