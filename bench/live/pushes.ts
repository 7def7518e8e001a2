/**
 * The runs the live bench commits: a shop's client pushes some of the shop's items (`POST
 * /feeds/shops/{id}/items`, a `push` run) at prices that move each item's product's lowest
 * price, so that every run gives each subscriber watching those products an event. The items
 * are offers that are their product's cheapest in the market by a margin: each push flips
 * them between their price and 1 % below it, both under the next cheapest offer (or sets
 * prices of its own below those).
 */
import type pg from 'pg';
import type { FeedRunReport } from '../../src/feeds/feed-run.ts';
import { appliedCounts } from '../feeds/submit.ts';

/** An item the bench pushes, and the two prices it flips between. */
export interface PushTarget {
  itemId: string;
  productId: number;
  /** The feed row, but its price. */
  row: Record<string, string>;
  currency: string;
  /** Its price, and 1 % below it. */
  prices: readonly [number, number];
}

/** A shop of the market with the most products, and up to `count` of its cheapest offers. */
export async function pushTargets(
  client: pg.ClientBase,
  count: number,
  market?: string,
): Promise<{ shopId: number; market: string; targets: PushTarget[] }> {
  const { rows } = await client.query<{
    shop_id: number;
    market: string;
    item_id: string;
    product_id: number;
    title: string;
    link: string;
    price: number;
    currency: string;
    gtin: string | null;
    brand: string | null;
    mpn: string | null;
  }>(
    `with chosen as (
       select s.id, s.market from shops s
        where s.market = coalesce($2, (select market from product_market_summaries
                                        group by market order by count(*) desc limit 1))
        order by (select count(*) from available_offers o where o.shop_id = s.id) desc, s.id
        limit 1)
     select chosen.id as shop_id, chosen.market, o.item_id, o.product_id, o.offer_name as title,
            o.url as link, o.price::float8 as price, o.currency, g.gtin, b.name as brand, p.mpn
       from chosen
       join available_offers o on o.shop_id = chosen.id
       join products p on p.id = o.product_id
       left join brands b on b.id = p.brand_id
       cross join lateral (select lpad(min(x.gtin), 14, '0') as gtin
                             from gtins x where x.product_id = p.id) as g
      where o.sales_price is null and o.stock_status = 'IN_STOCK' and o.price >= 10
        and (g.gtin is not null or (b.name is not null and p.mpn is not null))
        and not exists (select 1 from available_offers x
                         where x.product_id = o.product_id and x.market = o.market
                           and x.id <> o.id and x.price <= o.price * 1.01)
        and (select count(*) from offers y where y.shop_id = o.shop_id
              and y.product_id = o.product_id and y.withdrawn_at is null) = 1
      order by o.product_id
      limit $1`,
    [count, market ?? null],
  );
  if (rows.length === 0) throw new Error('no shop has an offer that is its product’s cheapest');
  const targets = rows.map((row) => {
    const feedRow: Record<string, string> = {
      id: row.item_id,
      title: row.title,
      link: row.link,
      availability: 'in_stock',
    };
    for (const column of ['gtin', 'brand', 'mpn'] as const) {
      if (row[column] !== null) feedRow[column] = row[column]!;
    }
    const lower = Math.round(row.price * 99) / 100;
    return {
      itemId: row.item_id,
      productId: row.product_id,
      row: feedRow,
      currency: row.currency,
      prices: [row.price, lower] as const,
    };
  });
  return { shopId: rows[0]!.shop_id, market: rows[0]!.market, targets };
}

/** An item of a push at the price it sets. */
export interface PricedItem {
  target: PushTarget;
  price: number;
}

/** The targets at their prices of push `round` (0: the lower one, 1: back to their own, …). */
export function atRound(targets: readonly PushTarget[], round: number): PricedItem[] {
  return targets.map((target) => ({ target, price: target.prices[(round + 1) % 2]! }));
}

/** Pushes the items; answers the run's id once the run is stored (202). */
export async function push(
  baseUrl: string,
  token: string,
  shopId: number,
  items: readonly PricedItem[],
): Promise<string> {
  const response = await fetch(`${baseUrl}/feeds/shops/${shopId}/items`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(
      items.map(({ target, price }) => ({
        ...target.row,
        price: `${price.toFixed(2)} ${target.currency}`,
      })),
    ),
  });
  const text = await response.text();
  if (response.status !== 202) throw new PushRefused(response.status, text);
  return (JSON.parse(text) as FeedRunReport).runId;
}

/** A push the gateway did not take (no run stored): a 503 while its database restarts, say. */
export class PushRefused extends Error {
  constructor(
    readonly status: number,
    body: string,
  ) {
    super(`push: ${status} ${body}`);
  }
}

/** The run's report once it has finished; a run that did not apply stops the bench. */
export async function finishedRun(
  baseUrl: string,
  token: string,
  runId: string,
): Promise<FeedRunReport> {
  for (;;) {
    const response = await fetch(`${baseUrl}/feeds/runs/${runId}?wait=true`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const report = (await response.json()) as FeedRunReport;
    if (report.finishedAt === null) continue;
    appliedCounts(report, `push ${runId}`);
    return report;
  }
}
