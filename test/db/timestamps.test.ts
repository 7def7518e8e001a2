/**
 * Timestamps arrive from the database as the ISO 8601 string the API writes, byte for byte what
 * node-postgres' Date and `Date#toISOString` made of them before (src/db/timestamps.ts): UTC,
 * exactly three fractional digits, the microseconds truncated; in a session of any time zone;
 * and so through GraphQL's `updatedAt` and period prices, and REST's period prices.
 */
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { timestamptzToIso } from '../../src/db/timestamps.ts';
import { useRestCatalogue } from '../helpers/rest.ts';

const rest = useRestCatalogue();

/** Postgres input → what the API answered for it when every value was parsed into a Date. */
const INSTANTS: [string, string][] = [
  ['2026-10-30 12:34:56+00', '2026-10-30T12:34:56.000Z'],
  ['2026-10-30 12:34:56.000+00', '2026-10-30T12:34:56.000Z'],
  ['2026-10-30 12:34:56.5+00', '2026-10-30T12:34:56.500Z'],
  ['2026-10-30 12:34:56.01+00', '2026-10-30T12:34:56.010Z'],
  ['2026-10-30 12:34:56.123456+00', '2026-10-30T12:34:56.123Z'],
  ['2026-10-30 12:34:56.999999+00', '2026-10-30T12:34:56.999Z'],
  ['2026-10-30 12:34:56.0005+00', '2026-10-30T12:34:56.000Z'],
  ['2026-10-30 12:34:56.009+00', '2026-10-30T12:34:56.009Z'],
  ['1999-12-31 23:59:59.001+02', '1999-12-31T21:59:59.001Z'],
  ['2027-01-01 00:30:00-05:45', '2027-01-01T06:15:00.000Z'],
  ['0099-06-15 08:00:00+00', '0099-06-15T08:00:00.000Z'],
  ['1969-12-31 23:59:59.999+00', '1969-12-31T23:59:59.999Z'],
  ['0044-03-15 12:00:00+00 BC', '-000043-03-15T12:00:00.000Z'],
  ['10000-01-01 00:00:00+00', '+010000-01-01T00:00:00.000Z'],
];

async function readInstants(timeZone?: string): Promise<string[]> {
  return rest.catalogue.database.db.connection().execute(async (connection) => {
    if (timeZone !== undefined)
      await sql`select set_config('TimeZone', ${timeZone}, false)`.execute(connection);
    try {
      const { rows } = await sql<{ at: string }>`
        select input::timestamptz as at
          from unnest(${INSTANTS.map(([input]) => input)}::text[]) with ordinality as v(input, n)
         order by n`.execute(connection);
      return rows.map((row) => row.at);
    } finally {
      if (timeZone !== undefined) await sql`reset time zone`.execute(connection);
    }
  });
}

describe('timestamps from the database', () => {
  it('run in sessions of UTC', async () => {
    const { rows } = await sql<{
      zone: string;
    }>`select current_setting('TimeZone') as zone`.execute(rest.catalogue.database.db);
    expect(rows).toEqual([{ zone: 'UTC' }]);
  });

  it('arrive as the ISO string Date#toISOString wrote, whatever their fraction of a second', async () => {
    expect(await readInstants()).toEqual(INSTANTS.map(([, iso]) => iso));
  });

  it('arrive alike from a session of another time zone', async () => {
    // Offsets with minutes, on either side of UTC: the rewriting without a Date does not apply.
    for (const zone of ['Asia/Kathmandu', 'America/St_Johns']) {
      expect(await readInstants(zone)).toEqual(INSTANTS.map(([, iso]) => iso));
    }
  });

  it('keep infinity as Postgres writes it, which no Date holds', async () => {
    const { rows } = await sql<{ late: string; early: string }>`
      select 'infinity'::timestamptz as late, '-infinity'::timestamptz as early`.execute(
      rest.catalogue.database.db,
    );
    expect(rows).toEqual([{ late: 'infinity', early: '-infinity' }]);
  });

  it('keep the milliseconds node-postgres computed, for every fraction of one to six digits', () => {
    // node-postgres (postgres-date) took `1000 * parseFloat(fraction)` milliseconds, which
    // Date.UTC truncated: floating point must never make that differ from the digits' own
    // truncation the rewriting does.
    const mismatches: string[] = [];
    for (let digits = 1; digits <= 6; digits++) {
      for (let n = 0; n < 10 ** digits; n++) {
        const fraction = `.${String(n).padStart(digits, '0')}`;
        const before = new Date(
          Date.UTC(2026, 9, 30, 12, 34, 56, 1000 * parseFloat(fraction)),
        ).toISOString();
        if (timestamptzToIso(`2026-10-30 12:34:56${fraction}+00`) !== before)
          mismatches.push(fraction);
      }
    }
    expect(mismatches).toEqual([]);
  });
});

