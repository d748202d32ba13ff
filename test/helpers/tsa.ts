/**
 * A local RFC 3161 timestamp authority: an HTTP server on 127.0.0.1 that hands each query to
 * `openssl ts -reply`, with a TSA certificate (extendedKeyUsage timeStamping, critical,
 * RFC 3161 §2.3) issued by the test CA. pyHanko ships a dummy TSA for the same reason.
 *
 * `behavior` makes it misbehave for the error tests.
 *
 * @example
 *   const tsa = await startTestTsa(pki);
 *   await buildPadesCms({ digest, signer, timestampUrl: tsa.url });
 *   await tsa.stop();
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TestPki } from './test-ca.js';

const run = promisify(execFile);

export type TsaBehavior = 'ok' | 'reject' | 'http-500' | 'garbage' | 'wrong-imprint';

export interface TestTsa {
  url: string;
  /** The CA file that verifies the TSA's tokens (`openssl ts -verify -CAfile`). */
  caFile: string;
  /** The TSA certificate (PEM file), for `-untrusted`. */
  certFile: string;
  configFile: string;
  behavior: TsaBehavior;
  /** How many queries arrived. */
  requests: number;
  stop(): Promise<void>;
}

export async function startTestTsa(pki: TestPki): Promise<TestTsa> {
  const dir = await mkdtemp(join(pki.dir, 'tsa-'));
  const tsaCert = pki.issue({ subject: { commonName: 'Sello Test TSA', organization: 'Sello (pruebas)', country: 'EC' }, purpose: 'timestamping', validityDays: 3650 });
  const certFile = join(dir, 'tsa.crt');
  const keyFile = join(dir, 'tsa.key');
  const configFile = join(dir, 'tsa.cnf');
  await writeFile(certFile, tsaCert.certificatePem);
  await writeFile(keyFile, tsaCert.privateKeyPem, { mode: 0o600 });
  await writeFile(join(dir, 'serial'), '01\n');
  await writeFile(
    configFile,
    [
      '[ tsa ]',
      'default_tsa = tsa_config',
      '[ tsa_config ]',
      `dir = ${dir}`,
      'serial = $dir/serial',
      'crypto_device = builtin',
      'signer_cert = $dir/tsa.crt',
      `certs = ${pki.ca.certificatePath}`,
      'signer_key = $dir/tsa.key',
      'signer_digest = sha256',
      'default_policy = 1.3.6.1.4.1.99999.1',
      'digests = sha256, sha384, sha512',
      'accuracy = secs:1',
      'ordering = yes',
      'tsa_name = yes',
      'ess_cert_id_alg = sha256',
      '',
    ].join('\n'),
  );

  // openssl ts keeps its serial in a file: one query at a time.
  let queue: Promise<unknown> = Promise.resolve();
  const reply = (query: Buffer): Promise<Buffer> => {
    const job = queue.then(async () => {
      const work = await mkdtemp(join(dir, 'q-'));
      try {
        await writeFile(join(work, 'q.tsq'), query);
        await run('openssl', ['ts', '-reply', '-config', configFile, '-queryfile', join(work, 'q.tsq'), '-out', join(work, 'r.tsr')]);
        return await readFile(join(work, 'r.tsr'));
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    });
    queue = job.catch(() => undefined);
    return job;
  };

  const tsa: TestTsa = {
    url: '',
    caFile: pki.ca.certificatePath,
    certFile,
    configFile,
    behavior: 'ok',
    requests: 0,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      tsa.requests++;
      const query = Buffer.concat(chunks);
      const send = (status: number, body: Buffer): void => {
        res.writeHead(status, { 'Content-Type': 'application/timestamp-reply', 'Content-Length': body.length });
        res.end(body);
      };
      if (req.method !== 'POST' || req.headers['content-type'] !== 'application/timestamp-query') return send(400, Buffer.alloc(0));
      switch (tsa.behavior) {
        case 'http-500':
          return send(500, Buffer.from('error'));
        case 'garbage':
          return send(200, Buffer.from('esto no es DER'));
        case 'reject':
          // TimeStampResp { status PKIStatusInfo { status rejection(2) } }
          return send(200, Buffer.from('30053003020102', 'hex'));
        case 'wrong-imprint': {
          const at = query.indexOf(Buffer.from([0x04, 0x20]));
          const altered = Buffer.from(query);
          altered[at + 2] = (altered[at + 2] ?? 0) ^ 0xff;
          return void reply(altered).then((r) => send(200, r), () => send(500, Buffer.alloc(0)));
        }
        default:
          return void reply(query).then((r) => send(200, r), () => send(500, Buffer.alloc(0)));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  tsa.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tsr`;
  return tsa;
}
