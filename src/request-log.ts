/**
 * One log line per request, and the request id on every line logged while one is served.
 *
 * The request being served is held in an AsyncLocalStorage, so whatever logs on its behalf
 * (the handler, yoga, the response cache's Redis store) needs no logger handed down: the
 * service's logger (logger.ts) stamps the id on each line, and the X-Request-Id a client
 * reports finds every line about its request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';

/** What a request's line reports besides its method, path, status, duration and size. */
export interface RequestRecord {
  requestId: string;
  /** The metrics' route label: a REST route id, `graphql`, `token`, a path or `unmatched`. */
  route: string;
  /** The partner client, when the caller presented a valid token. */
  clientId?: string;
  /** Whether the response cache answered: a miss when any of the request's lookups missed. */
  cache?: 'hit' | 'miss';
  /** The client's mistake a 4xx answers (a rejected document, say): its code and message. */
  error?: { code: string; message: string };
  /**
   * The address the request came from, as TRUST_PROXY lets the service believe it (the one
   * rate limits count): what finds an address to block in the logs.
   */
  clientIp?: string;
  /**
   * A token request's client id, whether or not it authenticated: with `clientIp`, what finds
   * a targeted client, and who targets it, in the logs.
   */
  tokenClientId?: string;
  /**
   * Set once the request is answered: what it started and outlives it (a pooled connection
   * that fails later, say) logs under no request id rather than a stale one.
   */
  answered?: boolean;
}

const serving = new AsyncLocalStorage<RequestRecord>();

/** Serves a request with its record as the current one. */
export async function withinRequest<T>(record: RequestRecord, work: () => Promise<T>): Promise<T> {
  try {
    return await serving.run(record, work);
  } finally {
    record.answered = true;
  }
}

/** The id of the request being served, for pino's `mixin`: a new object for each line. */
export function currentRequestId(): { requestId?: string } {
  const record = serving.getStore();
  return record === undefined || record.answered ? {} : { requestId: record.requestId };
}

/** Notes the client id (as a log may show it) the token request being served names. */
export function noteTokenRequest(tokenClientId: string): void {
  const record = serving.getStore();
  if (record !== undefined) record.tokenClientId = tokenClientId;
}

/** Notes a response cache lookup made for the request being served. */
export function noteCacheLookup(hit: boolean): void {
  const record = serving.getStore();
  if (record === undefined) return;
  record.cache = hit && record.cache !== 'miss' ? 'hit' : 'miss';
}

/** A client error's message is the client's own text in part: this much of it is kept. */
const MAX_LOGGED_MESSAGE = 200;

/** Notes the client's mistake the request is answered for, reported in its line. */
export function noteClientError(code: string, message: string): void {
  const record = serving.getStore();
  if (record === undefined || record.error !== undefined) return;
  record.error = { code, message: message.slice(0, MAX_LOGGED_MESSAGE) };
}

export interface RequestOutcome {
  method: string;
  path: string;
  status: number;
  seconds: number;
  bytes: number;
}

/**
 * The request line's writer. Successful requests (status below 400) are sampled at
 * `sampleRate`; a 4xx or 5xx is always logged, since its request id may be asked about. A 5xx
 * line is a warning (its cause is logged on its own, with the same request id).
 */
export type RequestLog = (record: RequestRecord, outcome: RequestOutcome) => void;

export function createRequestLog(logger: Logger, sampleRate: number): RequestLog {
  return (record: RequestRecord, outcome: RequestOutcome): void => {
    if (outcome.status < 400 && !(Math.random() < sampleRate)) return;
    const { requestId, route, clientIp, clientId, cache, tokenClientId, error } = record;
    const { method, path, status, bytes } = outcome;
    const line = {
      requestId,
      method,
      route,
      path,
      status,
      ms: Math.round(outcome.seconds * 10_000) / 10,
      bytes,
      clientIp,
      clientId,
      cache,
      tokenClientId,
      error,
    };
    logger[status >= 500 ? 'warn' : 'info'](line, `${method} ${path} ${status}`);
  };
}
