/**
 * A stalled subscriber (the issue's target: closed after its buffer bound, the others' p99
 * unchanged). On one gateway process, `others` SSE subscribers watch `items` products whose
 * lowest prices every run moves (each run gives each of them `items` events); their commit →
 * last-event latency is measured over `rounds` runs alone, then again while one more
 * subscriber, watching the same products with their 365-day price history (about 6 KB an
 * event), has stopped reading its socket. The runs go on until what that subscriber is owed
 * exceeds what the network can hold for it (the kernel's socket buffers, read from
 * /proc/sys/net) plus its buffer of LIVE_BUFFER_EVENTS with room to spare; then it reads again,
 * and what it gets tells how it ended: the events the network held, then the
 * `slow_consumer` error, then `complete`. The gateway's resident set is read before the stall
 * and after it.
 */
import { readFile } from 'node:fs/promises';
import { shopToken, withGateway } from '../feeds/gateway.ts';
import { residentBytes, type RunningSystem } from '../systems.ts';
import { LOWEST_PRICE_CHANGED, watching, type LiveContext } from './context.ts';
import { atRound, finishedRun, push, pushTargets, type PushTarget } from './pushes.ts';
import { sseSubscriber, type SseSubscriber } from './subscribers.ts';

export interface StalledSpec {
  others: number;
  items: number;
  rounds: number;
}

export interface StalledResult extends StalledSpec {
  /** The others' commit → last event of a run, in ms, per subscriber and run. */
  alone: number[];
  stalled: number[];
  /** Runs pushed while the subscriber was stalled, and the bytes it was owed by then. */
  stallRuns: number;
  owedBytes: number;
  /** What the network could hold for it (its socket buffers), and its events' size. */
  networkBytes: number;
  eventBytes: number;
  /** What it read once it read again: the events of runs since it stalled, and how it ended. */
  eventsRead: number;
  endedWith: string;
  residentBeforeBytes: number;
  residentAfterBytes: number;
}

/** Events held for a subscriber that reads slower than they come (the gateway's default). */
const BUFFER_EVENTS = 100;
const EVENT_TIMEOUT_MS = 60_000;
const END_TIMEOUT_MS = 10_000;

/** The stalled subscriber's selection: the products with their year of daily lowest prices. */
const WITH_HISTORY = LOWEST_PRICE_CHANGED.replace(
  'changedAt',
  'changedAt product { priceHistory(days: 365) { date lowestPrice { value currency } } }',
);

/**
 * What loopback's kernel holds for a socket that is not read: the sender's buffer at its
 * largest and the receiver's as it starts (it grows only as it is read).
 */
async function networkAllowance(): Promise<number> {
  const numbers = async (name: string) =>
    (await readFile(`/proc/sys/net/ipv4/${name}`, 'utf8')).trim().split(/\s+/).map(Number);
  const [, , sendMax] = await numbers('tcp_wmem');
  const [, receiveDefault] = await numbers('tcp_rmem');
  return sendMax! + receiveDefault!;
}

/** Pushes round `round`; each subscriber's commit → last event of it, in ms. */
async function runRound(
  gateway: RunningSystem,
  token: string,
  shopId: number,
  targets: readonly PushTarget[],
  round: number,
  others: readonly SseSubscriber[],
): Promise<number[]> {
  const expected = (round + 1) * targets.length;
  const runId = await push(gateway.baseUrl, token, shopId, atRound(targets, round));
  await Promise.all(
    others.map((other) => other.until((events) => events.length >= expected, EVENT_TIMEOUT_MS)),
  );
  const report = await finishedRun(gateway.baseUrl, token, runId);
  const committed = Date.parse(report.finishedAt!);
  return others.map((other) => other.events[expected - 1]!.at - committed);
}

/** Reads the stalled subscriber to its end: the events it got, and how the stream ended. */
async function readToEnd(
  stalled: SseSubscriber,
  before: number,
): Promise<{ events: number; endedWith: string }> {
  stalled.resume();
  // Until its stream ends; one that is still open after this long was never closed.
  await stalled.until(() => false, END_TIMEOUT_MS).catch(() => undefined);
  const last = stalled.events.at(-1)?.payload;
  const error = last?.errors?.[0];
  const reason = (error?.extensions?.details as { reason?: string }[] | undefined)?.[0]?.reason;
  const endedWith = error
    ? `${String(error.extensions?.code)} (${reason ?? error.message})${stalled.ended() ? ', complete' : ''}`
    : stalled.ended()
      ? 'complete, no error'
      : 'still open';
  return { events: stalled.events.length - before - (error ? 1 : 0), endedWith };
}

export async function measureStalled(
  context: LiveContext,
  spec: StalledSpec,
): Promise<StalledResult> {
  const env = { LIVE_BUFFER_EVENTS: String(BUFFER_EVENTS) };
  return withGateway(context.databaseUrl, env, async (gateway) => {
    const { shopId, market, targets } = await pushTargets(context.client, spec.items);
    const token = await shopToken(context.db, gateway.baseUrl, shopId);
    const ids = targets.map((target) => target.productId);
    const others = Array.from({ length: spec.others }, () =>
      sseSubscriber(gateway.baseUrl, watching(market, ids)),
    );
    const stalled = sseSubscriber(gateway.baseUrl, {
      ...watching(market, ids),
      query: WITH_HISTORY,
    });
    try {
      await Promise.all([...others, stalled].map((subscriber) => subscriber.opened));
      let round = 0;
      // Unmeasured: warms the gateway, and gives the size of the stalled one's events.
      await runRound(gateway, token, shopId, targets, round++, [...others, stalled]);
      const eventBytes = Math.max(
        ...stalled.events.map((event) => JSON.stringify(event.payload).length),
      );
      stalled.pause();
      const before = stalled.events.length;
      const alone: number[] = [];
      for (let measured = 0; measured < spec.rounds; measured++) {
        alone.push(...(await runRound(gateway, token, shopId, targets, round++, others)));
      }
      const residentBeforeBytes = await residentBytes(gateway.process.pid!);
      const networkBytes = await networkAllowance();
      const stalledRounds: number[] = [];
      let stallRuns = 0;
      // Owed well past what the network holds plus its buffer, and at least `rounds` runs.
      const enough = networkBytes + 2 * BUFFER_EVENTS * eventBytes;
      while (stallRuns < spec.rounds || stallRuns * targets.length * eventBytes < enough) {
        const latencies = await runRound(gateway, token, shopId, targets, round++, others);
        if (stallRuns++ < spec.rounds) stalledRounds.push(...latencies);
      }
      const residentAfterBytes = await residentBytes(gateway.process.pid!);
      context.log(`stalled: ${stallRuns} runs while one subscriber read nothing; reading it now`);
      const { events, endedWith } = await readToEnd(stalled, before);
      return {
        ...spec,
        alone,
        stalled: stalledRounds,
        stallRuns,
        owedBytes: stallRuns * targets.length * eventBytes,
        networkBytes,
        eventBytes,
        eventsRead: events,
        endedWith,
        residentBeforeBytes,
        residentAfterBytes,
      };
    } finally {
      await Promise.all([...others, stalled].map((subscriber) => subscriber.close()));
    }
  });
}
