import crypto from 'node:crypto';

/**
 * `X-Service-Signature: sha256=<lowercase hex>`: HMAC-SHA256 of the exact body bytes,
 * keyed with the endpoint secret (spec, Authentication, webhook signature rule 1).
 *
 * @example
 *   signatureHeader('s3cr3t-value', Buffer.from('{"event":"document.authorized"}'));
 *   // 'sha256=5c1e…'
 */
export function signatureHeader(secret: string, body: Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

/**
 * The headers of one attempt (CONTRACT §9): the signature for webhooks, the bearer for
 * callbacks, and `Webhook-Id` (stable across retries) with `Webhook-Timestamp` (this
 * attempt, unix seconds) so that receivers can drop repeats and reject replays.
 */
export function deliveryHeaders(input: {
  body: Buffer;
  messageId: string;
  now: number;
  userAgent: string;
  secret?: string | undefined;
  bearer?: string | undefined;
}): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'Content-Length': String(input.body.length),
    'User-Agent': input.userAgent,
    'Webhook-Id': input.messageId,
    'Webhook-Timestamp': String(Math.floor(input.now / 1000)),
  };
  if (input.secret !== undefined) headers['X-Service-Signature'] = signatureHeader(input.secret, input.body);
  if (input.bearer !== undefined) headers.Authorization = `Bearer ${input.bearer}`;
  return headers;
}
