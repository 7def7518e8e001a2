/** The refusals the pipeline writes, in each dialect a handler may speak. */
import { tokenRateLimitedResponse } from '../auth/token-endpoint.ts';
import { RETRY_AFTER_UNAVAILABLE_SECONDS, timeoutError } from '../errors.ts';
import { errorResponse, graphqlErrorResponse } from '../responses.ts';
import { tooManyRequestsResponse } from '../auth/rate-limiter.ts';
import type { Refusals } from './handler.ts';

/** The service's own error body. */
export const REST_REFUSALS: Refusals = {
  rateLimited: tooManyRequestsResponse,
  timedOut: (requestId) => errorResponse(503, timeoutError().message, requestId),
};

/** GraphQL's `errors` with the code's status, so GraphQL clients read them as theirs. */
export const GRAPHQL_REFUSALS: Refusals = {
  rateLimited: (retryAfterSeconds) =>
    graphqlErrorResponse(
      'RATE_LIMITED',
      `rate limit exceeded: retry after ${retryAfterSeconds} s`,
      {
        'retry-after': String(retryAfterSeconds),
      },
    ),
  timedOut: () =>
    graphqlErrorResponse('TIMEOUT', timeoutError().message, {
      'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS),
    }),
};

/** OAuth 2.0 clients read `error` as a string: the token endpoint's limit speaks their shape. */
export const TOKEN_REFUSALS: Refusals = {
  rateLimited: tokenRateLimitedResponse,
  timedOut: REST_REFUSALS.timedOut,
};
