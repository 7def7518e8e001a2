/**
 * A category's products, listed as the merge of one index scan per category of its subtree
 * (product-listing.ts), are exactly the rows of the plain query over the whole subtree, in
 * every order, for leaves, groups and roots, first and later pages, with and without
 * price-trend bounds: through the repository (one category, and all of them in one batch) and
 * through GraphQL (`category { products }` and `products(category:)`). And the plan reads the
 * per-category index of the order, not the market's order filtered by category.
 */
import { offsetToCursor } from '@pothos/plugin-relay';
import { CompiledQuery, sql, type Kysely, type LogEvent } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import {
  countProducts,
  countProductsInCategories,
  listProductIds,
  listProductIdsInCategories,
  type ListingFilter,
  type ListingOrder,
  type Page,
} from '../../src/db/repositories/product-listing.ts';
import type { Database } from '../../src/db/types.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });

const MARKETS = ['se', 'nz'] as const;
const ORDERS: ListingOrder[] = ['POPULARITY', 'PRICE', 'PRICE_TREND'];
/** The order as the plain query writes it, ties broken by product id. */
const REFERENCE_ORDER: Record<ListingOrder, string> = {
  POPULARITY: 'popularity desc, product_id',
  PRICE: 'lowest_price, popularity desc, product_id',
  PRICE_TREND: 'price_trend_percentage desc nulls last, popularity desc, product_id',
};
const PAGES: Page[] = [
  { offset: 0, limit: 3 },
  { offset: 3, limit: 4 },
  { offset: 5, limit: 250 },
];
const BOUNDS: ListingFilter['priceTrend'][] = [undefined, { gte: 0 }, { gte: -10, lte: 10 }];

/** The category listing as it was before the per-category scans: one ordered query. */
async function referenceIds(
  db: Kysely<Database>,
  { market, categoryId, priceTrend }: ListingFilter & { categoryId: number },
  order: ListingOrder,
  page: Page,
): Promise<number[]> {
  const conditions = [
    sql`market = ${market}`,
    sql`category_id in (select id from subtree)`,
    ...(priceTrend?.gte != null ? [sql`price_trend_percentage >= ${priceTrend.gte}`] : []),
    ...(priceTrend?.lte != null ? [sql`price_trend_percentage <= ${priceTrend.lte}`] : []),
  ];
  const { rows } = await sql<{ product_id: number }>`
    with recursive subtree (id) as (
      select ${categoryId}::integer
      union all
      select c.id from categories c join subtree on c.parent_id = subtree.id
    )
    select product_id from product_market_summaries
     where ${sql.join(conditions, sql` and `)}
     order by ${sql.raw(REFERENCE_ORDER[order])}
     offset ${page.offset} limit ${page.limit}`.execute(db);
  return rows.map((row) => row.product_id);
}

interface Category {
  id: number;
  kind: 'leaf' | 'group' | 'root';
}

let categories: Category[];

beforeAll(async () => {
  const { rows } = await sql<Category>`
    select c.id, case when c.is_leaf then 'leaf' when c.parent_id is null then 'root'
                      else 'group' end as kind
      from categories c order by c.id`.execute(catalogue.database.db);
  categories = rows;
});

describe('the repository', () => {
  it('lists each category as the plain query does, alone and in one batch', async () => {
    const { db } = catalogue.database;
    const compared = { leaf: 0, group: 0, root: 0 };
    for (const market of MARKETS) {
      for (const priceTrend of BOUNDS) {
        for (const order of ORDERS) {
          for (const page of PAGES) {
            const ids = categories.map((category) => category.id);
            const batch = await listProductIdsInCategories(
              db,
              ids,
              { market, priceTrend },
              order,
              page,
            );
            for (const { id, kind } of categories) {
              const filter = { market, priceTrend, categoryId: id };
              const label = `${market} ${kind} ${id} ${order} ${JSON.stringify({ priceTrend, page })}`;
              const expected = await referenceIds(db, filter, order, page);
              expect(await listProductIds(db, filter, order, page), label).toEqual(expected);
              const batched = batch.filter((row) => row.category_id === id);
              expect(
                batched.map((row) => row.product_id),
                label,
              ).toEqual(expected);
              compared[kind] += expected.length;
            }
          }
        }
      }
    }
    // Not a comparison of empty lists: every kind of category lists products in the sample.
    for (const rows of Object.values(compared)) expect(rows).toBeGreaterThan(100);
  });

  it('counts each category as the plain query does, alone and in one batch', async () => {
    const { db } = catalogue.database;
    const all = { offset: 0, limit: 100_000 };
    for (const market of MARKETS) {
      for (const priceTrend of BOUNDS) {
        const ids = categories.map((category) => category.id);
        const totals = await countProductsInCategories(db, ids, { market, priceTrend });
        for (const { id, kind } of categories) {
          const filter = { market, priceTrend, categoryId: id };
          const expected = (await referenceIds(db, filter, 'POPULARITY', all)).length;
          const label = `${market} ${kind} ${id} ${JSON.stringify(priceTrend)}`;
          expect(await countProducts(db, filter), label).toBe(expected);
          expect(totals.get(id), label).toBe(expected);
        }
      }
    }
  });
});

