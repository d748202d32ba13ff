/**
 * Webhook endpoints: the destinations of document events (spec, Webhook endpoint).
 *
 * @example
 *   const endpoints = createWebhookEndpoints(store, secrets);
 *   endpoints.create(caller, { url: 'https://erp.example/hooks', secret: 's3cr3t-v4lue' });
 */
export {
  createWebhookEndpoints,
  endpointProblems,
  webhookEvents,
  type EndpointInput,
  type EndpointOwner,
  type EndpointSummary,
  type EndpointPatch,
  type WebhookEndpoints,
  type WebhookEvent,
} from './endpoints.js';
