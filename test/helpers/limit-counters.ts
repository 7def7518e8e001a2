/** Limit counters in this process, as the app has them without REDIS_URL. */
import { createLimitCounters } from '../../src/auth/limit-counters.ts';

export function countersInProcess() {
  return createLimitCounters({ redis: undefined, keyPrefix: 'test:' });
}
