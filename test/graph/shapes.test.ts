/**
 * The graph's shapes agree with each other (issue 13): one meaning per field name
 * (`lowestOffer` beside the deprecated `Product.lowestPrice`), exact money amounts, shipping
 * wherever the offer behind a price is known, one currency type, and `categories` answering
 * what it says.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { CATEGORY_SEARCH_PAGE_LIMITS } from '../../src/graph/types/category.ts';
import { decimalOfCents } from '../../src/graph/types/money.ts';
import { MARKET_CODES, MARKET_CURRENCY } from '../../src/markets.ts';
import { databaseKind } from '../helpers/database.ts';
import { useSeededCatalogue, type GraphQLBody } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });

/** The data of an operation that must succeed. */
async function dataOf<Data = any>(query: string, variables?: Record<string, unknown>) {
  const body: GraphQLBody<Data> = await catalogue.graphql<Data>(query, variables);
  expect(body.errors).toBeUndefined();
  return body.data!;
}

interface Price {
  amount: string;
  value: number;
  includingShipping: number | null;
}

const OFFER = `offerId productCondition stockStatus price { amount value includingShipping }
  shop { shopId }`;

/** `12345` cents as Postgres writes numeric(12,2): "123.45". */
function centsAsText(cents: bigint): string {
  return `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;
}

describe(`the graph's shapes on ${databaseKind}`, () => {
  describe('Product.lowestOffer and the deprecated Product.lowestPrice', () => {
    it('both answer the cheapest available offer, from one statement', async () => {
      const data = await dataOf(`{
        products(market: SE, orderBy: POPULARITY, first: 40) { edges { node {
          lowestOffer { ${OFFER} }
          lowestPrice { ${OFFER} }
          offers(first: 1) { edges { node { offerId } } }
        } } }
      }`);
      const cheapestOfferStatements = catalogue.statements.filter((s) => s.includes('distinct on'));
      expect(cheapestOfferStatements).toHaveLength(1);
      const products = data.products.edges.map((edge: any) => edge.node);
      expect(products).toHaveLength(40);
      for (const product of products) {
        expect(product.lowestOffer).not.toBeNull();
        expect(product.lowestPrice).toEqual(product.lowestOffer);
        expect(product.lowestOffer.offerId).toBe(product.offers.edges[0].node.offerId);
      }
    });

    it('introspection marks lowestPrice deprecated, pointing to lowestOffer', async () => {
      const data = await dataOf(`{
        __type(name: "Product") {
          fields(includeDeprecated: true) {
            name isDeprecated deprecationReason type { name }
          }
        }
      }`);
      const fields = new Map<string, any>(
        data.__type.fields.map((field: any) => [field.name, field]),
      );
      expect(fields.get('lowestOffer')).toMatchObject({
        isDeprecated: false,
        deprecationReason: null,
        type: { name: 'Offer' },
      });
      expect(fields.get('lowestPrice')).toMatchObject({
        isDeprecated: true,
        type: { name: 'Offer' },
      });
      expect(fields.get('lowestPrice').deprecationReason).toContain('lowestOffer');

      const current = await dataOf('{ __type(name: "Product") { fields { name } } }');
      expect(current.__type.fields.map((field: any) => field.name)).not.toContain('lowestPrice');
    });
  });

  describe('Money.amount and PeriodPrice.amount (Decimal)', () => {
    it('decimalOfCents gives back every numeric(12,2) value parsed to a double', () => {
      // Every cent up to 20 000.00, then spread over the column's whole range up to
      // 9 999 999 999.99 (a multiplicative step, so every magnitude is covered).
      const samples: bigint[] = [];
      for (let cents = 0n; cents <= 2_000_000n; cents += 1n) samples.push(cents);
      for (
        let cents = 2_000_000;
        cents < 999_999_999_999;
        cents = Math.floor(cents * 1.00001) + 7
      ) {
        samples.push(BigInt(cents));
      }
      samples.push(999_999_999_999n);
      const wrong = samples.filter((cents) => {
        const text = centsAsText(cents);
        return decimalOfCents(Number(text)) !== text;
      });
      expect(samples.length).toBeGreaterThan(3_000_000);
      expect(wrong).toEqual([]);
    });

    it('offer prices: amount is the stored numeric, two decimals, equal to value', async () => {
      const seen = new Map<number, Price & { period: Price[] }>();
      for (const market of ['SE', 'FI', 'GB']) {
        const data = await dataOf(
          `query ($market: Market!) {
            products(market: $market, orderBy: POPULARITY, first: 30) { edges { node {
              offers(first: 20) { edges { node {
                offerId price { amount value includingShipping }
                memberPrice { amount value } salesPrice { amount value }
                originalPrice { amount value }
                alternativePrices { price { amount value } }
              } } }
            } } }
          }`,
          { market },
        );
        for (const product of data.products.edges) {
          for (const { node } of product.node.offers.edges) {
            const period = [node.memberPrice, node.salesPrice, node.originalPrice]
              .concat(node.alternativePrices.map((a: any) => a.price))
              .filter(Boolean);
            seen.set(node.offerId, { ...node.price, period });
          }
        }
      }
      expect(seen.size).toBeGreaterThan(200);

      const { rows } = await sql<{ id: number; price: string }>`
        select id, price::text as price from offers where id = any(${[...seen.keys()]})`.execute(
        catalogue.database.db,
      );
      expect(rows).toHaveLength(seen.size);
      for (const row of rows) expect(seen.get(row.id)!.amount, `offer ${row.id}`).toBe(row.price);

      const all = [...seen.values()].flatMap((price) => [price, ...price.period]);
      expect(all.length).toBeGreaterThan(seen.size);
      for (const price of all) {
        expect(price.amount).toMatch(/^\d+\.\d{2}$/);
        expect(Number(price.amount)).toBe(price.value);
      }
    });

    it('aggregates (category, market and summary prices) carry amount too', async () => {
      const data = await dataOf(`{
        categories(market: SE, first: 20) { edges { node { lowestPrice { amount value } } } }
        products(market: SE, first: 10) { edges { node {
          marketPrices { lowestPrice { amount value } }
          offerSummary { lowestNewPrice { amount value } }
          priceTrend { currentPrice { amount value } averagePrice90Days { amount value } }
        } } }
      }`);
      const prices: { amount: string; value: number }[] = [
        ...data.categories.edges.map((edge: any) => edge.node.lowestPrice),
        ...data.products.edges.flatMap(({ node }: any) => [
          ...node.marketPrices.map((m: any) => m.lowestPrice),
          node.offerSummary.lowestNewPrice,
          node.priceTrend.currentPrice,
          node.priceTrend.averagePrice90Days,
        ]),
      ].filter(Boolean);
      expect(prices.length).toBeGreaterThan(30);
      for (const price of prices) {
        expect(price.amount).toBe(price.value.toFixed(2));
      }
    });
  });

  describe('includingShipping where the offer behind a price is known', () => {
    it('marketPrices: the shipping the cheapest offer of that market states', async () => {
      let stated = 0;
      let unstated = 0;
      for (const market of MARKET_CODES) {
        const data = await dataOf(
          `query ($market: Market!) {
            products(market: $market, orderBy: POPULARITY, first: 40) { edges { node {
              productId
              lowestOffer { price { value includingShipping } }
              marketPrices { market lowestPrice { value includingShipping } }
            } } }
          }`,
          { market: market.toUpperCase() },
        );
        for (const { node } of data.products.edges) {
          const here = node.marketPrices.find((m: any) => m.market === market.toUpperCase());
          expect(here.lowestPrice, `product ${node.productId} in ${market}`).toMatchObject(
            node.lowestOffer.price,
          );
          if (here.lowestPrice.includingShipping === null) unstated += 1;
          else stated += 1;
        }
      }
      // Both cases occur, so the comparison above proves something in each.
      expect(stated).toBeGreaterThan(0);
      expect(unstated).toBeGreaterThan(0);
    });

    it('offerSummary: each lowest price with the shipping of the cheapest offer it comes from', async () => {
      const data = await dataOf(`{
        products(market: SE, orderBy: POPULARITY, first: 40) { edges { node {
          productId
          offers(first: 250) { edges { node { ${OFFER} } } }
          offerSummary {
            lowestNewPrice { value includingShipping }
            lowestAlternativePrice { value includingShipping }
            lowestInStockPrice { value includingShipping }
          }
        } } }
      }`);
      const compared = { stated: 0, unstated: 0 };
      for (const { node } of data.products.edges) {
        // Offers come cheapest first, ties by id: the first that qualifies is the cheapest.
        const offers = node.offers.edges.map((edge: any) => edge.node);
        const cheapest = (qualifies: (offer: any) => boolean) => {
          const offer = offers.find(qualifies);
          return offer
            ? { value: offer.price.value, includingShipping: offer.price.includingShipping }
            : null;
        };
        const expected = {
          lowestNewPrice: cheapest((o) => o.productCondition === 'CONDITION_NEW'),
          lowestAlternativePrice: cheapest((o) => o.productCondition !== 'CONDITION_NEW'),
          lowestInStockPrice: cheapest((o) => o.stockStatus === 'IN_STOCK'),
        };
        expect(node.offerSummary, `product ${node.productId}`).toEqual(expected);
        for (const price of Object.values(expected)) {
          if (price === null) continue;
          if (price.includingShipping === null) compared.unstated += 1;
          else compared.stated += 1;
        }
      }
      expect(compared.stated).toBeGreaterThan(0);
      expect(compared.unstated).toBeGreaterThan(0);
    });
  });

  it('MarketInfo.currency is the Currency enum Money.currency has', async () => {
    const data = await dataOf(`{
      markets { code currency }
      marketInfo: __type(name: "MarketInfo") { fields { name type { kind ofType { name } } } }
      money: __type(name: "Money") { fields { name type { kind ofType { name } } } }
    }`);
    const currencyOf = (type: any) => type.fields.find((f: any) => f.name === 'currency').type;
    expect(currencyOf(data.marketInfo)).toEqual({ kind: 'NON_NULL', ofType: { name: 'Currency' } });
    expect(currencyOf(data.marketInfo)).toEqual(currencyOf(data.money));
    expect(data.markets).toEqual(
      MARKET_CODES.map((code) => ({ code: code.toUpperCase(), currency: MARKET_CURRENCY[code] })),
    );
  });

  it('categories without a query: a page of the tree by default, as described; totalCount counts it all', async () => {
    const { defaultSize, maxSize } = CATEGORY_SEARCH_PAGE_LIMITS;
    const data = await dataOf(`{
      firstPage: categories(market: SE) { totalCount pageInfo { hasNextPage } edges { node { categoryId } } }
      largest: categories(market: SE, first: ${maxSize}) { edges { node { categoryId } } }
      __type(name: "Query") { fields { name description } }
    }`);
    const description = data.__type.fields.find((f: any) => f.name === 'categories').description;
    expect(description).toContain(`${defaultSize} per page unless \`first\` says otherwise`);
    expect(description).not.toContain('every category of the tree');
    expect(data.firstPage.edges).toHaveLength(defaultSize);
    expect(data.firstPage.pageInfo.hasNextPage).toBe(true);
    expect(data.firstPage.edges).toEqual(data.largest.edges.slice(0, defaultSize));
    const { count } = (
      await sql<{ count: number }>`select count(*)::int as count from categories`.execute(
        catalogue.database.db,
      )
    ).rows[0]!;
    expect(data.firstPage.totalCount).toBe(count);
  });
});
