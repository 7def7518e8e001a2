/**
 * The pipeline's two ways in: node:http's request listener, which the server registers, and
 * a Fetch API request (`app.fetch`, as tests call it). Both hand the pipeline the same
 * `IncomingRequest`; they differ only in how the request is read and the answer delivered.
 *
 * The listener reads Node's request as it is and builds the handler's Request once, without
 * the signal, URL and listeners a general-purpose adapter creates per request: whether the
 * client has gone is read from the socket when a statement asks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Request } from '@whatwg-node/fetch';
import { sendNodeResponse } from '@whatwg-node/server';
import type { Logger } from '../logger.ts';
import { requestNaming } from '../request-target.ts';
import type { IncomingRequest, Pipeline } from './pipeline.ts';

/** Methods whose requests carry no body to read. */
const BODILESS = new Set(['GET', 'HEAD']);

function nodeIncoming(req: IncomingMessage): IncomingRequest {
  const method = req.method ?? 'GET';
  const header = req.headers['x-request-id'];
  return {
    method,
    target: req.url ?? '/',
    givenRequestId: typeof header === 'string' ? header : undefined,
    requestFor: (url) =>
      new Request(url, {
        method,
        headers: req.headers as Record<string, string>,
        // Read as it arrives: Node's request is the body's stream.
        body: BODILESS.has(method) ? null : (req as unknown as ReadableStream<Uint8Array>),
        duplex: 'half',
      } as RequestInit),
    clientGone: () => req.socket.destroyed,
    node: req,
  };
}

/** node:http's request listener: the pipeline's answer written to the socket. */
export function nodeListener(handle: Pipeline, logger: Logger) {
  return function listener(req: IncomingMessage, res: ServerResponse): void {
    handle(nodeIncoming(req))
      .then(({ response, requestId }) => {
        // Set on Node's response, not the answer's headers: those stay as built, which lets
        // the answer go out in a single writeHead.
        res.setHeader('x-request-id', requestId);
        return sendNodeResponse(response, res, req, true);
      })
      .catch((error: unknown) => {
        // The pipeline answers every failure itself: this is writing the answer failing.
        logger.error({ err: error, path: req.url }, 'writing the answer failed');
        if (res.headersSent) res.destroy();
        else res.writeHead(500, { 'content-length': '0' }).end();
      });
  };
}

/** `app.fetch`: the pipeline's answer to a Fetch API request. */
export function fetchEntry(handle: Pipeline) {
  return async function answer(request: Request): Promise<Response> {
    const { response, requestId } = await handle(fetchIncoming(request));
    response.headers.set('x-request-id', requestId);
    return response;
  };
}

function fetchIncoming(request: Request): IncomingRequest {
  return {
    method: request.method,
    target: request.url,
    givenRequestId: request.headers.get('x-request-id'),
    requestFor: (url) => requestNaming(request, url),
    clientGone: () => request.signal.aborted,
  };
}
