/**
 * The DataLoader proof: the SQL a request runs depends on the depth of its query, never on
 * how many products it returns. Each case runs the same product page for 1 and for 20
 * products and records the statements (PostGraphile-style), so a change in what or how much
 * SQL a query runs shows up in review.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

// Every case here counts what an execution runs, and some run the same operation twice (with
// batching on, then off): the response cache would answer the second. These are the
// resolvers' statements, which every field the compiled path does not cover still runs: root
// fields compiled into one statement each are test/graph/compiled-selections.test.ts's.
const catalogue = useSeededCatalogue({
  RESPONSE_CACHE_TTL_SECONDS: '0',
  COMPILED_SELECTIONS: 'false',
});

/**
 * Everything a product page shows, down to the offers' shops and alternative prices, the
 * price trend and the specification.
 */
const PRODUCT_PAGE = /* GraphQL */ `
  fragment ProductPage on Product {
    productId
    name
    gtins
    brand {
      name
    }
    category {
      name
      ancestors {
        name
      }
    }
    lowestPrice {
      price {
        value
        currency
      }
      shop {
        name
        market
      }
    }
    offerSummary {
      offerCount
      bestStockStatus
      lowestNewPrice {
        value
      }
    }
    priceTrend {
      percentage
      currentPrice {
        value
      }
      averagePrice90Days {
        value
      }
    }
    properties {
      name
      value
      unit
      children {
        name
        value
        unit
      }
    }
    coreProperties {
      name
      value
    }
    offers(first: 10) {
      totalCount
      edges {
        node {
          offerId
          url
          price {
            value
            currency
          }
          shop {
            name
            market
          }
          alternativePrices {
            url
            price {
              value
            }
          }
        }
      }
    }
  }
`;

const BY_IDS = /* GraphQL */ `
  query ByIds($ids: [Int!]!) {
    products(market: SE, ids: $ids) {
      edges {
        node {
          ...ProductPage
        }
      }
    }
  }
  ${PRODUCT_PAGE}
`;

const CATEGORY_LISTING = /* GraphQL */ `
  query CategoryListing($slug: String!, $first: Int!) {
    category(market: SE, slug: $slug) {
      products(first: $first) {
        edges {
          node {
            ...ProductPage
          }
        }
      }
    }
  }
  ${PRODUCT_PAGE}
`;

const NODES = /* GraphQL */ `
  query Nodes($ids: [ID!]!) {
    nodes(ids: $ids) {
      ...ProductPage
    }
  }
  ${PRODUCT_PAGE}
`;

/** The statements of the last request, white space collapsed. */
function executedSql(): string[] {
  return catalogue.statements.map((statement) => statement.replace(/\s+/g, ' ').trim());
}

/**
 * Shops are reached by two paths (lowestPrice.shop, offers…shop). Each path's shops load in
 * one batch, but the two batches merge only when the cheapest-offer and offer-page statements
 * answer in the same tick: always on the embedded database (one connection), not always on a
 * server (concurrent connections). Every other statement runs exactly once.
 */
const RUNS_ONCE_PER_PATH: Record<string, number> = {
  'select "id", "name" from "shops" where "id" = any($1)': 2,
};

/** The distinct statements, sorted; fails when one runs more often than its paths allow. */
function statementSet(sql: string[]): string[] {
  const times = new Map<string, number>();
  for (const statement of sql) times.set(statement, (times.get(statement) ?? 0) + 1);
  for (const [statement, count] of times) {
    expect(count, statement).toBeLessThanOrEqual(RUNS_ONCE_PER_PATH[statement] ?? 1);
  }
  return [...times.keys()].sort();
}

/** Runs the operation and answers its data and its SQL; any GraphQL error fails the test. */
async function run(query: string, variables: Record<string, unknown>) {
  const body = await catalogue.graphql(query, variables);
  expect(body.errors).toBeUndefined();
  return { data: body.data, sql: statementSet(executedSql()) };
}

interface ListedProduct {
  id: string;
  productId: number;
  brand: { name: string } | null;
}

let twenty: ListedProduct[];
let categorySlug: string;

beforeAll(async () => {
  // Twenty branded products with offers in SE, so every relation of the page has rows.
  const body = await catalogue.graphql<{
    products: { edges: { node: ListedProduct & { category: { slug: string } } }[] };
  }>(`{ products(market: SE, first: 100) {
      edges { node { id productId brand { name } category { slug } } } } }`);
  const listed = body.data!.products.edges.map((edge) => edge.node);
  twenty = listed.filter((product) => product.brand !== null).slice(0, 20);
  expect(twenty).toHaveLength(20);
  // The leaf holding the most listed products: its listing has 20 to show.
  const counts = new Map<string, number>();
  for (const product of listed) {
    counts.set(product.category.slug, (counts.get(product.category.slug) ?? 0) + 1);
  }
  categorySlug = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
});

