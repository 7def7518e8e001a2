/**
 * The service's error codes (decisions section 3), each with its HTTP status, raised as
 * GraphQLErrors so yoga passes them through its masking; everything else is masked.
 */
import { GraphQLError } from 'graphql';

export const ERROR_STATUS = {
  BAD_USER_INPUT: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  UNPROCESSABLE: 422,
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
