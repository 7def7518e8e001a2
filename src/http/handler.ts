/**
 * What the pipeline (pipeline.ts) knows of a handler, and what it hands one: each entry of the
 * handler table (handlers.ts) declares its route label, the request limit it counts against,
 * the methods it answers and how its refusals are written; the pipeline enforces those, so a
 * handler only answers.
 */
import type { Caller } from '../auth/caller.ts';
import type { RequestSource } from '../proxy-trust.ts';

export interface Exchange {
  /** The request, its `url` naming the resource routed (src/request-target.ts). */
  request: Request;
  url: URL;
  requestId: string;
  source: RequestSource;
  /** The bearer token's verdict; anonymous where the handler counts no caller. */
  caller: Caller;
  /** The values of the route's `{name}` placeholders. */
  pathParams: Record<string, string>;
}

/** How a handler's refusals look: the REST error body, GraphQL's errors, or OAuth's. */
export interface Refusals {
  rateLimited(retryAfterSeconds: number, requestId: string): Response;
  timedOut(requestId: string): Response;
}

/**
 * The request bucket a handler counts against: `caller` (per client, else per address),
 * `token` (the token endpoint's own, per address), or none (operations and documentation).
 */
export type RequestLimit = 'caller' | 'token' | 'none';

export interface Handler {
  /** The metrics' and request line's route label: a closed set, never a raw path. */
  route: string;
  limit: RequestLimit;
  /** The methods answered (HEAD wherever GET is); unset: the handler decides. */
  methods?: readonly string[];
  /** Headers every refusal the pipeline writes for this handler carries (a version, say). */
  refusalHeaders?: Readonly<Record<string, string>>;
  refusals: Refusals;
  /**
   * The handler bounds its own time, not REQUEST_TIMEOUT_MS: a feed's upload may take minutes
   * and is bounded by its stall limit, a wait for a run by the wait's own.
   */
  ownDeadline?: true;
  answer(exchange: Exchange): Promise<Response> | Response;
}
