/**
 * Delivery: the durable outbox of document webhooks and signing-result callbacks
 * (`enqueueCallback`, 5 attempts on the callback schedule), its worker and its admin API
 * (CONTRACT §9).
 *
 * @example
 *   const delivery = createDeliveryEngine({ store, secrets, log, timeScale: 1, retentionDays: 30, userAgent: `Sello/${version}` });
 *   delivery.start();
 *   store.transaction(() => {
 *     // update the document, insert the events row, then:
 *     delivery.enqueueWebhookEvent({ id: eventId, bookId, documentId, type: 'document.authorized' });
 *     // insert or ignore into deliveries (…) values (…), once per subscribed active endpoint
 *   });
 *   delivery.wake(); // after the commit: sent now, not at the next poll
 */
export { createDeliveryEngine, type DeliveryEngine, type DeliveryEngineDeps } from './engine.js';
export { deliveryAdminRoutes } from './admin-routes.js';
export { nextAttempt, parseRetryAfter, schedules, JITTER, type AttemptOutcome, type DeliveryKind, type DeliveryState, type NextStep } from './schedule.js';
export { signatureHeader } from './signature-headers.js';
export { createHttpsAgent, trustedCas, TLS_CODES } from './sender.js';
export { callbackDeliveryId, countDeliveries, recentFailures, type CallbackInput, type WebhookEventType } from './store.js';
export { pruneDeliveryHistory } from './prune.js';
