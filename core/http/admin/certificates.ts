import { identificationTypes } from '../../catalogs/index.js';
import { findCertificateRow, importP12, issueTestCertificate, listCertificateObjects, openDataTestCa, parseTestCertificateRequest, toCertificateObject } from '../../certificates/index.js';
import type { TestCa } from '../../certificates/test-ca.js';
import type { Store } from '../../db/index.js';
import { SelloError, isSelloError } from '../../errors/index.js';
import type { SecretBox } from '../../secrets/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';
import { z } from 'zod';

export interface CertificateAdminDeps {
  store: Store;
  secrets: SecretBox;
  dataDir: string;
}

/** Base64 (standard or URL-safe alphabet, padding optional, whitespace tolerated). */
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** The body of `POST /admin/api/certificates/p12`: the file read by the browser, and its password. */
const p12BodySchema = z.strictObject(
  {
    file_base64: z
      .string({ error: (issue) => (issue.input === undefined ? 'Elija el archivo .p12.' : 'Debe ser el archivo en base64.') })
      .transform((v) => v.replace(/\s+/g, ''))
      .pipe(z.string().min(1, { error: 'Elija el archivo .p12.', abort: true }).regex(BASE64, { error: 'El archivo no está en base64.' })),
    password: z.string({ error: (issue) => (issue.input === undefined ? 'Escriba la contraseña del archivo .p12.' : 'La contraseña debe ser texto.') }),
  },
  { error: 'El cuerpo debe ser un objeto JSON {file_base64, password}.' },
);

/** A `.p12` is a few kilobytes; 4 MiB of JSON leaves room for long chains and nothing more. */
const P12_BODY_LIMIT = 4 * 1024 * 1024;

/**
 * The admin API of certificates (CONTRACT §14, the certificates screen): every
 * certificate of both environments, `.p12` import, issuance of test certificates
 * (CONTRACT §10) and the identification-type catalog its form picks from.
 * Errors use the admin envelope, `errors` by field path.
 */
export function certificateAdminRoutes(deps: CertificateAdminDeps): Route[] {
  const admin = { surface: 'admin', auth: 'admin' } as const;
  // Opened on first use: the CA (an RSA key) is made only when someone issues a test certificate.
  let ca: Promise<TestCa> | undefined;
  return [
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/certificates',
      handler(ctx) {
        ctx.body = { data: [...listCertificateObjects(deps.store, 'live'), ...listCertificateObjects(deps.store, 'test')] };
      },
    },
    {
      ...admin,
      method: 'GET',
      path: '/admin/api/identification-types',
      handler(ctx) {
        ctx.body = { data: identificationTypes };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/certificates/p12',
      async handler(ctx) {
        const { input } = await readFiscalBody(ctx, p12BodySchema, P12_BODY_LIMIT);
        let record;
        try {
          record = await importP12(deps.store, deps.secrets, Buffer.from(input.file_base64, 'base64'), input.password);
        } catch (err) {
          // Beside the field at fault: the password, or the file. Nothing was stored.
          if (isSelloError(err) && (err.code === 'p12_bad_password' || err.code === 'p12_invalid')) {
            const field = err.code === 'p12_bad_password' ? 'password' : 'file_base64';
            throw new SelloError(err.code, { detail: err.message, fields: { [field]: [err.message] }, cause: err });
          }
          throw err;
        }
        ctx.status = 201;
        ctx.body = { data: toCertificateObject(findCertificateRow(deps.store, record.id)!) };
      },
    },
    {
      ...admin,
      method: 'POST',
      path: '/admin/api/test-certificates',
      async handler(ctx) {
        const { raw } = await readFiscalBody(ctx, z.unknown());
        const request = parseTestCertificateRequest(raw);
        ca ??= openDataTestCa(deps.dataDir);
        const opened = await ca.catch((err: unknown) => {
          ca = undefined;
          throw err;
        });
        ctx.status = 201;
        ctx.body = issueTestCertificate(deps.store, deps.secrets, opened, request);
      },
    },
  ];
}
