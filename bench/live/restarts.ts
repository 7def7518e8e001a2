/**
 * Events lost across a restart (the issue's target: 0 for connected subscribers). On a scratch
 * PostgreSQL cluster of its own with the tests' seeded catalogue, and a Redis of its own that
 * both gateways use (response cache and limits), two gateway processes: an SSE and a
 * graphql-ws subscriber on one watch a product, and a shop's client pushes that product's
 * item to the other, every push at a new, lower price. Pushes go on before the fault, while
 * it lasts (Postgres or Redis restarted) and after it; a push the gateway refuses stores no
 * run and is counted apart. Once every run it took has finished, two more runs close the
 * sequence. Each subscriber must then have one event per run that committed, no more, each
 * with the lowest price before and after that the run's outbox row records, which must be
 * what the push set.
 *
 * Redis is not on the delivery path (Postgres's NOTIFY and the outbox are): its restart shows
 * that losing what Redis holds loses no event.
 */
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '../../src/db/client.ts';
import { createScratchCluster, type ScratchCluster } from '../../test/helpers/scratch-cluster.ts';
import { fillScratchDatabase } from '../../test/helpers/scratch-database.ts';
import { startRedisServer, type TestRedis } from '../../test/helpers/redis.ts';
import { shopToken, withGateway } from '../feeds/gateway.ts';
import type { RunningSystem } from '../systems.ts';
import { eventPrice, watching } from './context.ts';
import { push, PushRefused, pushTargets, type PushTarget } from './pushes.ts';
import { sseSubscriber, wsSubscriber, type SeenEvent, type Subscriber } from './subscribers.ts';

/**
 * What goes wrong: Postgres stops and starts again (every connection of both gateways lost,
 * no run commits meanwhile), Redis does, or the subscribers' gateway alone is cut off from
 * Postgres (its connections ended, its role refused) while the other goes on committing
 * runs, which it must then read back from the outbox.
 */
export type Fault = 'postgres' | 'redis' | 'listener';

/** The cluster, its catalogue and the Redis the loss measurements break. */
export interface FaultEnvironment {
  databaseUrl: string;
  /** The same database as a role of the subscribers' gateway's own (the `listener` fault). */
  listenerUrl: string;
  redisUrl: string;
  /** Breaks it, and mends it `downMs` later. */
  fault(fault: Fault, downMs: number): Promise<void>;
  destroy(): Promise<void>;
}

const LISTENER_ROLE = 'live_listener';

export async function createFaultEnvironment(): Promise<FaultEnvironment> {
  const cluster: ScratchCluster = await createScratchCluster();
  let redis: TestRedis | undefined;
  try {
    const databaseUrl = await fillScratchDatabase(cluster, 'seeded');
    await query(databaseUrl, `create role ${LISTENER_ROLE} superuser login`, []);
    const listenerUrl = new URL(databaseUrl);
    listenerUrl.username = LISTENER_ROLE;
    redis = await startRedisServer('redis-server');
    if (!redis)
      throw new Error('the loss measurements need redis-server (apt-get install redis-server)');
    const port = Number(new URL(redis.url).port);
    const cutOff = async (downMs: number) => {
      await query(databaseUrl, `alter role ${LISTENER_ROLE} nologin`, []);
      await query(
        databaseUrl,
        'select pg_terminate_backend(pid) from pg_stat_activity where usename = $1',
        [LISTENER_ROLE],
      );
      await sleep(downMs);
      await query(databaseUrl, `alter role ${LISTENER_ROLE} login`, []);
    };
    return {
      databaseUrl,
      listenerUrl: listenerUrl.toString(),
      redisUrl: redis.url,
      async fault(fault, downMs) {
        if (fault === 'listener') return cutOff(downMs);
        if (fault === 'postgres') {
          await cluster.stop();
          await sleep(downMs);
          return cluster.start();
        }
        await redis!.stop();
        await sleep(downMs);
        redis = await startRedisServer('redis-server', port);
      },
      async destroy() {
        await redis?.stop();
        await cluster.destroy();
      },
    };
  } catch (error) {
    await redis?.stop();
    await cluster.destroy();
    throw error;
  }
}

export interface LossSpec {
  /** Pushes before the fault and after it, and the pause between two while it lasts. */
  before: number;
  after: number;
  everyMs: number;
  /** How long the fault lasts. */
  downMs: number;
}

/**
 * A run the pushing gateway took: the price it set, and whether it committed. A push answered
 * with an error may still have stored its run (the connection lost after the commit, before
 * its answer): such a run, found among the shop's, has no price known here.
 */
export interface TakenRun {
  runId: string;
  price: number | undefined;
  /** When it finished (the gateway's clock, Date.now()'s), once it has. */
  finishedAt?: number;
  /** Set once finished: the outbox's lowest prices before and after, when it committed. */
  committed?: { previous: number; current: number };
}

