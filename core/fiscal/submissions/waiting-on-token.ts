/**
 * Issued documents that wait for a token (CONTRACT §15: "Token certificates wait for the PIN
 * like signing requests", §11, §14): those still `pending` (not signed) whose issuer's
 * certificate is on a PKCS#11 token. The tray and the "Firmas pendientes" screen list them per
 * token and ask for the PIN once; once it is given, the token's documents are made due at once
 * (`dueNowOnToken`), not at their next check (PIN_RECHECK_S).
 */
import type { Store } from '../../db/index.js';

export interface WaitingOnToken {
  document_id: string;
  book_id: string;
  book: string;
  environment: 'test' | 'live';
  external_ref: string;
  /** The §6 doc_type: invoice, credit_note, debit_note, purchase_invoice (a liquidación de compra), remission_guide. */
  doc_type: string;
  numero: string;
  access_key: string;
  created_at: string;
  /** What the job last said (the PIN is wanted, was wrong, the token is not plugged in…), in Spanish. */
  reason: string | null;
  waiting_since: string;
  certificate_id: string;
  token_module: string | null;
  token_serial: string | null;
  token_label: string | null;
}

/** Every document waiting on a token, oldest first. */
export function waitingOnTokens(store: Store): WaitingOnToken[] {
  return store
    .statement<[], WaitingOnToken>(
      `select s.document_id, s.book_id, b.slug as book, s.environment, d.external_ref, d.doc_type, d.numero, s.access_key, s.created_at,
              s.last_error as reason, s.updated_at as waiting_since, s.certificate_id, c.token_module, c.token_serial, c.token_label
         from fiscal_submissions s
         join certificates c on c.id = s.certificate_id
         join documents d on d.id = s.document_id
         join books b on b.id = s.book_id
        where s.state = 'pending' and c.source = 'token'
        order by s.created_at, s.document_id`,
    )
    .all();
}

/** How many documents wait on a token (the status route and the tray). */
export function countWaitingOnTokens(store: Store): number {
  return (
    store
      .statement<[], { n: number }>(
        `select count(*) as n from fiscal_submissions s join certificates c on c.id = s.certificate_id
          where s.state = 'pending' and c.source = 'token'`,
      )
      .get()?.n ?? 0
  );
}

/**
 * The documents waiting on the token `serial`, not held by a claim, are due at `now`. Returns how
 * many. A claim in flight finishes its own step; it is not disturbed.
 */
export function dueNowOnToken(store: Store, serial: string, now: number): number {
  return store
    .statement<[number, string], never>(
      `update fiscal_submissions set due_at = ?
        where state = 'pending' and due_at is not null and lease_until is null
          and certificate_id in (select id from certificates where source = 'token' and token_serial = ?)`,
    )
    .run(now, serial).changes;
}
