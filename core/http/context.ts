import type Koa from 'koa';
import type { Caller, Scope } from '../auth/index.js';
import type { Language } from '../errors/index.js';

/**
 * Which envelope errors take on a route (CONTRACT §4): Family A's `{type, message}`,
 * the fiscal `{error: {code, message}}`, JSON:API's `{errors: […]}`, or the admin
 * API's (same shape as the fiscal one).
 */
export type Surface = 'family-a' | 'fiscal' | 'jsonapi' | 'admin';

export type Auth = 'family-a' | 'family-b' | 'admin' | 'none';

export interface State {
  requestId: string;
  surface: Surface;
  lang: Language;
  caller?: Caller;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /**
   * The store's change marker, read once when the caller is authenticated. Valid for the
   * synchronous part of the handler only: nothing can write in between.
   */
  storeMarker?: string;
  /** `http://localhost:8437`: set by the Host check, from the checked header; what links are built from. */
  origin?: string;
}

export type AppContext = Koa.ParameterizedContext<State>;

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface Route {
  method: Method;
  /** `/api/v1/webhook-endpoints/:id` */
  path: string;
  surface: Surface;
  auth: Auth;
  /** Family B: the product scope the key must carry. */
  scope?: Scope;
  /** Largest accepted body in bytes; 1 MiB unless said. */
  bodyLimit?: number;
  handler(ctx: AppContext): Promise<void> | void;
}

export const MiB = 1024 * 1024;
