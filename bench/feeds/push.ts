/**
 * A push of 1,000 items visible in answers (performance.md: ≤ 1 s p99 after its 2xx, response
 * cache on). Round after round, a shop's client pushes `items` of the shop's listed offers
 * (drawn across them, another draw each round, every price moved a cent) with `POST
 * /feeds/shops/{id}/items`, without `wait`. Before the push, one product of the push (another
 * each round, from across the pushed products' ids) is asked for by GraphQL and by REST until
 * the gateway's response cache answers both (its hits counter rises), so what is measured is
 * the cache dropping a stale answer, not a miss. The clock starts when the 202 arrives; both
 * are then asked again every `pollMs` until both show the shop's offer at its new price.
 */
import type pg from 'pg';
import type { RunningSystem } from '../systems.ts';
import { shopPushItems, type PushItem } from './feed-files.ts';
import { shopMarket } from './full-feed.ts';
import { appliedCounts } from './submit.ts';
import type { FeedRunReport } from '../../src/feeds/feed-run.ts';

export interface PushSpec {
  shopId: number;
  items: number;
  rounds: number;
  pollMs: number;
}

export interface PushRound {
  /** From the 202 to both answers showing the new price, in ms. */
  visibleMs: number;
  /** From sending the push to its 202, in ms. */
  answeredMs: number;
  productId: number;
  /** Requests of each answer while polling. */
  polls: number;
  /**
   * The run's own times (its report, the gateway's clock, the same machine's): from being
   * received to starting (queued), to finishing (applying), and from its finish to both
   * answers showing the new price.
   */
  queuedMs: number;
  applyingMs: number;
  afterFinishMs: number;
}

export interface PushResult {
  shopId: number;
  items: number;
  pollMs: number;
  rounds: PushRound[];
}

const PRODUCT_OFFERS = /* GraphQL */ `
  query BenchPushedProduct($id: Int!, $market: Market!) {
    product(id: $id, market: $market) {
      offers(first: 100) {
        edges {
          node {
            price {
              value
            }
            shop {
              shopId
            }
          }
        }
      }
    }
  }
`;

interface Probe {
  /** The prices of the shop's offers of the product in the answer. */
  prices(): Promise<number[]>;
}

