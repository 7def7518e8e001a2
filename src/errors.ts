/**
 * The service's error codes (decisions section 3), each with its HTTP status, raised as
 * GraphQLErrors so yoga passes them through its masking; everything else is masked.
 */
import { PothosValidationError } from '@pothos/core';
import { GraphQLError } from 'graphql';
import { databaseConnectionFailure } from './db/connection-errors.ts';

export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  RATE_LIMITED: 429,
  QUERY_TOO_COMPLEX: 400,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL_SERVER_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

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
      http: { status: ERROR_STATUS[code] },
      ...(details.length > 0 ? { details } : {}),
    },
  });
}

export function badUserInput(message: string, parameter: string, reason = 'invalid'): GraphQLError {
  return serviceError('BAD_USER_INPUT', message, [{ parameter, reason }]);
}

/**
 * yoga's error masking: the service's own errors pass as they are; graphql-js's errors about
 * the request and Pothos's argument validation (malformed global ids and cursors) become
 * BAD_USER_INPUT; anything else is an unexpected defect: logged by yoga, answered with a
 * generic message.
 */
export function maskError(error: unknown, message: string): Error {
  const original = error instanceof GraphQLError ? (error.originalError ?? error) : error;
  if (original instanceof GraphQLError) {
    // Compiled execution's errors may carry no extensions at all.
    if (typeof original.extensions?.code === 'string') return error as Error;
    // graphql-js's errors before execution (a variable of the wrong type, say) are the
    // client's; one at a field path (a null for a non-null field) is a defect of ours. The
    // outer message names the variable ('Variable "$first" got invalid value …; …').
    if (original.path === undefined) {
      return locatedLike(error, serviceError('BAD_USER_INPUT', (error as GraphQLError).message));
    }
  }
  if (original instanceof PothosValidationError) {
    return locatedLike(error, serviceError('BAD_USER_INPUT', original.message));
  }
  if (databaseConnectionFailure(original) !== undefined) {
    return locatedLike(error, serviceError('SERVICE_UNAVAILABLE', 'the catalogue is unavailable'));
  }
  return locatedLike(error, serviceError('INTERNAL_SERVER_ERROR', message));
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
