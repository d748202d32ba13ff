/**
 * Signing requests (CONTRACT §11): create, send, sign in order (software keys at once,
 * token keys after a person's approval with the PIN), and the signing-result callback.
 *
 * @example
 *   const pins = createPinCache({ store, secrets, ttlMs: 15 * 60_000 });
 *   const worker = createSigningWorker({ store, secrets, log, delivery, pins });
 *   const requests = createSigningRequests({ store, secrets, worker, pins });
 *   worker.start(); // resumes what a previous process left `processing`
 *   requests.create('test', { subject: 'Contrato', documents: [ … ], send: true });
 */
export { createSigningRequests, validationError, type SigningRequests, type PendingGroup, type ApprovalResult } from './service.js';
export { createSigningWorker, type SigningWorker, type SigningWorkerDeps } from './worker.js';
export { createPinCache, type PinCache } from './pin-cache.js';
export { createSigningRequestSchema, checkSigningRequest, decodeBase64, callbackUrlProblem, type CreateSigningRequestBody } from './create-input.js';
export { toSigningRequestObject, documentUrl, type SigningRequestObject } from './request-object.js';
export { buildCallbackBody, fileName, signersOf, type CallbackBody, type Signer } from './callback-body.js';
export { findByReference, loadFull, type FullRequest } from './store.js';
export { signerFacts } from './certificates-port.js';
