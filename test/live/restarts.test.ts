/**
 * Nothing committed is lost, nor told twice, for a connected subscriber, with real processes:
 * two gateway processes (`serve`) on a scratch PostgreSQL cluster of their own and a Redis of
 * their own (response cache and limits in it), an SSE and a graphql-ws subscriber on one, a
 * shop pushing its item at a new price through the other, before, while and after
 * - Postgres stops for three seconds and starts again (every connection lost: pushes refused
 *   meanwhile, runs taken before it applied after it),
 * - the subscribers' gateway alone is cut off from Postgres for three seconds (its sessions
 *   ended, its role refused) while the other commits runs, which it must read back from the
 *   outbox once it listens again, in order and without those it had heard,
 * - Redis stops and starts again (not on the delivery path: nothing may be lost for it).
 * Each subscriber (new for each fault) gets one event per committed run, carrying the lowest
 * price before and after that the run's outbox row records, which is the price its push set
 * (bench/live/restarts.ts does the pushing and the counting; `npm run bench:live` reports the
 * same measurement).
 *
 * The cluster and the Redis are the test's own whichever database the suite's pass uses, so it
 * runs in both.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFaultEnvironment,
  measureLosses,
  type Fault,
  type FaultEnvironment,
  type LossResult,
} from '../../bench/live/restarts.ts';
import { requirePrerequisite } from '../helpers/prerequisites.ts';
import { requireServerBinaries } from '../helpers/scratch-cluster.ts';

requireServerBinaries("the restart test needs PostgreSQL 15's server binaries (initdb, pg_ctl)");
requirePrerequisite(
  spawnSync('redis-server', ['--version']).error === undefined,
  'the restart test starts and stops a redis-server of its own: apt-get install redis-server',
);

/** A fault lasts, every run is waited for (and processes start): a busy machine needs long. */
const CASE_TIMEOUT_MS = 120_000;
const SPEC = { before: 3, after: 3, everyMs: 100, downMs: 3_000 };

const FAULTS: readonly Fault[] = ['postgres', 'listener', 'redis'];
let environment: FaultEnvironment;
let results: LossResult[];

beforeAll(async () => {
  environment = await createFaultEnvironment();
  results = await measureLosses(environment, FAULTS, SPEC, (line) => console.info(line));
}, FAULTS.length * CASE_TIMEOUT_MS);
afterAll(async () => {
  await environment?.destroy();
});

describe('live prices across faults, with real processes', () => {
  it.each(FAULTS)(
    'a %s fault: every committed run reaches each connected subscriber once, as it changed the price',
    (fault) => {
      const result = results.find((measured) => measured.fault === fault)!;
      const committed = result.runs.filter((run) => run.committed);
      // Pushes were taken on both sides of the fault, and each applied what it sent.
      expect(result.runs.length).toBeGreaterThan(SPEC.before + SPEC.after);
      expect(committed).toHaveLength(result.runs.length);
      expect(result.misapplied).toBe(0);
      if (fault === 'postgres') expect(result.refused).toBeGreaterThan(0);
      // Runs committed while the subscribers' gateway did not listen: read back from the outbox.
      if (fault === 'listener') expect(result.committedDuringFault).toBeGreaterThan(0);
      for (const subscriber of result.subscribers) {
        expect(subscriber).toEqual({
          transport: subscriber.transport,
          received: committed.length,
          lost: 0,
          duplicated: 0,
          strange: 0,
          connected: true,
        });
      }
    },
  );
});
