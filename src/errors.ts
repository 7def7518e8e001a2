/**
 * The service's error codes (docs/api.md, "Errors"), each with its HTTP status, raised as
 * GraphQLErrors so yoga passes them through its masking; everything else is masked.
 */
import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import {
  databaseConnectionFailure,
  statementCanceled,
  unstorableText,
} from './db/connection-errors.ts';
import { RequestStopped } from './request-deadline.ts';

export const ERROR_STATUS = {
  /** A malformed HTTP request to /graphql: not JSON, no query string (yoga's own code). */
  BAD_REQUEST: 400,
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  QUERY_TOO_COMPLEX: 400,
  /** No trusted document has the id sent (the code Apollo's persisted-query clients read). */
  PERSISTED_QUERY_NOT_FOUND: 404,
  /** A document sent as text while TRUSTED_DOCUMENTS_ONLY is on. */
  TRUSTED_DOCUMENT_REQUIRED: 400,
  /** A /graphql body over GRAPHQL_MAX_BODY_BYTES (yoga's own code). */
  REQUEST_ENTITY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  SERVICE_UNAVAILABLE: 503,
  /**
   * The request ran past REQUEST_TIMEOUT_MS, or a statement past STATEMENT_TIMEOUT_MS: the
   * server's bound, not the client's mistake, so a 503 to retry later rather than a 504.
   */
  TIMEOUT: 503,
  INTERNAL_SERVER_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/**
 * How long a client should wait after a 503: the database cannot serve, or a
 * request took too long.
 */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

/** What went wrong with one input, for clients that point at the field. */
export interface ErrorDetail {
  parameter: string;
  reason: string;
}

export function serviceError(
  code: ErrorCode,
  message: string,
  details: ErrorDetail[] = [],
): GraphQLError {
  return new GraphQLError(message, {
    extensions: {
      code,
      // yoga answers /graphql with the status and headers given here (REST sets its own).
      http: {
        status: ERROR_STATUS[code],
        ...(ERROR_STATUS[code] === 503
          ? { headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) } }
          : {}),
      },
      ...(details.length > 0 ? { details } : {}),
    },
  });
}

export function badUserInput(message: string, parameter: string, reason = 'invalid'): GraphQLError {
  return serviceError('BAD_USER_INPUT', message, [{ parameter, reason }]);
}

/**
 * yoga's error masking: errors with a code pass (see `coded`); graphql-js's errors about the
 * request and Pothos's argument validation (malformed global ids and cursors) become
 * BAD_USER_INPUT, as does a text value Postgres cannot store (a NUL); anything else is an
 * unexpected defect: logged by yoga, answered with a generic message.
 */
export function maskError(error: unknown, message: string): Error {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (original instanceof GraphQLError) {
    // Compiled execution's errors may carry no extensions at all.
    const code = original.extensions?.code;
    if (typeof code === 'string') return coded(error as GraphQLError, original, code);
    // graphql-js's errors before execution (a variable of the wrong type, say) are the
    // client's; one at a field path (a null for a non-null field) is a defect of ours. The
    // outer message names the variable ('Variable "$first" got invalid value …; …').
    if (original.path === undefined) {
      const own = boundedMessage((error as GraphQLError).message);
      return locatedLike(error, serviceError('BAD_USER_INPUT', own));
    }
  }
  if (original instanceof PothosValidationError) {
    return locatedLike(error, serviceError('BAD_USER_INPUT', original.message));
  }
  if (databaseConnectionFailure(original) !== undefined) {
    return locatedLike(error, serviceError('SERVICE_UNAVAILABLE', 'the catalogue is unavailable'));
  }
  if (tookTooLong(original)) return locatedLike(error, timeoutError());
  if (unstorableText(original)) {
    return locatedLike(
      error,
      serviceError('BAD_USER_INPUT', 'text arguments must not contain the NUL character (U+0000)'),
    );
  }
  return locatedLike(error, serviceError('INTERNAL_SERVER_ERROR', message));
}

/** A request stopped at its deadline (or its client gone), or a statement past its bound. */
export function tookTooLong(error: unknown): boolean {
  return error instanceof RequestStopped || statementCanceled(error);
}

export function timeoutError(): GraphQLError {
  return serviceError('TIMEOUT', 'the request took too long');
}

/**
 * An error with a code passes, but for what yoga adds to some: it marks the errors of parsing
 * (and some refusals of its own) as GraphQL over HTTP ones (`http.spec`), which
 * `application/json` clients get with status 200, and keeps the JSON parser's own words in
 * `extensions.originalError`. One of our codes gets back its own status and nothing else.
 */
function coded(error: GraphQLError, original: GraphQLError, code: string): GraphQLError {
  const { http, details } = original.extensions as {
    http?: { spec?: boolean };
    details?: ErrorDetail[];
  };
  const marked = http?.spec === true || 'originalError' in original.extensions;
  if (marked && Object.hasOwn(ERROR_STATUS, code)) {
    const own = serviceError(code as ErrorCode, boundedMessage(error.message), details);
    return locatedLike(error, own);
  }
  return withBoundedMessage(error);
}

const LONG_QUOTE = /"([^"]{64})[^"]{16,}"/g;

/**
 * graphql-js quotes what it did not understand (`Cannot query field "…"`, `found String "…"`):
 * a long name or string is cut to its first 64 characters, so an error is never an echo of a
 * large request.
 */
function boundedMessage(message: string): string {
  return message.replace(LONG_QUOTE, '"$1…"');
}

export function withBoundedMessage(error: GraphQLError): GraphQLError {
  const message = boundedMessage(error.message);
  if (message === error.message) return error;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/** Keeps the path and locations of the error being replaced. */
function locatedLike(error: unknown, replacement: GraphQLError): GraphQLError {
  if (!(error instanceof GraphQLError)) return replacement;
  return new GraphQLError(replacement.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: replacement.extensions,
  });
}