function probes(baseUrl: string, market: string, productId: number, shopId: number): Probe[] {
  const rest: Probe = {
    async prices() {
      const response = await fetch(
        `${baseUrl}/products/${productId}?market=${market}&fields=productId,offers`,
      );
      if (!response.ok) throw new Error(`REST product ${productId}: ${response.status}`);
      const body = (await response.json()) as {
        offers: { price: { value: number }; shop: { id: number | string } }[];
      };
      return body.offers.filter((o) => Number(o.shop.id) === shopId).map((o) => o.price.value);
    },
  };
  const graphql: Probe = {
    async prices() {
      const response = await fetch(`${baseUrl}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: PRODUCT_OFFERS,
          variables: { id: productId, market: market.toUpperCase() },
        }),
      });
      const body = (await response.json()) as {
        data?: {
          product: {
            offers: {
              edges: { node: { price: { value: number }; shop: { shopId: number | string } } }[];
            };
          } | null;
        };
        errors?: unknown[];
      };
      if (!response.ok || body.errors) {
        throw new Error(`GraphQL product ${productId}: ${JSON.stringify(body.errors)}`);
      }
      return (body.data?.product?.offers.edges ?? [])
        .filter(({ node }) => Number(node.shop.shopId) === shopId)
        .map(({ node }) => node.price.value);
    },
  };
  return [rest, graphql];
}

const showsPrice = (prices: number[], price: number) =>
  prices.some((value) => Math.abs(value - price) < 0.005);

/** The gateway's response cache hits so far (its /metrics counter). */
async function cacheHits(gateway: RunningSystem): Promise<number> {
  const text = await (await fetch(`${gateway.baseUrl}/metrics`)).text();
  const line = /^catalogue_response_cache_hits_total(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (!line) throw new Error('the gateway has no catalogue_response_cache_hits_total');
  return Number(line[1]);
}

/** Asks both until the cache answers them (at most a few times); the prices they show. */
async function primed(gateway: RunningSystem, both: Probe[]): Promise<number[][]> {
  for (let attempt = 0; attempt < 5; attempt++) {
    await Promise.all(both.map((probe) => probe.prices()));
    const before = await cacheHits(gateway);
    const prices = [];
    for (const probe of both) prices.push(await probe.prices());
    if ((await cacheHits(gateway)) - before >= both.length) return prices;
  }
  throw new Error('the response cache does not answer the probes: is it on?');
}

/**
 * The watched item of a round: a plainly changed one, across the pushed products' ids, of a
 * product no earlier round watched when the push has one (its draw may repeat a product).
 */
function watched(
  items: PushItem[],
  round: number,
  rounds: number,
  watchedBefore: ReadonlySet<number>,
): PushItem {
  const plain = items.filter((i) => i.newPrice !== undefined);
  if (plain.length === 0) throw new Error('the push changes no served offer plainly');
  plain.sort((a, b) => a.productId - b.productId);
  const fresh = plain.filter((i) => !watchedBefore.has(i.productId));
  const among = fresh.length > 0 ? fresh : plain;
  return among[Math.floor(((round + 0.5) / rounds) * among.length)]!;
}

/** Pushes the items; the run's id. */
async function push(
  baseUrl: string,
  token: string,
  shopId: number,
  items: PushItem[],
): Promise<string> {
  const response = await fetch(`${baseUrl}/feeds/shops/${shopId}/items`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(items.map((i) => i.item)),
  });
  const text = await response.text();
  if (response.status !== 202) throw new Error(`push: ${response.status} ${text}`);
  return (JSON.parse(text) as FeedRunReport).runId;
}

/** The run's report once it has finished (it has: its change is visible). */
async function finishedRun(baseUrl: string, token: string, runId: string) {
  const response = await fetch(`${baseUrl}/feeds/runs/${runId}?wait=true`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const report = (await response.json()) as FeedRunReport;
  appliedCounts(report, `push ${runId}`);
  const at = (instant: string | null) => Date.parse(instant!);
  return {
    received: at(report.receivedAt),
    started: at(report.startedAt),
    finished: at(report.finishedAt),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function measurePushVisibility(
  client: pg.ClientBase,
  gateway: RunningSystem,
  token: string,
  spec: PushSpec,
  log: (line: string) => void,
): Promise<PushResult> {
  const { shopId } = spec;
  const { market } = await shopMarket(client, shopId);
  const rounds: PushRound[] = [];
  for (let round = 0; round < spec.rounds; round++) {
    const items = await shopPushItems(client, shopId, spec.items, `push-${Date.now()}-${round}`);
    const watch = watched(items, round, spec.rounds, new Set(rounds.map((r) => r.productId)));
    const both = probes(gateway.baseUrl, market, watch.productId, shopId);
    const before = await primed(gateway, both);
    if (before.some((prices) => prices.length === 0)) {
      throw new Error(`product ${watch.productId}: no offer of shop ${shopId} in the answers`);
    }
    const sent = performance.now();
    const runId = await push(gateway.baseUrl, token, shopId, items);
    const answered = performance.now();
    let polls = 0;
    const pending = new Set(both);
    while (pending.size > 0) {
      if (performance.now() - answered > 60_000) {
        throw new Error(`push ${round + 1}: product ${watch.productId} not visible in 60 s`);
      }
      await sleep(spec.pollMs);
      polls++;
      const shown = await Promise.all(
        [...pending].map(async (probe) => [probe, await probe.prices()] as const),
      );
      for (const [probe, prices] of shown) {
        if (showsPrice(prices, watch.newPrice!)) pending.delete(probe);
      }
    }
    const visibleMs = performance.now() - answered;
    const visibleAt = Date.now();
    const run = await finishedRun(gateway.baseUrl, token, runId);
    rounds.push({
      visibleMs,
      answeredMs: answered - sent,
      productId: watch.productId,
      polls,
      queuedMs: run.started - run.received,
      applyingMs: run.finished - run.started,
      afterFinishMs: visibleAt - run.finished,
    });
    if ((round + 1) % Math.max(1, Math.ceil(spec.rounds / 10)) === 0) {
      log(
        `push: round ${round + 1}/${spec.rounds}: ${items.length} items, product ` +
          `${watch.productId} visible ${visibleMs.toFixed(0)} ms after the 202 ` +
          `(answered in ${(answered - sent).toFixed(0)} ms; run queued ` +
          `${rounds.at(-1)!.queuedMs} ms, applying ${rounds.at(-1)!.applyingMs} ms, visible ` +
          `${rounds.at(-1)!.afterFinishMs} ms after its finish)`,
      );
    }
  }
  return { shopId, items: spec.items, pollMs: spec.pollMs, rounds };
}
