/**
 * The path of every request, in order: request id → route (the handler table) → deadline →
 * caller → limit → method → the handler → the request's line and metrics. Each step is a
 * function below; a handler only answers, the steps enforce what it declared (handler.ts).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { authenticate, type Caller } from '../auth/caller.ts';
import type { ClientDirectory } from '../auth/client-directory.ts';
import { rateLimitSubject, tokenEndpointSubject, type RateLimiter } from '../auth/rate-limiter.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { AppMetrics } from '../metrics.ts';
import type { RequestSource } from '../proxy-trust.ts';
import {
  bindWorkSignal,
  deadlineHoldsParts,
  startDeadline,
  type RequestDeadline,
} from '../request-deadline.ts';
import { withinRequest, type RequestLog, type RequestRecord } from '../request-log.ts';
import { UNMATCHED } from '../metrics.ts';
import { nonResourceResponse, readRequestTarget } from '../request-target.ts';
import { errorResponse } from '../responses.ts';
import { failureResponse } from './failures.ts';
import type { Exchange, Handler } from './handler.ts';
import { REST_REFUSALS } from './refusals.ts';
import type { Routed } from './router.ts';

/**
 * A request as an entry point (src/http/entries.ts) hands it over: what routing reads, and
 * the Fetch API request the handler is given, built only once the target names a resource.
 */
export interface IncomingRequest {
  method: string;
  /** The target as sent: Node's raw `req.url`, or a fetch request's URL. */
  target: string;
  /** The X-Request-Id header as sent. */
  givenRequestId: string | null | undefined;
  /** The request for the handler, its `url` naming exactly `url`. */
  requestFor(url: URL): Request;
  /** Whether the client has gone away before its answer was complete. */
  clientGone(): boolean;
  /** Node's request (its socket's addresses, its forwarding headers); none through `fetch`. */
  node?: IncomingMessage;
}

