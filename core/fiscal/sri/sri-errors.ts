/**
 * What can go wrong between Sello and the SRI's web services, as values the submission job
 * can decide on: every failure of `createSriClient()` is one of these, never a raw JS error.
 * `message` is Spanish and names the host; `retryable` says whether the same request may
 * simply be sent again later.
 *
 * - `SriUnreachable`: no usable answer (refused, reset, DNS, timeout, TLS, HTTP 5xx, an answer
 *   that is not the expected SOAP, one too large, shutdown). Transient: retry.
 * - `SriFault`: the SRI answered a SOAP Fault. `soap:Server` faults (its own exceptions) are
 *   transient; `soap:Client` faults mean the request itself was refused.
 * - `SriHttpError`: an HTTP 3xx or 4xx without a fault. Only 3xx (a maintenance redirect),
 *   408, 425 and 429 are worth retrying.
 * - `SriRequestError`: the call was wrong before anything was sent (a base URL that is not
 *   HTTPS, an access key that is not 49 digits, an empty XML). Never retry.
 */

export type SriErrorCode = 'sri_unreachable' | 'sri_fault' | 'sri_http_error' | 'sri_bad_request';

export type SriUnreachableReason =
  | 'refused'
  | 'reset'
  | 'dns'
  | 'no_route'
  | 'connect_timeout'
  | 'timeout'
  | 'tls'
  | 'http_5xx'
  | 'garbage'
  | 'too_large'
  | 'interrupted'
  | 'network';

export abstract class SriError extends Error {
  abstract readonly code: SriErrorCode;
  abstract readonly retryable: boolean;
}

export class SriUnreachable extends SriError {
  override name = 'SriUnreachable';
  readonly code = 'sri_unreachable' as const;
  readonly retryable = true;
  constructor(
    readonly reason: SriUnreachableReason,
    message: string,
    /** The HTTP status when one arrived (5xx, or a 2xx whose body was garbage). */
    readonly status?: number,
  ) {
    super(message);
  }
}

export class SriFault extends SriError {
  override name = 'SriFault';
  readonly code = 'sri_fault' as const;
  readonly retryable: boolean;
  constructor(
    /** As the SRI wrote it, e.g. `soap:Server`. */
    readonly faultcode: string,
    readonly faultstring: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.retryable = !/(^|:)Client(\.|$)/.test(faultcode);
  }
}

export class SriHttpError extends SriError {
  override name = 'SriHttpError';
  readonly code = 'sri_http_error' as const;
  readonly retryable: boolean;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.retryable = (status >= 300 && status < 400) || status === 408 || status === 425 || status === 429;
  }
}

export class SriRequestError extends SriError {
  override name = 'SriRequestError';
  readonly code = 'sri_bad_request' as const;
  readonly retryable = false;
}

export function isSriError(err: unknown): err is SriError {
  return err instanceof SriError;
}
