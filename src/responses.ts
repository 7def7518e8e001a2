/**
 * Every JSON answer the service writes itself, and its two error bodies: the service's own,
 * `{"error": {"code": "http.<status>", "message", "details", "request_id"}}` (docs/api.md,
 * "Errors"), and GraphQL's `{"errors": [{"message", "extensions": {"code"}}]}` for /graphql.
 *
 * Bodies are serialised once, into a buffer whose length the response declares, so nothing
 * downstream reads or copies a body to learn its size. The Response class is the one the
 * server adapter writes to the socket directly (@whatwg-node/fetch's).
 */
import { Response } from '@whatwg-node/fetch';
import {
  ERROR_STATUS,
  RETRY_AFTER_UNAVAILABLE_SECONDS,
  type ErrorCode,
  type ErrorDetail,
} from './errors.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A response whose body is `body` as it is, its length declared. */
export function bufferedResponse(
  status: number,
  body: Uint8Array<ArrayBuffer> | string | null,
  headers: Record<string, string> = {},
): Response {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return new Response(bytes, {
    status,
    headers: { ...headers, 'content-length': String(bytes?.byteLength ?? 0) },
  });
}

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return bufferedResponse(status, JSON.stringify(body), {
    'content-type': JSON_CONTENT_TYPE,
    ...headers,
  });
}

export interface RestErrorBody {
  error: {
    code: `http.${number}`;
    message: string;
    details?: ErrorDetail[];
    request_id: string;
  };
}

export function errorBody(
  status: number,
  message: string,
  requestId: string,
  details: ErrorDetail[] = [],
): RestErrorBody {
  return {
    error: {
      code: `http.${status}`,
      message,
      ...(details.length > 0 ? { details } : {}),
      request_id: requestId,
    },
  };
}

/** A 503 always says when to come back: the caller need not remember it. */
export function errorResponse(
  status: number,
  message: string,
  requestId: string,
  options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
): Response {
  const retry: Record<string, string> =
    status === 503 ? { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) } : {};
  return jsonResponse(status, errorBody(status, message, requestId, options.details), {
    ...retry,
    ...options.headers,
  });
}

/** A /graphql request refused before yoga runs it: GraphQL's shape, with the code's status. */
export function graphqlErrorResponse(
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): Response {
  const body = { errors: [{ message, extensions: { code } }] };
  return jsonResponse(ERROR_STATUS[code], body, headers);
}
