/**
 * The REST layer's HTTP vocabulary: JSON responses and the one error body of this API family
 * (decisions section 3): {"error": {"code": "http.<status>", "message", "details", "request_id"}}.
 */
import { RETRY_AFTER_UNAVAILABLE_SECONDS, type ErrorDetail } from './errors.ts';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': JSON_CONTENT_TYPE, ...headers },
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

/** A 503 always says when to come back (decisions 3): the caller need not remember it. */
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