describe('a product page runs the same SQL for 1 and for 20 products', () => {
  it('through products(ids:)', async () => {
    const one = await run(BY_IDS, { ids: [twenty[0]!.productId] });
    const many = await run(BY_IDS, { ids: twenty.map((product) => product.productId) });
    expect(one.data.products.edges).toHaveLength(1);
    expect(many.data.products.edges).toHaveLength(20);
    expect(one.sql).toEqual(many.sql);
    expect(many.sql).toMatchInlineSnapshot(`
      [
        "select "gtin", "product_id" from "gtins" where "product_id" = any($1) order by "gtin"",
        "select "id", "brand_id", "category_id", "name" from "products" where "id" = any($1)",
        "select "id", "name" from "shops" where "id" = any($1)",
        "select "s"."product_id", "s"."market", "s"."available_offer_count", "s"."lowest_price", "s"."average_price_90_days", "s"."price_trend_percentage" from product_market_summaries s join unnest($1::integer[], $2::text[]) as k(product_id, market) on s.product_id = k.product_id and s.market = k.market",
        "select * from "brands" where "id" = any($1)",
        "select * from "categories" where "id" = any($1)",
        "select * from "offer_alternative_prices" where "offer_id" = any($1) order by "offer_id", "position"",
        "select * from "product_properties" where "product_id" = any($1) order by "product_id", "position", "node_id"",
        "select * from ( select "o"."id", "o"."product_id", "o"."market", "o"."currency", "o"."price", "o"."price_including_shipping", "o"."shop_id", "o"."url", (row_number() over (partition by o.product_id, o.market order by o.price, o.id) - 1)::int as position, (count(*) over (partition by o.product_id, o.market))::int as total from available_offers o join unnest($1::integer[], $2::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market ) ranked where position >= $3 and position < $4 order by product_id, market, position",
        "select distinct on (o.product_id, o.market) "o"."id", "o"."product_id", "o"."market", "o"."currency", "o"."price", "o"."price_including_shipping", "o"."shop_id" from available_offers o join unnest($1::integer[], $2::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market order by o.product_id, o.market, o.price, o.id",
        "select o.product_id, o.market, count(*)::int as offer_count, min(o.price) filter (where o.condition = 'CONDITION_NEW') as regular, min(o.price) filter (where o.condition <> 'CONDITION_NEW') as alternative, min(o.price) filter (where o.stock_status = 'IN_STOCK') as in_stock, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.condition = 'CONDITION_NEW'))[1] as regular_including_shipping, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.condition <> 'CONDITION_NEW'))[1] as alternative_including_shipping, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.stock_status = 'IN_STOCK'))[1] as in_stock_including_shipping, ($1::text[])[min(array_position($2::text[], o.stock_status))] as best_stock_status from available_offers o join unnest($3::integer[], $4::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market group by o.product_id, o.market",
        "with recursive up (descendant_id, ancestor_id, distance) as ( select c.id, c.parent_id, 1 from categories c where c.id = any($1::integer[]) and c.parent_id is not null union all select up.descendant_id, c.parent_id, up.distance + 1 from up join categories c on c.id = up.ancestor_id where c.parent_id is not null ) select a.*, up.descendant_id, up.distance from up join categories a on a.id = up.ancestor_id order by up.descendant_id, up.distance",
      ]
    `);
  });

  it('through a category listing (first: 1 and first: 20)', async () => {
    const one = await run(CATEGORY_LISTING, { slug: categorySlug, first: 1 });
    const many = await run(CATEGORY_LISTING, { slug: categorySlug, first: 20 });
    expect(one.data.category.products.edges).toHaveLength(1);
    expect(many.data.category.products.edges).toHaveLength(20);
    expect(one.sql).toEqual(many.sql);
    expect(many.sql).toMatchInlineSnapshot(`
      [
        "select "gtin", "product_id" from "gtins" where "product_id" = any($1) order by "gtin"",
        "select "id", "name" from "shops" where "id" = any($1)",
        "select "s"."product_id", "s"."market", "s"."available_offer_count", "s"."lowest_price", "s"."average_price_90_days", "s"."price_trend_percentage" from product_market_summaries s join unnest($1::integer[], $2::text[]) as k(product_id, market) on s.product_id = k.product_id and s.market = k.market",
        "select * from "brands" where "id" = any($1)",
        "select * from "categories" where "id" = any($1)",
        "select * from "categories" where "slug" = any($1)",
        "select * from "offer_alternative_prices" where "offer_id" = any($1) order by "offer_id", "position"",
        "select * from "product_properties" where "product_id" = any($1) order by "product_id", "position", "node_id"",
        "select * from ( select "o"."id", "o"."product_id", "o"."market", "o"."currency", "o"."price", "o"."price_including_shipping", "o"."shop_id", "o"."url", (row_number() over (partition by o.product_id, o.market order by o.price, o.id) - 1)::int as position, (count(*) over (partition by o.product_id, o.market))::int as total from available_offers o join unnest($1::integer[], $2::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market ) ranked where position >= $3 and position < $4 order by product_id, market, position",
        "select distinct on (o.product_id, o.market) "o"."id", "o"."product_id", "o"."market", "o"."currency", "o"."price", "o"."price_including_shipping", "o"."shop_id" from available_offers o join unnest($1::integer[], $2::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market order by o.product_id, o.market, o.price, o.id",
        "select listed.category_id as listed_under, "p"."id", "p"."brand_id", "p"."category_id", "p"."name" from ( select ranked.category_id, ranked.product_id, ranked.position from (select s.root_id as category_id, s.product_id, row_number() over (partition by s.root_id order by s.popularity desc, s.product_id) as position from ( select k.root_id, s.* from unnest($1::integer[]) as k(root_id) cross join lateral unnest(array(select tree.id from ( with recursive down (root_id, id) as ( select c.id, c.id from categories c where c.id = any($2::integer[]) union all select down.root_id, c.id from down join categories c on c.parent_id = down.id ) select root_id, id from down) as tree where tree.root_id = k.root_id)) as category(id) cross join lateral ( select s.product_id, s.popularity from product_market_summaries s where s.market = $3 and s.category_id = category.id order by s.popularity desc, s.product_id limit $4) as s) as s) as ranked where ranked.position > $5 and ranked.position <= $6) as listed join products p on p.id = listed.product_id order by listed.category_id, listed.position",
        "select o.product_id, o.market, count(*)::int as offer_count, min(o.price) filter (where o.condition = 'CONDITION_NEW') as regular, min(o.price) filter (where o.condition <> 'CONDITION_NEW') as alternative, min(o.price) filter (where o.stock_status = 'IN_STOCK') as in_stock, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.condition = 'CONDITION_NEW'))[1] as regular_including_shipping, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.condition <> 'CONDITION_NEW'))[1] as alternative_including_shipping, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.stock_status = 'IN_STOCK'))[1] as in_stock_including_shipping, ($1::text[])[min(array_position($2::text[], o.stock_status))] as best_stock_status from available_offers o join unnest($3::integer[], $4::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market group by o.product_id, o.market",
        "with recursive up (descendant_id, ancestor_id, distance) as ( select c.id, c.parent_id, 1 from categories c where c.id = any($1::integer[]) and c.parent_id is not null union all select up.descendant_id, c.parent_id, up.distance + 1 from up join categories c on c.id = up.ancestor_id where c.parent_id is not null ) select a.*, up.descendant_id, up.distance from up join categories a on a.id = up.ancestor_id order by up.descendant_id, up.distance",
      ]
    `);
  });

  it('through nodes(ids:) with global ids', async () => {
    const one = await run(NODES, { ids: [twenty[0]!.id] });
    const many = await run(NODES, { ids: twenty.map((product) => product.id) });
    expect(one.data.nodes).toHaveLength(1);
    expect(many.data.nodes).toHaveLength(20);
    expect(many.data.nodes.every((node: { productId?: number }) => node.productId)).toBe(true);
    expect(one.sql).toEqual(many.sql);
    expect(many.sql).toMatchInlineSnapshot(`
      [
        "select "gtin", "product_id" from "gtins" where "product_id" = any($1) order by "gtin"",
        "select "id", "name" from "shops" where "id" = any($1)",
        "select "s"."product_id", "s"."market", "s"."available_offer_count", "s"."lowest_price", "s"."average_price_90_days", "s"."price_trend_percentage" from product_market_summaries s join unnest($1::integer[], $2::text[]) as k(product_id, market) on s.product_id = k.product_id and s.market = k.market",
        "select * from "brands" where "id" = any($1)",
        "select * from "categories" where "id" = any($1)",
        "select * from "offer_alternative_prices" where "offer_id" = any($1) order by "offer_id", "position"",
        "select * from "product_properties" where "product_id" = any($1) order by "product_id", "position", "node_id"",
        "select * from "products" where "id" = any($1)",
        "select * from ( select "o"."id", "o"."product_id", "o"."market", "o"."currency", "o"."price", "o"."price_including_shipping", "o"."shop_id", "o"."url", (row_number() over (partition by o.product_id, o.market order by o.price, o.id) - 1)::int as position, (count(*) over (partition by o.product_id, o.market))::int as total from available_offers o join unnest($1::integer[], $2::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market ) ranked where position >= $3 and position < $4 order by product_id, market, position",
        "select distinct on (o.product_id, o.market) "o"."id", "o"."product_id", "o"."market", "o"."currency", "o"."price", "o"."price_including_shipping", "o"."shop_id" from available_offers o join unnest($1::integer[], $2::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market order by o.product_id, o.market, o.price, o.id",
        "select o.product_id, o.market, count(*)::int as offer_count, min(o.price) filter (where o.condition = 'CONDITION_NEW') as regular, min(o.price) filter (where o.condition <> 'CONDITION_NEW') as alternative, min(o.price) filter (where o.stock_status = 'IN_STOCK') as in_stock, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.condition = 'CONDITION_NEW'))[1] as regular_including_shipping, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.condition <> 'CONDITION_NEW'))[1] as alternative_including_shipping, (array_agg(o.price_including_shipping order by o.price, o.id) filter (where o.stock_status = 'IN_STOCK'))[1] as in_stock_including_shipping, ($1::text[])[min(array_position($2::text[], o.stock_status))] as best_stock_status from available_offers o join unnest($3::integer[], $4::text[]) as k(product_id, market) on o.product_id = k.product_id and o.market = k.market group by o.product_id, o.market",
        "with recursive up (descendant_id, ancestor_id, distance) as ( select c.id, c.parent_id, 1 from categories c where c.id = any($1::integer[]) and c.parent_id is not null union all select up.descendant_id, c.parent_id, up.distance + 1 from up join categories c on c.id = up.ancestor_id where c.parent_id is not null ) select a.*, up.descendant_id, up.distance from up join categories a on a.id = up.ancestor_id order by up.descendant_id, up.distance",
      ]
    `);
  });
});

