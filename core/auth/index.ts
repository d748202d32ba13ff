/**
 * Books, API keys, callers, the rate limiter and idempotency (CONTRACT §3, §5).
 *
 * @example
 *   const book = createBook(store, { slug: 'acme', tenantSlug: 'oficina' });
 *   const { key } = createKey(store, { family: 'b', environment: 'live', bookId: book.id });
 *   authenticate(store, 'b', key); // → { family: 'b', book, scopes: ['accounting', 'signing'], … }
 */
export { createBook, listBooks, findBook, getBookById, type Book, type CreateBookInput } from './books.js';
export {
  createKey,
  listKeys,
  revokeKey,
  authenticate,
  createAuthenticator,
  hashKey,
  keyPrefix,
  scopes,
  type ApiKey,
  type Authenticator,
  type Caller,
  type CreateKeyInput,
  type Environment,
  type Family,
  type Scope,
} from './keys.js';
export { createRateLimiter, rateLimitHeaders, type RateLimiter, type RateLimitDecision } from './rate-limit.js';
export {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseAbandonedIdempotencyKeys,
  requestHash,
  canonicalJson,
  type IdempotencyClaim,
  type StoredResponse,
} from './idempotency.js';
