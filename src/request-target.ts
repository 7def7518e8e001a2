/**
 * The request target (RFC 9112 section 3.2) as the service routes it: the raw target, which
 * Node keeps as `req.url`, decides, so an absolute-form target (`GET http://host/v1/products`,
 * which HTTP/1.1 servers must accept), the asterisk form (`OPTIONS *`) and an odd Host header
 * are each answered for what they are: the Host header has no say in routing.
 */
import { errorResponse } from './responses.ts';

interface TargetBase {
  /** What logs show as the path. */
  path: string;
}

export type RequestTarget =
  /** A resource: its URL for routing. */
  | (TargetBase & { form: 'resource'; url: URL })
  /** `*`: the server as a whole, which only OPTIONS may ask about. */
  | (TargetBase & { form: 'asterisk' })
  /** Neither a path, an http(s) URL without credentials nor `*` (another scheme). */
  | (TargetBase & { form: 'unusable' })
  /** A method no route serves and the Fetch API cannot carry: TRACE (CONNECT never gets here). */
  | (TargetBase & { form: 'unserved-method' });

/** Where an origin-form target is resolved; routing reads only the path and query. */
const INTERNAL_ORIGIN = 'http://gateway.internal';

/** An unusable target is logged this far: it may be as long as Node's header limit. */
const MAX_LOGGED_TARGET = 200;

/** The methods the server answers somewhere, for `OPTIONS *`. */
const SERVER_METHODS = 'GET, HEAD, POST, OPTIONS';

/** Methods a Fetch API `Request` refuses to be built with. */
const METHODS_FETCH_REFUSES = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** `target`: Node's `req.url`, or the URL of a request that did not come through Node. */
export function readRequestTarget(method: string, target: string): RequestTarget {
  const path = target.slice(0, MAX_LOGGED_TARGET);
  if (METHODS_FETCH_REFUSES.has(method)) return { form: 'unserved-method', path };
  if (target === '*') return { form: 'asterisk', path };
  const named = resourceUrl(target);
  if (named === undefined) return { form: 'unusable', path };
  return { form: 'resource', path: named.pathname, url: named };
}

/** The answer to a target that names no resource: never a 500, never a stack. */
export function nonResourceResponse(
  target: Exclude<RequestTarget, { form: 'resource' }>,
  method: string,
  requestId: string,
): Response {
  switch (target.form) {
    case 'unserved-method':
      return errorResponse(405, `${method} is not allowed here`, requestId, {
        headers: { allow: SERVER_METHODS },
      });
    case 'unusable':
      return errorResponse(
        400,
        'the request target must be a path, an http(s) URL without credentials, or *',
        requestId,
      );
    case 'asterisk':
      return method === 'OPTIONS'
        ? new Response(null, { status: 204, headers: { allow: SERVER_METHODS } })
        : errorResponse(400, `the request target * is for OPTIONS only, not ${method}`, requestId);
  }
}

function parsedUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/**
 * The origin form is a path (appended, so `//host/x` stays a path); else an absolute http(s)
 * URL without credentials (RFC 9110 section 4.2.4: userinfo in an http(s) URI is an error).
 */
function resourceUrl(target: string): URL | undefined {
  if (target.startsWith('/')) return parsedUrl(`${INTERNAL_ORIGIN}${target}`);
  const absolute = parsedUrl(target);
  if (absolute?.protocol !== 'http:' && absolute?.protocol !== 'https:') return undefined;
  return absolute.username === '' && absolute.password === '' ? absolute : undefined;
}

/**
 * The request itself when its `url` already names the resource, else a copy whose `url` does
 * (a standard Request, as `app.fetch` callers give: its body is a web stream yoga can read).
 */
export function requestNaming(request: Request, url: URL): Request {
  const current = parsedUrl(request.url);
  if (current?.pathname === url.pathname && current.search === url.search) return request;
  return new Request(url, request);
}