export interface SubscriberLoss {
  transport: 'sse' | 'ws';
  received: number;
  /** Committed runs whose event never came, or came more than once. */
  lost: number;
  duplicated: number;
  /** Events that match no committed run. */
  strange: number;
  connected: boolean;
}

export interface LossResult {
  fault: Fault;
  faultMs: number;
  /** Runs that committed while the fault lasted (only the `listener` fault lets them). */
  committedDuringFault: number;
  runs: TakenRun[];
  /** Pushes refused (no run stored) while the fault lasted. */
  refused: number;
  /** Committed runs whose outbox row does not say what their push set. */
  misapplied: number;
  subscribers: SubscriberLoss[];
}

const SETTLE_TIMEOUT_MS = 120_000;

/** One connection's answer to `text`, the connection made for it (servers restart here). */
async function query<Row extends pg.QueryResultRow>(url: string, text: string, values: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** Waits until every run has finished (the gateway answering 503 meanwhile is waited out). */
async function settle(baseUrl: string, token: string, runs: readonly TakenRun[]): Promise<void> {
  const until = performance.now() + SETTLE_TIMEOUT_MS;
  for (const run of runs) {
    for (;;) {
      if (performance.now() > until) throw new Error(`run ${run.runId} not finished in time`);
      const response = await fetch(`${baseUrl}/feeds/runs/${run.runId}?wait=true`, {
        headers: { authorization: `Bearer ${token}` },
      }).catch(() => undefined);
      const report = response?.ok
        ? ((await response.json()) as { finishedAt: string | null })
        : undefined;
      if (report?.finishedAt) {
        run.finishedAt = Date.parse(report.finishedAt);
        break;
      }
      await sleep(100);
    }
  }
}

/** What each committed run changed for the product, from the outbox. */
async function readCommitted(url: string, productId: number, runs: TakenRun[]): Promise<void> {
  const rows = await query<{ run_id: string; previous: number; current: number }>(
    url,
    `select run_id, old_lowest_price::float8 as previous, new_lowest_price::float8 as current
       from catalogue_changes where product_id = $1 and run_id = any($2)`,
    [productId, runs.map((run) => run.runId)],
  );
  const byRun = new Map(rows.map((row) => [row.run_id, row]));
  for (const run of runs) {
    const row = byRun.get(run.runId);
    if (row) run.committed = { previous: row.previous, current: row.current };
  }
}

function lossOf(subscriber: Subscriber, runs: readonly TakenRun[]): SubscriberLoss {
  const seen = new Map<string, number>();
  let strange = 0;
  for (const { payload } of subscriber.events) {
    const change = payload.data?.lowestPriceChanged;
    const run = runs.find(
      ({ committed }) =>
        committed &&
        change &&
        committed.previous === change.previous?.value &&
        committed.current === eventPrice(payload).value,
    );
    if (run) seen.set(run.runId, (seen.get(run.runId) ?? 0) + 1);
    else strange++;
  }
  const committed = runs.filter((run) => run.committed);
  return {
    transport: subscriber.transport,
    received: subscriber.events.length,
    lost: committed.filter((run) => !seen.has(run.runId)).length,
    duplicated: [...seen.values()].filter((times) => times > 1).length,
    strange,
    connected: !subscriber.ended(),
  };
}

/** The pushes of the measurements, each at a price a cent under the one before. */
function pusher(pushing: RunningSystem, token: string, shopId: number, target: PushTarget) {
  const runs: TakenRun[] = [];
  let refused = 0;
  let price = target.prices[0];
  return {
    runs,
    refused: () => refused,
    /** Starts another measurement's pushes (the prices go on falling). */
    anew() {
      runs.length = 0;
      refused = 0;
    },
    async next(): Promise<(TakenRun & { price: number }) | undefined> {
      price = Math.round((price - 0.01) * 100) / 100;
      try {
        const runId = await push(pushing.baseUrl, token, shopId, [{ target, price }]);
        const run = { runId, price };
        runs.push(run);
        return run;
      } catch (error) {
        if (!(error instanceof PushRefused)) throw error;
        refused++;
        return undefined;
      }
    },
  };
}

/** The gateways, the subscription and the pushes every fault is measured with. */
interface LossSetup {
  environment: FaultEnvironment;
  listening: RunningSystem;
  pushing: RunningSystem;
  token: string;
  subscription: ReturnType<typeof watching>;
  pushes: ReturnType<typeof pusher>;
  shopId: number;
  spec: LossSpec;
}

/**
 * The shop's runs received since `since` that no push was answered with, yet committed (their
 * outbox rows say so): stored before the database went away, answered after. A run stored
 * and never committed (its body cut off) is no event owed.
 */
async function runsCommittedUnanswered(
  url: string,
  shopId: number,
  since: Date,
  answered: readonly TakenRun[],
): Promise<TakenRun[]> {
  const rows = await query<{ run_id: string }>(
    url,
    `select r.run_id from feed_runs r
      where r.shop_id = $1 and r.received_at >= $2 and not (r.run_id = any($3))
        and exists (select 1 from catalogue_changes c where c.run_id::text = r.run_id::text)
      order by r.received_at`,
    [shopId, since, answered.map((run) => run.runId)],
  );
  return rows.map((row) => ({ runId: row.run_id, price: undefined }));
}

/** One fault: subscribers of its own, pushes before, during and after it, then the count. */
async function measureFault(setup: LossSetup, fault: Fault): Promise<LossResult> {
  const { environment, listening, pushing, token, pushes, shopId, spec } = setup;
  const subscribers = [
    sseSubscriber(listening.baseUrl, setup.subscription),
    wsSubscriber(listening.baseUrl, setup.subscription),
  ];
  const seenPrice = async (price: number) => {
    const has = (events: readonly SeenEvent[]) =>
      events.some(({ payload }) => eventPrice(payload).value === price);
    await Promise.all(subscribers.map((s) => s.until(has, SETTLE_TIMEOUT_MS)));
  };
  const measuredFrom = new Date();
  try {
    pushes.anew();
    // Both subscribed (graphql-ws acknowledges no subscription: its first event does).
    await seenPrice((await pushes.next())!.price);
    for (let i = 0; i < spec.before; i++) await pushes.next();
    const started = Date.now();
    let mended = false;
    const faulting = environment.fault(fault, spec.downMs).finally(() => (mended = true));
    while (!mended) {
      await pushes.next();
      await sleep(spec.everyMs);
    }
    await faulting;
    const ended = Date.now();
    for (let i = 0; i < spec.after; i++) {
      await pushes.next();
      await sleep(spec.everyMs);
    }
    await settle(pushing.baseUrl, token, pushes.runs);
    // Two more runs close the sequence: every event owed before them has come by theirs.
    for (let i = 0; i < 2; i++) {
      const closing = await pushes.next();
      if (!closing) throw new Error('a closing push was refused');
      await settle(pushing.baseUrl, token, [closing]);
      await seenPrice(closing.price).catch(() => undefined);
    }
    // Applied before the closing runs, in the order received.
    const unanswered = await runsCommittedUnanswered(
      environment.databaseUrl,
      shopId,
      measuredFrom,
      pushes.runs,
    );
    const runs = [...pushes.runs, ...unanswered];
    await readCommitted(environment.databaseUrl, setup.subscription.variables.ids[0]!, runs);
    return {
      fault,
      faultMs: ended - started,
      committedDuringFault: runs.filter(
        (run) => run.committed && run.finishedAt! >= started && run.finishedAt! <= ended,
      ).length,
      runs,
      refused: pushes.refused(),
      misapplied: runs.filter(
        (run) => run.committed && run.price !== undefined && run.committed.current !== run.price,
      ).length,
      subscribers: subscribers.map((subscriber) => lossOf(subscriber, runs)),
    };
  } finally {
    await Promise.all(subscribers.map((subscriber) => subscriber.close()));
  }
}

/** Each fault in turn, on one pair of gateway processes. */
export async function measureLosses(
  environment: FaultEnvironment,
  faults: readonly Fault[],
  spec: LossSpec,
  log: (line: string) => void,
): Promise<LossResult[]> {
  const { databaseUrl, listenerUrl } = environment;
  const env = { REDIS_URL: environment.redisUrl, RESPONSE_CACHE_TTL_SECONDS: '30' };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { shopId, market, targets } = await pushTargets(client, 1).finally(() => client.end());
  const target = targets[0]!;
  const database = await openDatabase({ url: databaseUrl, poolSize: 1 });
  try {
    return await withGateway(listenerUrl, env, (listening) =>
      withGateway(databaseUrl, env, async (pushing) => {
        const token = await shopToken(database.db, pushing.baseUrl, shopId);
        const setup: LossSetup = {
          environment,
          listening,
          pushing,
          token,
          subscription: watching(market, [target.productId]),
          pushes: pusher(pushing, token, shopId, target),
          shopId,
          spec,
        };
        const results: LossResult[] = [];
        for (const fault of faults) {
          const result = await measureFault(setup, fault);
          log(
            `loss across a ${fault} fault (${(result.faultMs / 1000).toFixed(1)} s): ` +
              `${result.runs.length} runs taken, ${result.refused} pushes refused`,
          );
          results.push(result);
        }
        return results;
      }),
    );
  } finally {
    await database.close();
  }
}