describe('aliases of a field asking the same arguments share its statements', () => {
  /** `count` categories as aliased root fields, each listing a page down to offers' shops. */
  function aliasedCategories(count: number): string {
    const fields = Array.from(
      { length: count },
      (_, index) => `c${index}: category(market: SE, id: $id${index}) {
        products(first: 5) { edges { node { name offers(first: 3) { edges { node {
          price { value } shop { name } } } } } } } }`,
    );
    const variables = Array.from({ length: count }, (_, index) => `$id${index}: Int!`);
    return `query Aliased(${variables.join(', ')}) { ${fields.join('\n')} }`;
  }

  it('ten aliased categories run the statements of one', async () => {
    const listing = await catalogue.graphql(`{ categories(market: SE, first: 50) {
      edges { node { categoryId isLeaf } } } }`);
    const leaves: number[] = listing.data.categories.edges
      .map((edge: { node: { categoryId: number; isLeaf: boolean } }) => edge.node)
      .filter((node: { isLeaf: boolean }) => node.isLeaf)
      .map((node: { categoryId: number }) => node.categoryId)
      .slice(0, 10);
    expect(leaves).toHaveLength(10);
    const one = await run(aliasedCategories(1), { id0: leaves[0] });
    const ten = await run(
      aliasedCategories(10),
      Object.fromEntries(leaves.map((id, index) => [`id${index}`, id])),
    );
    expect(Object.keys(ten.data)).toHaveLength(10);
    expect(ten.data.c0).toEqual(one.data.c0);
    expect(ten.sql).toEqual(one.sql);
  });
});

