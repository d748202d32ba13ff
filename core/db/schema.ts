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
