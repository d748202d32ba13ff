/**
 * Tax documents and their status changes (CONTRACT §6). A change of a live document
 * writes its event and the event's deliveries in the same transaction.
 *
 * @example
 *   const documents = createDocuments(store, deliveryEngine);
 *   documents.changeStatus(caller, id, { status: 'authorized', authorization: { status: 'AUTORIZADO', number: '…', date: '…' } });
 */
export {
  applyStatusChange,
  createDocuments,
  checkDocumentInput,
  toDocumentView,
  webhookBody,
  type BookCaller,
  type DocumentView,
  type Documents,
  type EventSink,
  type StatusChange,
  type WebhookEventType,
} from './documents.js';
export { accessKeyCheckDigit, accessKeyProblem, withCheckDigit } from './access-key.js';
export { changeStatusSchema, createDocumentSchema, docTypes, documentStatuses, type ChangeStatusInput, type CreateDocumentInput } from './schemas.js';