describe('GraphQL', () => {
  /** The leaf with the most products in se, its group and its root. */
  async function oneOfEachKind(): Promise<Category[]> {
    const { rows } = await sql<{ leaf: number; group: number; root: number }>`
      select leaf.id as leaf, grp.id as group, grp.parent_id as root
        from categories leaf join categories grp on grp.id = leaf.parent_id
        join product_market_summaries s on s.category_id = leaf.id and s.market = 'se'
       group by leaf.id, grp.id
       order by count(*) desc, leaf.id limit 1`.execute(catalogue.database.db);
    const { leaf, group, root } = rows[0]!;
    return [
      { id: leaf, kind: 'leaf' },
      { id: group, kind: 'group' },
      { id: root, kind: 'root' },
    ];
  }

  const PAGE_QUERY = `
    query ($category: Int!, $reference: String!, $first: Int!, $after: String, $order: ProductOrder!,
           $trend: PriceTrendFilter) {
      category(id: $category, market: SE) {
        products(first: $first, after: $after, orderBy: $order, priceTrend: $trend) {
          totalCount edges { node { productId } }
        }
      }
      products(market: SE, category: $reference, first: $first, after: $after, orderBy: $order,
               priceTrend: $trend) {
        totalCount edges { node { productId } }
      }
    }`;

  interface Listed {
    totalCount: number;
    edges: { node: { productId: number } }[];
  }

  it('pages category { products } and products(category:) as the plain query does', async () => {
    const { db } = catalogue.database;
    for (const { id, kind } of await oneOfEachKind()) {
      for (const priceTrend of BOUNDS) {
        for (const order of ORDERS) {
          for (const page of PAGES) {
            const filter = { market: 'se' as const, priceTrend, categoryId: id };
            const expected = await referenceIds(db, filter, order, page);
            const total = (await referenceIds(db, filter, order, { offset: 0, limit: 100_000 }))
              .length;
            const body = await catalogue.graphql<{
              category: { products: Listed };
              products: Listed;
            }>(PAGE_QUERY, {
              category: id,
              reference: String(id),
              first: page.limit,
              after: page.offset > 0 ? offsetToCursor(page.offset - 1) : null,
              order,
              trend: priceTrend ?? null,
            });
            const label = `${kind} ${id} ${order} ${JSON.stringify({ priceTrend, page })}`;
            expect(body.errors, label).toBeUndefined();
            for (const listed of [body.data!.category.products, body.data!.products]) {
              expect(
                listed.edges.map((edge) => edge.node.productId),
                label,
              ).toEqual(expected);
              expect(listed.totalCount, label).toBe(total);
            }
          }
        }
      }
    }
  });

  it('lists and counts the children of a root in one batch as the plain query does', async () => {
    const { db } = catalogue.database;
    const roots = categories.filter((category) => category.kind === 'root');
    for (const root of roots) {
      const body = await catalogue.graphql<{
        category: { children: { categoryId: number; products: Listed }[] };
      }>(
        `query ($id: Int!) { category(id: $id, market: NZ) { children {
           categoryId products(first: 4, orderBy: PRICE) { totalCount edges { node { productId } } }
         } } }`,
        { id: root.id },
      );
      expect(body.errors).toBeUndefined();
      for (const child of body.data!.category.children) {
        const filter = { market: 'nz' as const, categoryId: child.categoryId };
        const all = await referenceIds(db, filter, 'PRICE', { offset: 0, limit: 100_000 });
        expect(child.products.edges.map((edge) => edge.node.productId)).toEqual(all.slice(0, 4));
        expect(child.products.totalCount).toBe(all.length);
      }
    }
  });
});

