/**
 * A request that threw instead of answering: a bound passed (503), the database unreachable
 * (503 with Retry-After), or a defect (500). Only the defect is logged as an error: the other
 * two are the service's known states, logged as warnings with what the operator can check.
 */
import { databaseConnectionFailure } from '../db/connection-errors.ts';
import { tookTooLong } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { errorResponse } from '../responses.ts';
import type { Refusals } from './handler.ts';

export function failureResponse(
  error: unknown,
  where: { requestId: string; path: string; refusals: Refusals },
  logger: Logger,
): Response {
  const { requestId, path } = where;
  if (tookTooLong(error)) {
    logger.warn({ err: error, requestId, path }, 'request took too long');
    return where.refusals.timedOut(requestId);
  }
  const unavailable = databaseConnectionFailure(error);
  if (unavailable !== undefined) {
    logger.warn({ err: error, reason: unavailable, requestId, path }, 'database unavailable');
    return errorResponse(503, 'the catalogue is unavailable', requestId);
  }
  logger.error({ err: error, requestId, path }, 'request failed');
  return errorResponse(500, 'internal error', requestId);
}