interface Period {
  start: string | null;
  end: string | null;
}
const PERIOD = 'start end';

interface PricedOffer {
  memberPrice: Period;
  salesPrice: Period;
  originalPrice: Period;
}

describe('timestamps in answers', () => {
  /** A product with several available offers in Sweden, given timestamps of every kind. */
  let productId: number;
  /** Per offer, cheapest first: the API's values as Date made them, from the epoch in ms. */
  let expected: {
    updatedAt: string;
    member: [string | null, string | null];
    sales: [string | null, string | null];
    original: [string | null, string | null];
  }[];

  beforeAll(async () => {
    const { db } = rest.catalogue.database;
    const { rows: products } = await sql<{ product_id: number }>`
      select product_id from available_offers where market = 'se'
       group by product_id order by count(*) desc, product_id limit 1`.execute(db);
    productId = products[0]!.product_id;
    // Every offer gets prices of each kind, and timestamps cycling through the instants above:
    // an end a week and a quarter second after its start (no earlier, by the table's checks),
    // or a side left open, as an open-ended price has.
    const inputs = INSTANTS.map(([input]) => input);
    const instant = (shift: number) =>
      sql`(${inputs}::text[])[1 + ((r.n + ${shift}) % ${inputs.length})]::timestamptz`;
    const weekLater = sql`interval '7 days 0.25 seconds'`;
    await sql`
      update offers o
         set member_price = o.price, sales_price = o.price, original_price = o.price,
             updated_at = ${instant(0)},
             member_price_start = ${instant(1)},
             member_price_end = ${instant(1)} + ${weekLater},
             sales_price_start = ${instant(2)},
             sales_price_end = null,
             original_price_start = null,
             original_price_end = ${instant(3)}
        from (select id, row_number() over (order by id)::int as n
                from available_offers where product_id = ${productId} and market = 'se') r
       where o.id = r.id`.execute(db);
    // What Date held: the instant's milliseconds since the epoch, truncated.
    const ms = (column: string) =>
      sql<number | null>`floor(extract(epoch from ${sql.ref(column)}) * 1000)::int8`;
    const { rows } = await sql<Record<string, number | null>>`
      select ${ms('updated_at')} as updated_at,
             ${ms('member_price_start')} as member_start, ${ms('member_price_end')} as member_end,
             ${ms('sales_price_start')} as sales_start, ${ms('sales_price_end')} as sales_end,
             ${ms('original_price_start')} as original_start, ${ms('original_price_end')} as original_end
        from available_offers where product_id = ${productId} and market = 'se'
       order by price, id`.execute(db);
    const iso = (value: number | null | undefined) =>
      value === null || value === undefined ? null : new Date(value).toISOString();
    expected = rows.map((row) => ({
      updatedAt: iso(row.updated_at)!,
      member: [iso(row.member_start), iso(row.member_end)],
      sales: [iso(row.sales_start), iso(row.sales_end)],
      original: [iso(row.original_start), iso(row.original_end)],
    }));
    expect(expected.length).toBeGreaterThan(2);
  });

  it('are answered by GraphQL as before', async () => {
    const data = await rest.graphqlData<{
      product: { offers: { edges: { node: PricedOffer & { updatedAt: string } }[] } };
    }>(
      `query ($id: Int!) { product(id: $id, market: SE) { offers(first: 250) { edges { node {
         updatedAt memberPrice { ${PERIOD} } salesPrice { ${PERIOD} } originalPrice { ${PERIOD} }
       } } } } }`,
      { id: productId },
    );
    expect(
      data.product.offers.edges.map(({ node: offer }) => ({
        updatedAt: offer.updatedAt,
        member: [offer.memberPrice.start, offer.memberPrice.end],
        sales: [offer.salesPrice.start, offer.salesPrice.end],
        original: [offer.originalPrice.start, offer.originalPrice.end],
      })),
    ).toEqual(expected);
  });

  it('are answered by REST as before', async () => {
    const response = await rest.partner(
      `/partner-search/products/${productId}?market=se&ref=demo-ref&limit=250`,
    );
    expect(response.status, response.text).toBe(200);
    const offers = response.body.offers as PricedOffer[];
    expect(
      offers.map((offer) => ({
        member: [offer.memberPrice.start, offer.memberPrice.end],
        sales: [offer.salesPrice.start, offer.salesPrice.end],
        original: [offer.originalPrice.start, offer.originalPrice.end],
      })),
    ).toEqual(expected.map(({ updatedAt: _, ...periods }) => periods));
  });
});
