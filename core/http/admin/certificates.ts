import { issueTestCertificate, listCertificateObjects, openDataTestCa, parseTestCertificateRequest } from '../../certificates/index.js';
import type { TestCa } from '../../certificates/test-ca.js';
import type { Store } from '../../db/index.js';
import type { SecretBox } from '../../secrets/index.js';
import type { Route } from '../context.js';
import { readFiscalBody } from '../fiscal-body.js';
import { z } from 'zod';

export interface CertificateAdminDeps {
  store: Store;
  secrets: SecretBox;
  dataDir: string;
}

/**
 * The admin API of certificates (CONTRACT §14, the certificates screen): every
 * certificate of both environments, and issuance of test certificates (CONTRACT §10).
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