describe('the plan', () => {
  /** The per-category index each order reads (migrations 0001 and 0004). */
  const INDEX_OF: Record<ListingOrder, string> = {
    POPULARITY: 'summaries_market_category_popularity_idx',
    PRICE: 'summaries_market_category_price_idx',
    PRICE_TREND: 'summaries_market_category_trend_idx',
  };

  interface PlanNode {
    'Node Type': string;
    'Relation Name'?: string;
    'Index Name'?: string;
    'Index Cond'?: string;
    Plans?: PlanNode[];
  }
  const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];
  const readsSummaries = (node: PlanNode) => node['Relation Name'] === 'product_market_summaries';

  let recorder: DatabaseHandle;
  const recorded: LogEvent[] = [];
  beforeAll(async () => {
    // A handle of its own on the same database, to see the statements' parameters too.
    const { url, pglite } = catalogue.database;
    recorder = await openDatabase({
      ...(url ? { url, poolSize: 1 } : { pglite }),
      onQuery: (event) => recorded.push(event),
    });
    return () => recorder.close();
  });

  /** Every node of the plan of the one statement `work` runs. */
  async function planOf(work: (db: Kysely<Database>) => Promise<unknown>): Promise<PlanNode[]> {
    recorded.length = 0;
    await work(recorder.db);
    expect(recorded).toHaveLength(1);
    const { sql: text, parameters } = recorded[0]!.query;
    return recorder.db.transaction().execute(async (trx) => {
      // The sample's summaries fit in a few pages: reading them whole (or a bitmap of a
      // category's rows, then sorting them) is the cheapest plan at this size. Without those,
      // the planner shows which index gives each category's rows in the order, as it does at
      // scale (docs/benchmarks.md, "Category listings on their index").
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
        CompiledQuery.raw(`explain (format json) ${text}`, [...parameters]),
      );
      return nodesOf(rows[0]!['QUERY PLAN'][0].Plan);
    });
  }

  it.each(ORDERS)('of a %s listing reads each category on its index', async (order) => {
    const root = categories.find((category) => category.kind === 'root')!;
    const groupsAndRoots = categories.filter((category) => category.kind !== 'leaf');
    for (const priceTrend of [undefined, { gte: 0 }]) {
      const filter = { market: 'se' as const, categoryId: root.id, priceTrend };
      for (const work of [
        (db: Kysely<Database>) => listProductIds(db, filter, order, PAGES[1]!),
        (db: Kysely<Database>) =>
          listProductIdsInCategories(
            db,
            groupsAndRoots.map((category) => category.id),
            filter,
            order,
            PAGES[1]!,
          ),
      ]) {
        const nodes = await planOf(work);
        const label = `${order} ${JSON.stringify(priceTrend)}`;
        const scans = nodes.filter(readsSummaries);
        expect(scans.length, label).toBeGreaterThan(0);
        for (const scan of scans) {
          expect(scan['Node Type'], label).toMatch(/^Index (Only )?Scan$/);
          expect(scan['Index Cond'], label).toMatch(/category_id = /);
          if (priceTrend === undefined) {
            expect(scan['Index Name'], label).toBe(INDEX_OF[order]);
          } else {
            // Under a bound the planner may take the bound's range of the trend index instead
            // and sort it: one category's entries either way, never the market's.
            expect([INDEX_OF[order], INDEX_OF.PRICE_TREND], label).toContain(scan['Index Name']);
          }
        }
        if (priceTrend === undefined) {
          // The index gives the order: only the merge of the categories sorts.
          const sortsOfAScan = nodes.filter(
            (node) => node['Node Type'] === 'Sort' && (node.Plans ?? []).some(readsSummaries),
          );
          expect(sortsOfAScan, label).toEqual([]);
        }
      }
    }
  });
});
