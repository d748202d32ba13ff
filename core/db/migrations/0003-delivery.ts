import { sql, type Kysely } from 'kysely';

// The delivery outbox (CONTRACT §9). Frozen in time: Kysely<any>, no app imports.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // One row per message to send: a document webhook (event × endpoint) or a
  // signing-result callback (its own url, optional bearer, body on the row).
  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('webhook', 'callback')`))
    // Webhooks: the event (its body is the exact bytes sent) and the endpoint (url and
    // secret read at send time, so a PATCH applies to retries).
    .addColumn('event_id', 'text', (c) => c.references('events.id'))
    .addColumn('endpoint_id', 'text', (c) => c.references('webhook_endpoints.id'))
    .addColumn('document_id', 'text')
    .addColumn('event_type', 'text')
    // Callbacks: destination, sealed bearer token and body live on the row.
    .addColumn('url', 'text')
    .addColumn('bearer_sealed', 'text')
    .addColumn('body', 'text')
    /** `Webhook-Id`: stable across retries and restarts. */
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) =>
      c.notNull().check(sql`state in ('pending', 'sending', 'delivered', 'failed', 'cancelled')`),
    )
    /** Attempts made in the current budget (a manual re-send starts a new budget). */
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    /** Epoch milliseconds at which a pending row may be claimed. */
    .addColumn('due_at', 'integer', (c) => c.notNull())
    /** Fencing token of the current claim; outcomes are written only with it. */
    .addColumn('lease_token', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addCheckConstraint(
      'delivery_target',
      sql`(kind = 'webhook' and event_id is not null and endpoint_id is not null and document_id is not null and event_type is not null)
       or (kind = 'callback' and url is not null and body is not null)`,
    )
    .execute();
  // At most one delivery per endpoint, document and event (spec, Events rule 4).
  await db.schema
    .createIndex('deliveries_once')
    .on('deliveries')
    .columns(['endpoint_id', 'document_id', 'event_type'])
    .unique()
    .where(sql.ref('kind'), '=', 'webhook')
    .execute();
  // The claim reads due pending rows in due order.
  await db.schema
    .createIndex('deliveries_due')
    .on('deliveries')
    .columns(['due_at'])
    .where(sql.ref('state'), '=', 'pending')
    .execute();
  await db.schema.createIndex('deliveries_by_endpoint').on('deliveries').columns(['endpoint_id', 'created_at']).execute();
  await db.schema.createIndex('deliveries_by_state').on('deliveries').columns(['state', 'updated_at']).execute();
  await db.schema.createIndex('deliveries_by_event').on('deliveries').columns(['event_id']).execute();

  // Every attempt kept: time, status, duration, first 4 KiB of the response, error.
  await db.schema
    .createTable('delivery_attempts')
    .addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    /** 1-based within the budget the attempt belonged to. */
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('response_body', 'text')
    .addColumn('error', 'text')
    .execute();
  await db.schema.createIndex('delivery_attempts_by_delivery').on('delivery_attempts').columns(['delivery_id', 'id']).execute();
  await db.schema.createIndex('delivery_attempts_by_time').on('delivery_attempts').columns(['attempted_at']).execute();
}
