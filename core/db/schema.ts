import type { Generated } from 'kysely';

/**
 * Table types of the store, as kysely sees them. Booleans are INTEGER 0/1 and
 * times are ISO-8601 UTC text (so they sort and compare as text); the owning
 * module maps rows to domain objects.
 */
export interface Database {
  books: BooksTable;
  api_keys: ApiKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  idempotency_keys: IdempotencyKeysTable;
  identification_types: IdentificationTypesTable;
  tax_types: TaxTypesTable;
  settings: SettingsTable;
  documents: DocumentsTable;
  issuers: IssuersTable;
  fiscal_sequences: FiscalSequencesTable;
  fiscal_submissions: FiscalSubmissionsTable;
  purchases: PurchasesTable;
  events: EventsTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  certificates: CertificatesTable;
  signing_requests: SigningRequestsTable;
  signing_documents: SigningDocumentsTable;
  signing_signatures: SigningSignaturesTable;
  watched_folders: WatchedFoldersTable;
  watch_ledger: WatchLedgerTable;
}

export interface BooksTable {
  id: string;
  slug: string;
  tenant_slug: string;
  name: string;
  accounting_api: number;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  family: 'a' | 'b';
  environment: 'test' | 'live';
  name: string | null;
  book_id: string | null;
  /** JSON array of scopes (`accounting`, `signing`); `[]` for Family A. */
  scopes: string;
  /** Lowercase hex SHA-256 of the whole key. */
  key_hash: string;
  /** The key's prefix and last four characters, to recognise it in lists. */
  key_hint: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface WebhookEndpointsTable {
  id: string;
  book_id: string;
  environment: 'test' | 'live';
  url: string;
  /** Sealed with the local secret key: needed in clear to sign deliveries. */
  secret_sealed: string;
  active: number;
  /** JSON array of event names; `[]` = all. */
  events: string;
  last_delivered_at: string | null;
  last_status: string | null;
  created_at: string;
  updated_at: string;
  /** Set on DELETE: the row stays for the delivery history but is gone for the API. */
  deleted_at: string | null;
}

export interface IdempotencyKeysTable {
  /** Who the key belongs to and what operation it names, e.g. `book:<id>:documents.create`. */
  scope: string;
  key: string;
  request_hash: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: string | null;
  response_headers: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface IdentificationTypesTable {
  code: string;
  authority_code: string;
  country: string;
  name: string;
}

export interface TaxTypesTable {
  code: string;
  authority_code: string;
  country: string;
  name: string;
  group: string;
}

export interface SettingsTable {
  name: string;
  value: string;
}

export interface DocumentsTable {
  id: string;
  book_id: string;
  environment: 'test' | 'live';
  external_ref: string;
  country: 'EC' | 'PE';
  doc_type: string;
  numero: string;
  access_key: string | null;
  /** YYYY-MM-DD */
  issue_date: string;
  currency: string;
  /** Decimal amount as text, never a float. */
  grand_total: string;
  status: 'pending' | 'signed' | 'sent' | 'authorized' | 'rejected' | 'failed';
  authorization_status: string | null;
  authorization_number: string | null;
  authorization_date: string | null;
  failure_reason: string | null;
  pdf: Buffer | null;
  xml: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventsTable {
  id: string;
  book_id: string;
  document_id: string;
  /** `document.authorized`, `document.rejected`, `document.failed` */
  type: string;
  /** The exact JSON bytes of the webhook body, fixed when the event happened. */
  body: string;
  created_at: string;
}

/** The delivery outbox (core/delivery owns it; CONTRACT §9). */
export interface DeliveriesTable {
  id: string;
  kind: 'webhook' | 'callback';
  event_id: string | null;
  endpoint_id: string | null;
  document_id: string | null;
  event_type: string | null;
  /** Callbacks only: destination, sealed bearer token, body. */
  url: string | null;
  bearer_sealed: string | null;
  body: string | null;
  /** `Webhook-Id`, stable across retries. */
  message_id: string;
  state: 'pending' | 'sending' | 'delivered' | 'failed' | 'cancelled';
  attempts: number;
  max_attempts: number;
  /** Epoch milliseconds. */
  due_at: number;
  lease_token: string | null;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  number: number;
  attempted_at: string;
  url: string;
  status: number | null;
  duration_ms: number;
  /** The first 4 KiB of the response body, as text. */
  response_body: string | null;
  error: string | null;
}

export interface CertificatesTable {
  id: string;
  environment: 'test' | 'live';
  source: 'p12' | 'token' | 'test';
  fingerprint: string;
  certificate: Buffer;
  chain: string;
  subject_name: string;
  serial_number: string;
  not_before: string;
  not_after: string;
  /** The .p12 as imported, in clear: only in stores from before migration 0008, until sealed at open (core/certificates/p12-at-rest.ts). */
  p12: Buffer | null;
  /** The .p12 file sealed with the data folder's secret key (SecretBox.sealBytes). */
  p12_sealed: string | null;
  p12_password_sealed: string | null;
  private_key_sealed: string | null;
  token_module: string | null;
  token_serial: string | null;
  token_label: string | null;
  token_key_id: string | null;
  created_at: string;
  /** 0005: the spec's Certificate fields; NULL on rows older than 0005 (derived from the X.509 then). */
  type: string | null;
  validity: number | null;
  /** JSON of the spec's Principal. */
  principal: string | null;
  /** JSON of the spec's Organization. */
  organization: string | null;
  status: Generated<'issued' | 'draft' | 'processing'>;
  issued_at: string | null;
}

/** Signing requests (core/signing/requests owns them; CONTRACT §11). */
export interface SigningRequestsTable {
  id: string;
  environment: 'test' | 'live';
  /** `failed`: a local extension of the spec's states (docs/signing-requests.md). */
  status: 'draft' | 'processing' | 'signed' | 'failed';
  type: string | null;
  subject: string;
  reference_id: string | null;
  book_id: string | null;
  callback_url: string | null;
  callback_bearer_sealed: string | null;
  created_at: string;
  sent_at: string | null;
  signed_at: string | null;
  /** When the request ended `failed`; its failed signature says why. */
  failed_at: string | null;
  updated_at: string;
}

export interface SigningDocumentsTable {
  id: string;
  request_id: string;
  position: number;
  client_id: string | null;
  title: string;
  notes: string | null;
  file_extension: string;
  original: Buffer;
  /** SHA-256 hex of `original`. */
  original_hash: string;
  /** The PDF with the signatures applied so far. */
  current: Buffer | null;
  /** SHA-256 hex of the signed PDF, once the request is signed. */
  signed_hash: string | null;
}

export interface SigningSignaturesTable {
  id: string;
  request_id: string;
  document_id: string;
  position: number;
  certificate_id: string;
  page: number;
  size: 's' | 'm' | 'l';
  x: number;
  y: number;
  /** `failed`: ended by a failure that no approval can fix (`last_error_code` says which). */
  state: 'pending' | 'signed' | 'rejected' | 'failed';
  attempts: number;
  last_error_code: string | null;
  last_error: string | null;
  pin_tries: string | null;
  signed_at: string | null;
  updated_at: string;
}

/** A watched folder's profile (CONTRACT §13; core/watch). */
export interface WatchedFoldersTable {
  id: string;
  path: string;
  certificate_id: string;
  environment: 'test' | 'live';
  /** `'1'`, `'2'`… or `'last'`. */
  page: string;
  x: number;
  y: number;
  size: 's' | 'm' | 'l';
  output_dir: string;
  error_dir: string;
  originals_dir: string;
  poll: number;
  created_at: string;
}

export type WatchLedgerState = 'queued' | 'waiting_pin' | 'signing' | 'done' | 'failed';

/** One file of a watched folder, keyed by content (UNIQUE folder_id + sha256): signed at most once. */
export interface WatchLedgerTable {
  id: string;
  folder_id: string;
  sha256: string;
  name: string;
  state: WatchLedgerState;
  request_id: string | null;
  output_name: string | null;
  moved_name: string | null;
  error_code: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
}

/** The issuer of a book in one environment (CONTRACT §15). */
export interface IssuersTable {
  book_id: string;
  environment: 'test' | 'live';
  country: 'EC' | 'PE';
  /** JSON of the issuer (core/fiscal/sri/invoice-model.ts `Issuer`). */
  body: string;
  certificate_id: string;
  created_at: string;
  updated_at: string;
}

/** The last sequential number given per book, environment, document type and series. */
export interface FiscalSequencesTable {
  book_id: string;
  environment: 'test' | 'live';
  doc_code: string;
  establishment: string;
  emission_point: string;
  last: number;
}

export type FiscalSubmissionState = 'pending' | 'signed' | 'sent' | 'authorized' | 'rejected' | 'failed';

/** One issued document on its way to the tax authority: a durable job. */
export interface FiscalSubmissionsTable {
  document_id: string;
  book_id: string;
  environment: 'test' | 'live';
  country: 'EC' | 'PE';
  kind: string;
  request_hash: string;
  computed: string;
  issuer: string;
  certificate_id: string;
  access_key: string;
  signed_xml: Buffer | null;
  state: FiscalSubmissionState;
  attempts: number;
  due_at: number | null;
  lease_until: number | null;
  unreachable_since: string | null;
  last_error: string | null;
  authorization_xml: string | null;
  /** What put it in `sent`: `RECIBIDA`, or the DEVUELTA code 43, 45 or 70. */
  reception: string | null;
  /** A credit or debit note's: the Sello id of the invoice it modifies (null for one Sello did not issue, and for other kinds). */
  modifies_document_id: string | null;
  /** A withholding's: the Sello id of the received purchase it withholds (null for other kinds). */
  purchase_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A purchase a book's issuer received, recorded from its verified authorized XML (CONTRACT §15). */
export interface PurchasesTable {
  id: string;
  book_id: string;
  environment: 'test' | 'live';
  access_key: string;
  source: 'sri' | 'xml';
  numero: string;
  issue_date: string;
  supplier_ruc: string;
  supplier_name: string;
  currency: string;
  subtotal: string;
  grand_total: string;
  /** ReceivedPurchase as JSON. */
  facts: string;
  /** The signed comprobante, exactly as it verified. */
  xml: string;
  signer_name: string | null;
  authorization_number: string | null;
  authorization_date: string | null;
  created_at: string;
}

