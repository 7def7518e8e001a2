/** Limit counters in this process, as the app has them without REDIS_URL. */
import pino from 'pino';
import { createLimitCounters } from '../../src/auth/limit-counters.ts';

export function countersInProcess() {
  return createLimitCounters({
    redisUrl: undefined,
    keyPrefix: 'test:',
    commandTimeoutMs: 500,
    logger: pino({ level: 'silent' }),
  });
}
