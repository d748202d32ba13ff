/**
 * Signing requests (CONTRACT §11): create, send, sign in order (software keys at once,
 * token keys after a person's approval with the PIN), and the signing-result callback; a
 * failure no approval can fix ends the request `failed`, with its own callback.
 *
 * @example
 *   const pins = createPinCache({ store, secrets, ttlMs: 15 * 60_000 });
 *   const worker = createSigningWorker({ store, secrets, log, delivery, pins, pdfs });
 *   const requests = createSigningRequests({ store, secrets, worker, pins, pdfs });
 *   worker.start(); // resumes what a previous process left `processing`
 *   const body = { subject: 'Contrato', documents: [ … ], send: true };
 *   requests.create('test', body, await requests.readDocuments(body));
 */
export { createSigningRequests, validationError, type SigningRequests, type PendingGroup, type ApprovalResult } from './service.js';
export { createSigningWorker, type SigningWorker, type SigningWorkerDeps } from './worker.js';
export { createPinCache, type PinCache } from './pin-cache.js';
export {
  createSigningRequestSchema,
  checkSigningRequest,
  decodeBase64,
  callbackUrlProblem,
  type CreateSigningRequestBody,
  type DocumentReading,
} from './create-input.js';
export { waitsForPerson } from './failure-policy.js';
export { checkTokenPin, tokenStatus, type TokenStatus } from './token-status.js';
export { toSigningRequestObject, documentUrl, type SigningRequestObject } from './request-object.js';
export { buildCallbackBody, buildFailureCallbackBody, fileName, signersOf, type CallbackBody, type FailureCallbackBody, type Signer } from './callback-body.js';
export { findByReference, loadFull, type FullRequest } from './store.js';
export { signerFacts } from './certificates-port.js';
