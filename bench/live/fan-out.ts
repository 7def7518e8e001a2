/**
 * Fan-out on one process (the target: 5,000 concurrent SSE subscribers, each
 * receiving one event in ≤ 1 s, resident set ≤ 500 MB): `subscribers` SSE subscriptions of
 * one gateway process watch one product; one push moves its lowest price (after a first,
 * unmeasured, that warms the gateway's code); the clock runs from the run's commit (its
 * `finishedAt`) to the last subscriber's event. The gateway's resident set (VmRSS) is read
 * before the subscribers connect, once they are all open, and sampled every 100 ms from the
 * push to the last event (the peak); its CPU time over that span too.
 */
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { percentile } from '../load.ts';
import { shopToken, withGateway } from '../feeds/gateway.ts';
import { residentBytes, sampleResidentSet } from '../systems.ts';
import { eventPrice, watching, type LiveContext } from './context.ts';
import { atRound, finishedRun, push, pushTargets } from './pushes.ts';
import { sseSubscriber, type SseSubscriber } from './subscribers.ts';

export interface FanOutResult {
  subscribers: number;
  /** Commit → the last subscriber's event, and the median subscriber's, in ms. */
  allDeliveredMs: number;
  medianMs: number;
  /** Seconds the subscribers took to connect, all of them. */
  connectSeconds: number;
  residentBeforeBytes: number;
  residentSubscribedBytes: number;
  residentPeakBytes: number;
  /** The gateway's CPU time from the push to the last event (what a busy machine cannot inflate). */
  cpuMs: number;
}

/** A process's CPU time so far (user and system), in ms (Linux). */
async function cpuMsOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, the 14th and 15th fields, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Subscriptions opened at a time: the gateway's accept queue is 511 deep. */
const OPENING_AT_ONCE = 200;
const DELIVERY_TIMEOUT_MS = 120_000;

/** Opens `count` subscriptions, OPENING_AT_ONCE at a time. */
async function openAll(
  baseUrl: string,
  count: number,
  subscription: ReturnType<typeof watching>,
  agent: http.Agent,
): Promise<SseSubscriber[]> {
  const subscribers: SseSubscriber[] = [];
  while (subscribers.length < count) {
    const batch = Array.from(
      { length: Math.min(OPENING_AT_ONCE, count - subscribers.length) },
      () => sseSubscriber(baseUrl, subscription, agent),
    );
    subscribers.push(...batch);
    await Promise.all(batch.map((subscriber) => subscriber.opened));
  }
  return subscribers;
}

export async function measureFanOut(context: LiveContext, count: number): Promise<FanOutResult> {
  const env = { LIVE_SUBSCRIPTIONS_PER_CLIENT_IP: String(Math.max(100, count)) };
  return withGateway(context.databaseUrl, env, async (gateway) => {
    const pid = gateway.process.pid!;
    const { shopId, market, targets } = await pushTargets(context.client, 1);
    const target = targets[0]!;
    const token = await shopToken(context.db, gateway.baseUrl, shopId);
    const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
    const residentBeforeBytes = await residentBytes(pid);
    const connecting = performance.now();
    const subscribers = await openAll(
      gateway.baseUrl,
      count,
      watching(market, [target.productId]),
      agent,
    );
    const connectSeconds = (performance.now() - connecting) / 1000;
    try {
      const residentSubscribedBytes = await residentBytes(pid);
      context.log(
        `fan-out: ${count} SSE subscribers open in ${connectSeconds.toFixed(1)} s; pushing`,
      );
      const deliver = async (round: number) => {
        const [item] = atRound([target], round);
        const runId = await push(gateway.baseUrl, token, shopId, [item!]);
        await Promise.all(
          subscribers.map((subscriber) =>
            subscriber.until((events) => events.length > round, DELIVERY_TIMEOUT_MS),
          ),
        );
        const report = await finishedRun(gateway.baseUrl, token, runId);
        return { price: item!.price, committed: Date.parse(report.finishedAt!) };
      };
      // A first event unmeasured: the gateway's code for it warmed, as a serving one's is.
      await deliver(0);
      const memory = sampleResidentSet(pid);
      const cpuBefore = await cpuMsOf(pid);
      const { price, committed } = await deliver(1);
      const cpuMs = (await cpuMsOf(pid)) - cpuBefore;
      const residentPeakBytes = await memory.stop();
      const arrivals = Float64Array.from(
        subscribers.map(({ events }) => {
          if (events.length !== 2 || eventPrice(events[1]!.payload).value !== price) {
            throw new Error(`fan-out: a subscriber got ${JSON.stringify(events)}`);
          }
          return events[1]!.at - committed;
        }),
      ).sort();
      return {
        subscribers: count,
        allDeliveredMs: arrivals[arrivals.length - 1]!,
        medianMs: percentile(arrivals, 0.5),
        connectSeconds,
        residentBeforeBytes,
        residentSubscribedBytes,
        residentPeakBytes,
        cpuMs,
      };
    } finally {
      await Promise.all(subscribers.map((subscriber) => subscriber.close()));
      agent.destroy();
    }
  });
}
