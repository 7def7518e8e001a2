/**
 * Feed commit → event at the subscriber (the target: ≤ 1 s p99, ≤ 200 ms p50), with
 * one gateway process (the subscribers and the pushes on it) and with two (the subscribers on
 * one, the pushes sent to and applied by the other: the announcement crosses processes through
 * Postgres). Each round pushes one item at a price that moves its product's lowest price; an
 * SSE and a graphql-ws subscriber watch that product. The clock starts at the run's
 * `finishedAt` (the gateway's clock, set just before its transaction commits: the figure
 * includes the commit itself) and stops when the event's bytes arrive.
 */
import { shopToken, withGateway } from '../feeds/gateway.ts';
import type { RunningSystem } from '../systems.ts';
import { eventPrice, watching, type LiveContext } from './context.ts';
import { atRound, finishedRun, push, pushTargets, type PushTarget } from './pushes.ts';
import { sseSubscriber, wsSubscriber, type Subscriber } from './subscribers.ts';

export interface LatencyResult {
  processes: 1 | 2;
  /** Commit → event, in ms, per round. */
  sse: number[];
  ws: number[];
  /** The push's 202 → the SSE event, in ms (what a shop's own client would see). */
  afterAnswer: number[];
}

const EVENT_TIMEOUT_MS = 30_000;

/** When each subscriber got its next event, checked to carry the price pushed. */
async function nextEvents(
  subscribers: readonly Subscriber[],
  seen: number,
  target: PushTarget,
  price: number,
): Promise<number[]> {
  return Promise.all(
    subscribers.map(async (subscriber) => {
      await subscriber.until((events) => events.length > seen, EVENT_TIMEOUT_MS);
      const event = subscriber.events[seen]!;
      const { productId, value } = eventPrice(event.payload);
      if (productId !== target.productId || Math.abs(value - price) > 0.001) {
        throw new Error(
          `${subscriber.transport}: event ${JSON.stringify(event.payload)}, pushed ${price}`,
        );
      }
      return event.at;
    }),
  );
}

async function rounds(
  context: LiveContext,
  subscriberSide: RunningSystem,
  pusherSide: RunningSystem,
  processes: 1 | 2,
  count: number,
): Promise<LatencyResult> {
  const { shopId, market, targets } = await pushTargets(context.client, 1);
  const target = targets[0]!;
  const token = await shopToken(context.db, pusherSide.baseUrl, shopId);
  const subscription = watching(market, [target.productId]);
  const sse = sseSubscriber(subscriberSide.baseUrl, subscription);
  const ws = wsSubscriber(subscriberSide.baseUrl, subscription);
  const result: LatencyResult = { processes, sse: [], ws: [], afterAnswer: [] };
  try {
    await sse.opened;
    // A first round unmeasured: graphql-ws acknowledges no subscription, so its event says it
    // is open; and the gateways' first event warms their code.
    for (let round = -1; round < count; round++) {
      const seen = sse.events.length;
      const [item] = atRound([target], round + 1);
      const runId = await push(pusherSide.baseUrl, token, shopId, [item!]);
      const answered = Date.now();
      const [sseAt, wsAt] = await nextEvents([sse, ws], seen, target, item!.price);
      const report = await finishedRun(pusherSide.baseUrl, token, runId);
      if (round < 0) continue;
      const committed = Date.parse(report.finishedAt!);
      result.sse.push(sseAt! - committed);
      result.ws.push(wsAt! - committed);
      result.afterAnswer.push(sseAt! - answered);
    }
    context.log(
      `latency, ${processes} process${processes === 1 ? '' : 'es'}: ${count} rounds measured`,
    );
    return result;
  } finally {
    await Promise.all([sse.close(), ws.close()]);
  }
}

export async function measureLatency(
  context: LiveContext,
  count: number,
): Promise<LatencyResult[]> {
  const one = await withGateway(context.databaseUrl, {}, (gateway) =>
    rounds(context, gateway, gateway, 1, count),
  );
  const two = await withGateway(context.databaseUrl, {}, (subscriberSide) =>
    withGateway(context.databaseUrl, {}, (pusherSide) =>
      rounds(context, subscriberSide, pusherSide, 2, count),
    ),
  );
  return [one, two];
}
