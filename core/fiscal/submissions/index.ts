/**
 * The submission job of issued documents (CONTRACT §15 "Lifecycle"): `pending` → `signed` →
 * `sent` → `authorized` | `rejected` | `failed`, durable, leased and retried like webhook
 * deliveries. The creating transaction inserts the row (`insertSubmission`); the engine does the
 * rest.
 *
 * @example
 *   store.transaction(() => { numberTheDocument(); insertSubmission(store, { … }); });
 *   submissions.wake();
 */
export { createSubmissionEngine, type SubmissionEngine, type SubmissionEngineDeps, type SubmissionSettings } from './engine.js';
export { findSubmission, insertSubmission, isIssuedDocument, type NewSubmission, type SubmissionState } from './store.js';
export { numberingOf } from './sign-step.js';
export { countWaitingOnTokens, waitingOnTokens, type WaitingOnToken } from './waiting-on-token.js';
export { autorizacionXml } from './autorizacion-xml.js';
export { AUTHORIZATION_POLL_S, RECEPTION_RETRY_S, PIN_RECHECK_S, pastGiveUp, retryDelayMs } from './schedule.js';
