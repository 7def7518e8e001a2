/**
 * Keeps the served catalogue at the time of the requests (docs/api.md, "Clock"): brought
 * forward once when the service starts, then again just after every UTC midnight, when sales
 * and member prices end and a day joins the price history. In the background: a catalogue
 * weeks behind takes minutes to bring forward at the large scale, and the service answers
 * meanwhile from what it has (CATALOGUE_CLOCK=off leaves the catalogue as it is, for one
 * whose prices a feed keeps current).
 */
import type { Kysely } from 'kysely';
import { advanceCatalogueClock } from '../db/repositories/catalogue-clock.ts';
import type { Database } from '../db/types.ts';
import type { Logger } from '../logger.ts';
import { noteCatalogueBroughtForward } from '../metrics/process.ts';

const DAY_MS = 86_400_000;
/** After midnight by this much: a clock a little behind still finds the new day begun. */
const PAST_MIDNIGHT_MS = 5_000;

export interface CatalogueClock {
  /** Cancels the next advance; one under way finishes. */
  stop(): void;
}

/**
 * Advances the catalogue now and after each UTC midnight, without waiting. A failed advance
 * is logged and the service goes on serving what it has; the next one catches up (each only
 * acts on what is behind).
 */
export function startCatalogueClock(db: Kysely<Database>, logger: Logger): CatalogueClock {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const advance = async () => {
    try {
      const advanced = await advanceCatalogueClock(db, new Date());
      noteCatalogueBroughtForward();
      logger.info(advanced, 'catalogue brought forward');
    } catch (error) {
      // Stopping closes the database under an advance: what it had not committed waits for
      // the next start.
      if (stopped) logger.info('stopped before the catalogue was brought forward');
      else
        logger.error({ err: error }, 'bringing the catalogue forward failed; retrying at midnight');
    }
  };
  const scheduleNext = () => {
    if (stopped) return;
    const now = Date.now();
    const delay = Math.ceil(now / DAY_MS) * DAY_MS - now + PAST_MIDNIGHT_MS;
    timer = setTimeout(() => void advance().then(scheduleNext), delay);
    // The clock alone keeps no process alive.
    timer.unref();
  };
  void advance().then(scheduleNext);
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
