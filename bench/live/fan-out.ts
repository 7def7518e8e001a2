/**
 * Fan-out on one process (the target: 5,000 concurrent SSE subscribers, each
 * receiving one event in ≤ 1 s, resident set ≤ 500 MB): `subscribers` SSE subscriptions of
 * one gateway process watch one product; one push moves its lowest price; the clock runs from
 * the run's commit (its `finishedAt`) to the last subscriber's event. The gateway's resident
 * set (VmRSS) is read before the subscribers connect, once they are all open, and sampled
 * every 100 ms from the push to the last event (the peak).
 */
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
      const memory = sampleResidentSet(pid);
      const [item] = atRound([target], 0);
      const runId = await push(gateway.baseUrl, token, shopId, [item!]);
      await Promise.all(
        subscribers.map((subscriber) =>
          subscriber.until((events) => events.length > 0, DELIVERY_TIMEOUT_MS),
        ),
      );
      const residentPeakBytes = await memory.stop();
      const report = await finishedRun(gateway.baseUrl, token, runId);
      const committed = Date.parse(report.finishedAt!);
      const arrivals = Float64Array.from(
        subscribers.map(({ events }) => {
          if (events.length !== 1 || eventPrice(events[0]!.payload).value !== item!.price) {
            throw new Error(`fan-out: a subscriber got ${JSON.stringify(events)}`);
          }
          return events[0]!.at - committed;
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
      };
    } finally {
      await Promise.all(subscribers.map((subscriber) => subscriber.close()));
      agent.destroy();
    }
  });
}
