/**
 * Selection-aware loading (src/graph/selection.ts): rows are read with only the columns the
 * selected fields declare. Two things must hold: every field declares what its resolver reads
 * (each field asked on its own answers what it answers beside every other field), and the
 * statements really read fewer columns, one statement per batch whatever the selections.
 */
import {
  getNamedType,
  isLeafType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/graph/schema.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

// The resolvers' statements, which every field the compiled path leaves to them runs:
// root fields compiled whole are test/graph/compiled-selections.test.ts's.
const catalogue = useSeededCatalogue({
  RESPONSE_CACHE_TTL_SECONDS: '0',
  COMPILED_SELECTIONS: 'false',
});

function objectType(name: string): GraphQLObjectType {
  const type = schema.getType(name);
  if (!isObjectType(type)) throw new Error(`${name} is not an object type`);
  return type;
}

/** Fields that can be selected without arguments (connections take optional ones). */
function selectableFields(type: GraphQLObjectType): GraphQLField<unknown, unknown>[] {
  return Object.values(type.getFields()).filter((field) =>
    field.args.every((arg) => arg.defaultValue !== undefined || !`${arg.type}`.endsWith('!')),
  );
}

/**
 * A field with everything below it, `depth` object levels deep (connections get a small
 * page so the documents stay cheap): what a client asking for "all of it" sends.
 */
function fullSelection(field: GraphQLField<unknown, unknown>, depth: number): string {
  const type = getNamedType(field.type);
  if (isLeafType(type)) return field.name;
  if (!isObjectType(type) || depth === 0) return `${field.name} { __typename }`;
  const page = field.args.some((arg) => arg.name === 'first') ? '(first: 3)' : '';
  const inner = selectableFields(type)
    .map((child) => fullSelection(child, depth - 1))
    .join(' ');
  return `${field.name}${page} { ${inner} }`;
}

/** Where a type's objects appear: a document around `SELECTION`, and how to reach the items. */
interface Place {
  document: string;
  items: (data: any) => unknown[];
}

let productId: number;
let categoryId: number;
let shopId: number;

const PRODUCT_PLACES: Record<string, Place> = {
  'product(id:)': {
    document: `query($id: Int!) { product(id: $id, market: SE) { SELECTION } }`,
    items: (data) => [data.product],
  },
  'products(ids:)': {
    document: `query($id: Int!) { products(ids: [$id], market: SE) { edges { node { SELECTION } } } }`,
    items: (data) => data.products.edges.map((edge: any) => edge.node),
  },
  'products listing edges': {
    document: `{ products(market: SE, first: 4, orderBy: PRICE) { edges { node { SELECTION } } } }`,
    items: (data) => data.products.edges.map((edge: any) => edge.node),
  },
  'category products': {
    document: `query($category: Int!) { category(id: $category, market: SE) {
      products(first: 4) { edges { node { SELECTION } } } } }`,
    items: (data) => data.category.products.edges.map((edge: any) => edge.node),
  },
};

const OFFER_PLACES: Record<string, Place> = {
  'offers page': {
    document: `query($id: Int!) { product(id: $id, market: SE, ref: "r-1") {
      offers(first: 4) { edges { node { SELECTION } } } } }`,
    items: (data) => data.product.offers.edges.map((edge: any) => edge.node),
  },
  lowestPrice: {
    document: `query($id: Int!) { product(id: $id, market: SE) { lowestPrice { SELECTION } } }`,
    items: (data) => [data.product.lowestPrice],
  },
  'shop offers': {
    document: `query($shop: Int!) { shop(id: $shop) {
      offers(first: 4) { edges { node { SELECTION } } } } }`,
    items: (data) => data.shop.offers.edges.map((edge: any) => edge.node),
  },
};

async function itemsOf(place: Place, selection: string): Promise<unknown[]> {
  const body = await catalogue.graphql(place.document.replace('SELECTION', selection), {
    ...(place.document.includes('$id') ? { id: productId } : {}),
    ...(place.document.includes('$category') ? { category: categoryId } : {}),
    ...(place.document.includes('$shop') ? { shop: shopId } : {}),
  });
  expect(body.errors, selection).toBeUndefined();
  return place.items(body.data);
}

beforeAll(async () => {
  // A product with several offers, one with an alternative price if the sample has one.
  const body = await catalogue.graphql(`{ products(market: SE, first: 50) { edges { node {
    productId category { categoryId } offerSummary { offerCount }
    lowestOffer { shop { shopId } } } } } }`);
  const listed = body.data.products.edges.map((edge: any) => edge.node);
  const rich = listed.find((product: any) => product.offerSummary.offerCount >= 4) ?? listed[0];
  productId = rich.productId;
  categoryId = rich.category.categoryId;
  shopId = rich.lowestOffer.shop.shopId;
});

const SHOP_PLACES: Record<string, Place> = {
  'offer shops': {
    document: `query($id: Int!) { product(id: $id, market: SE) {
      offers(first: 4) { edges { node { shop { SELECTION } } } } } }`,
    items: (data) => data.product.offers.edges.map((edge: any) => edge.node.shop),
  },
  'shop(id:)': {
    document: `query($shop: Int!) { shop(id: $shop) { SELECTION } }`,
    items: (data) => [data.shop],
  },
};

describe.each([
  ['Product', PRODUCT_PLACES],
  ['Offer', OFFER_PLACES],
  ['Shop', SHOP_PLACES],
])('every field of %s declares the columns it reads', (typeName, places) => {
  const fields = selectableFields(objectType(typeName));

  it.each(Object.keys(places))('at %s', async (placeName) => {
    const place = places[placeName]!;
    const selections = fields.map((field) => fullSelection(field, 2));
    const together = await itemsOf(place, selections.join(' '));
    expect(together.length).toBeGreaterThan(0);
    for (const [index, field] of fields.entries()) {
      const alone = await itemsOf(place, selections[index]!);
      expect(
        alone,
        `${typeName}.${field.name} asked alone answers what it answers beside every field`,
      ).toEqual(together.map((item: any) => ({ [field.name]: item[field.name] })));
    }
  });
});

describe('statements read the selected columns only', () => {
  it('a product name reads the id and the name', async () => {
    await catalogue.graphql(`query($id: Int!) { product(id: $id, market: SE) { name } }`, {
      id: productId,
    });
    expect(catalogue.statements).toEqual([
      'select "id", "name" from "products" where "id" = any($1)',
    ]);
  });

  it('offers with a price read their keys and the price columns, not every column', async () => {
    await catalogue.graphql(
      `query($id: Int!) { product(id: $id, market: SE) { offers { edges { node { price { value } } } } } }`,
      { id: productId },
    );
    const offers = catalogue.statements
      .find((statement) => statement.includes('available_offers'))
      ?.replace(/\s+/g, ' ')
      .trim();
    expect(offers).toMatch(
      /^select \* from \( select "o"\."id", "o"\."product_id", "o"\."market", "o"\."currency", "o"\."price", "o"\."price_including_shipping", \(row_number/,
    );
  });

  it('fragments and @include count as execution counts them', async () => {
    const query = `query($id: Int!, $more: Boolean!) {
      product(id: $id, market: SE) { ...Naming popularity @include(if: $more) }
    }
    fragment Naming on Product { name ... on Product { description } }`;
    await catalogue.graphql(query, { id: productId, more: false });
    expect(catalogue.statements).toEqual([
      'select "id", "description", "name" from "products" where "id" = any($1)',
    ]);
    await catalogue.graphql(query, { id: productId, more: true });
    expect(catalogue.statements).toEqual([
      'select "id", "description", "name", "popularity" from "products" where "id" = any($1)',
    ]);
  });

  it('different selections of one batch share a statement reading their union', async () => {
    const body = await catalogue.graphql(
      `query($id: Int!) {
        a: product(id: $id, market: SE) { name }
        b: product(id: $id, market: NO) { popularity }
      }`,
      { id: productId },
    );
    expect(body.errors).toBeUndefined();
    expect(catalogue.statements).toEqual([
      'select "id", "name", "popularity" from "products" where "id" = any($1)',
    ]);
  });
});
