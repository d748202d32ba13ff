/**
 * The Estado screen (CONTRACT §14): is Sello running, where, which PKCS#11 modules are
 * installed, what waits for a PIN (signatures and issued comprobantes), how many deliveries
 * failed and the last errors. The tray reads the same route to pick its icon.
 */
import type { Store } from '../../db/index.js';
import { countDeliveries, recentFailures } from '../../delivery/index.js';
import type { SigningRequests } from '../../signing/requests/index.js';
import { countWaitingOnTokens } from '../../fiscal/submissions/index.js';
import { tokenStatus } from '../../signing/requests/index.js';
import { version } from '../../version.js';
import { candidateModules } from '../../../native/index.js';
import type { Route } from '../context.js';

export interface StatusDeps {
  store: Store;
  requests: Pick<SigningRequests, 'pending'>;
  /** Known only once the server listens. */
  baseUrl: () => string;
  /** Plain HTTP on loopback beside an HTTPS `baseUrl`; the same as `baseUrl` on loopback. */
  localUrl?: () => string;
  /** The HTTPS certificate of a LAN listener (CONTRACT §2); undefined on loopback. */
  tls?: () => TlsStatus | undefined;
  pkcs11Modules: readonly string[];
}

/** What the Estado screen shows of the LAN listener's certificate. */
export interface TlsStatus {
  source: 'generated' | 'configured';
  fingerprint: string;
  caFile: string | undefined;
  caFingerprint: string | undefined;
  notAfter: string;
  names: string[];
}

function tlsData(tls: TlsStatus | undefined) {
  if (!tls) return null;
  return {
    source: tls.source,
    fingerprint: tls.fingerprint,
    ca_file: tls.caFile ?? null,
    ca_fingerprint: tls.caFingerprint ?? null,
    not_after: tls.notAfter,
    names: tls.names,
  };
}

export function statusAdminRoutes(deps: StatusDeps): Route[] {
  return [
    {
      method: 'GET',
      path: '/admin/api/status',
      surface: 'admin',
      auth: 'admin',
      async handler(ctx) {
        const groups = await deps.requests.pending();
        const tokens = await knownTokens(deps.store);
        ctx.body = {
          data: {
            base_url: deps.baseUrl(),
            local_url: deps.localUrl?.() ?? deps.baseUrl(),
            tls: tlsData(deps.tls?.()),
            version,
            pkcs11_modules: candidateModules({ configured: [...deps.pkcs11Modules] })
              .filter((m) => m.exists)
              .map((m) => m.path),
            tokens,
            pending_signatures: groups.reduce((n, g) => n + g.signatures.length, 0),
            // Comprobantes whose issuer's token waits for its PIN (CONTRACT §15).
            pending_invoices: countWaitingOnTokens(deps.store),
            failed_deliveries: countDeliveries(deps.store, 'failed'),
            last_errors: recentFailures(deps.store, 5).map((d) => ({
              delivery_id: d.id,
              endpoint_id: d.endpoint_id,
              event: d.event_type,
              status: d.last_status,
              error: d.last_error,
              at: d.updated_at,
            })),
          },
        };
      },
    },
  ];
}

/**
 * Every token Sello has seen (its certificates are recorded), and whether it is plugged in
 * now with the PIN tries it reports. Reading a token's state needs no PIN.
 */
async function knownTokens(store: Store) {
  const rows = store.all(
    store.db
      .selectFrom('certificates')
      .select(['token_module', 'token_serial', 'token_label'])
      .distinct()
      .where('source', '=', 'token')
      .where('token_module', 'is not', null)
      .where('token_serial', 'is not', null)
      .orderBy('token_label'),
  );
  return Promise.all(
    rows.map(async (row) => {
      const state = await tokenStatus(row.token_module!, row.token_serial!);
      return { serial: row.token_serial, label: row.token_label, present: state.present, pin_tries: state.pinTries };
    }),
  );
}