describe('with DataLoader batching off (DATALOADER_BATCHING=false, the benchmark’s naive floor)', () => {
  it('answers the same data, with statements growing with the number of products', async () => {
    const ids = twenty.map((product) => product.productId);
    const batched = await run(BY_IDS, { ids });
    // An app of its own on the same database: the switch is the app's, not the process's.
    const naiveApp = createApp({
      config: loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '0', DATALOADER_BATCHING: 'false' }),
      database: catalogue.database,
      logger: pino({ level: 'silent' }),
    });
    const naiveGraphql = async (variables: Record<string, unknown>) => {
      catalogue.statements.length = 0;
      const response = await naiveApp.fetch(
        new Request('http://test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: BY_IDS, variables }),
        }),
      );
      return (await response.json()) as { data?: unknown; errors?: unknown[] };
    };
    try {
      const one = await naiveGraphql({ ids: [ids[0]] });
      const perProduct = executedSql().length;
      const naive = await naiveGraphql({ ids });
      expect(naive.errors).toBeUndefined();
      expect(naive.data).toEqual(batched.data);
      expect(one.errors).toBeUndefined();
      // Every relation of every product (and every offer's shop) is its own statement.
      expect(perProduct).toBeGreaterThan(batched.sql.length);
      expect(executedSql().length).toBeGreaterThan(15 * perProduct);
      expect(executedSql().filter((s) => / from "products" where /.test(s))).toHaveLength(20);

      // The app beside it still batches.
      expect((await run(BY_IDS, { ids })).sql).toEqual(batched.sql);
    } finally {
      await naiveApp.dispose();
    }
  });
});