export interface PipelineDependencies {
  config: Pick<Config, 'requestTimeoutMs' | 'tokenSecrets'>;
  route(pathname: string): Promise<Routed>;
  sourceOf(req: IncomingMessage | undefined): RequestSource;
  /** The clients that exist: a token of any other is refused. */
  clients: Pick<ClientDirectory, 'stands'>;
  limiter: RateLimiter;
  metrics: Pick<AppMetrics, 'requestArrived' | 'observeRequest'>;
  requestLog: RequestLog;
  logger: Logger;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's request id when it is a sane token (so logs correlate), else a new one. */
function requestIdOf(given: string | null | undefined): string {
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

export function createPipeline(deps: PipelineDependencies) {
  const { config, clients, limiter, logger } = deps;

  /** The handler's answer, unless its limit or its methods refuse the request first. */
  async function answer(exchange: Exchange, handler: Handler, record: RequestRecord) {
    const caller = await authenticate(exchange.request, config, { clients });
    if (caller.kind === 'client') record.clientId = caller.clientId;
    const limited = await takeLimit(limiter, handler, caller, exchange);
    if (limited) return limited;
    const refused = refuseMethod(handler, exchange);
    if (refused) return refused;
    return handler.answer({ ...exchange, caller });
  }

  /**
   * Bounded by REQUEST_TIMEOUT_MS: at the deadline the request is answered 503 and its work
   * stops at its next statement, as it does when the client goes away first. An answer in
   * parts (@defer, @stream) is bound until its last part: a part whose statements the deadline
   * stops carries their TIMEOUT errors; a subscription's stream, only until its first. A
   * handler with its own deadline bounds itself.
   */
  async function withinDeadline(
    exchange: Exchange,
    handler: Handler,
    record: RequestRecord,
    clientGone: () => boolean,
  ): Promise<Response> {
    if (handler.ownDeadline) return withinRequest(record, () => answer(exchange, handler, record));
    const deadline = startDeadline(clientGone, config.requestTimeoutMs);
    bindWorkSignal(exchange.request, deadline.signal);
    const timedOut = deadline.passed.then(() => {
      const { requestId, url } = exchange;
      logger.warn(
        { requestId, path: url.pathname, timeoutMs: config.requestTimeoutMs },
        'request deadline passed',
      );
      return handler.refusals.timedOut(requestId);
    });
    let streaming = false;
    try {
      const response = await Promise.race([
        withinRequest(record, () => answer(exchange, handler, record)),
        timedOut,
      ]);
      streaming = deliveredInParts(response) && deadlineHoldsParts(exchange.request);
      return streaming ? clearedWhenDelivered(response, deadline) : response;
    } finally {
      if (!streaming) deadline.clear();
    }
  }

  /** The answer, and the request id its entry point adds as `x-request-id`. */
  return async function handle(incoming: IncomingRequest): Promise<Answer> {
    const started = performance.now();
    deps.metrics.requestArrived();
    const { method } = incoming;
    const target = readRequestTarget(method, incoming.target);
    const requestId = requestIdOf(incoming.givenRequestId);
    const source = deps.sourceOf(incoming.node);
    const record: RequestRecord = { requestId, route: UNMATCHED, clientIp: source.clientIp };
    let response: Response;
    if (target.form !== 'resource') {
      response = nonResourceResponse(target, method, requestId);
    } else {
      let refusals = REST_REFUSALS;
      try {
        const { handler, pathParams } = await deps.route(target.url.pathname);
        record.route = handler.route;
        refusals = handler.refusals;
        const exchange: Exchange = {
          request: incoming.requestFor(target.url),
          url: target.url,
          requestId,
          source,
          caller: ANONYMOUS,
          pathParams,
        };
        response = await withinDeadline(exchange, handler, record, incoming.clientGone);
      } catch (error) {
        response = failureResponse(error, { requestId, path: target.path, refusals }, logger);
      }
    }
    const seconds = (performance.now() - started) / 1000;
    deps.metrics.observeRequest(record.route, method, response.status, seconds);
    deps.requestLog(record, {
      method,
      path: target.path,
      status: response.status,
      seconds,
      bytes: Number(response.headers.get('content-length') ?? 0),
    });
    return { response, requestId };
  };
}

export interface Answer {
  response: Response;
  requestId: string;
}

export type Pipeline = ReturnType<typeof createPipeline>;

const ANONYMOUS: Caller = { kind: 'anonymous' };

/** GraphQL's incremental delivery: multipart/mixed or an event stream, written as it runs. */
const IN_PARTS = /^(?:multipart\/mixed|text\/event-stream)\b/i;

function deliveredInParts(response: Response): boolean {
  return response.body !== null && IN_PARTS.test(response.headers.get('content-type') ?? '');
}

/**
 * The answer, its body ending the request's deadline once read to its end; a body the client
 * cancels stops the request's remaining work, as its leaving would.
 */
function clearedWhenDelivered(response: Response, deadline: RequestDeadline): Response {
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (!done) return controller.enqueue(value);
        deadline.clear();
        controller.close();
      } catch (error) {
        deadline.clear();
        controller.error(error);
      }
    },
    cancel(reason) {
      deadline.abandon();
      return reader.cancel(reason);
    },
  });
  const { status, statusText, headers } = response;
  return new Response(body, { status, statusText, headers });
}

/** A refusal when the handler's request limit has no room for the request. */
async function takeLimit(
  limiter: RateLimiter,
  handler: Handler,
  caller: Caller,
  { source, requestId }: Exchange,
): Promise<Response | undefined> {
  if (handler.limit === 'none') return undefined;
  const subject =
    handler.limit === 'token'
      ? tokenEndpointSubject(source.clientIp)
      : rateLimitSubject(caller, source.clientIp);
  const decision = await limiter.take(subject);
  return decision.allowed
    ? undefined
    : handler.refusals.rateLimited(decision.retryAfterSeconds, requestId);
}

/** 405 for a method the handler does not answer; HEAD is answered wherever GET is. */
function refuseMethod(handler: Handler, { request, requestId }: Exchange): Response | undefined {
  const { methods } = handler;
  if (!methods || methods.includes(request.method)) return undefined;
  if (request.method === 'HEAD' && methods.includes('GET')) return undefined;
  return errorResponse(405, `${request.method} is not allowed here`, requestId, {
    headers: { allow: methods.join(', '), ...handler.refusalHeaders },
  });
}
