/**
 * Generic resources (docs/api.md, "REST routes" and "Paging"): products and categories
 * under /v1 with the `meta`/`items` envelope.
 */
import { fieldsParam, marketParam, pagingParams, refParam } from '../common-params.ts';
import { genericEnvelope } from '../paging.ts';
import { ParamError, type ParamSpec, type ParamValues } from '../params.ts';
import { computed, leaf, list, object, valueAt, type Resource } from '../resources.ts';
import type { ResponseInput, RestRoute, RouteResponse } from '../route.ts';
import {
  asString,
  categoryPath,
  imageUrls,
  productOffer,
  propertyNode,
  schemas,
  OFFERS_PATH,
} from '../shapes.ts';
import {
  allCategoriesPage,
  categoryProductsPage,
  definedVariables,
  scopeVariables,
  productsPage,
  productsPageWithTotal,
  singleCategory,
  pageVariables,
} from './operations.ts';

/** The generic category resource, read at `prefix` ('' or 'category.'). */
function genericCategory(prefix: string): Resource {
  return {
    name: 'GenericCategory',
    fields: {
      id: leaf(`${prefix}categoryId`, schemas.string, {
        description: 'Category id.',
        convert: asString,
      }),
      name: leaf(`${prefix}name`, schemas.string, { description: 'Category name.' }),
      uri: leaf(`${prefix}url`, schemas.string, { description: 'The category page.' }),
      products_total: leaf(`${prefix}productsTotal`, schemas.integer, {
        description: 'Products with an available offer in the market.',
      }),
      lowest_price: leaf(`${prefix}lowestPrice.value`, schemas.nullableNumber, {
        description: 'The lowest available price in the category.',
      }),
      description: leaf(`${prefix}description`, schemas.nullableString, {
        description: 'Description.',
      }),
      logo: computed(
        [`${prefix}logo.large`, `${prefix}logo.small`],
        (item) => {
          const logo = valueAt(item, [...prefix.split('.').filter(Boolean), 'logo']) as {
            large: string | null;
            small: string | null;
          } | null;
          return logo?.large ?? logo?.small ?? null;
        },
        schemas.nullableString,
        { description: 'Logo URL, or null.' },
      ),
      path: categoryPath(prefix),
      parent: object(
        'GenericCategoryParent',
        {
          id: leaf(`${prefix}parent.categoryId`, schemas.string, {
            description: 'Parent id.',
            convert: asString,
          }),
        },
        { description: 'The parent category, or null for a root.', nullIf: `${prefix}parent` },
      ),
    },
  };
}

const genericProduct: Resource = {
  name: 'GenericProduct',
  fields: {
    id: leaf('productId', schemas.integer, { description: 'Product id.' }),
    name: leaf('name', schemas.string, { description: 'Product name.' }),
    popularity: leaf('popularity', schemas.integer, { description: 'Popularity.' }),
    stock: object(
      'GenericStock',
      {
        status: leaf('offerSummary.bestStockStatus', schemas.nullableString, {
          description: 'The best stock status among the available offers.',
        }),
      },
      { description: 'Stock.' },
    ),
    uri: leaf('productPage', schemas.string, { description: 'The product page.' }),
    price: object(
      'GenericPrice',
      {
        regular: leaf('offerSummary.lowestNewPrice.value', schemas.nullableNumber, {
          description: 'Lowest available price of new-condition offers.',
        }),
        alternative: leaf('offerSummary.lowestAlternativePrice.value', schemas.nullableNumber, {
          description: 'Lowest available price of used, refurbished or demo offers.',
        }),
        in_stock: leaf('offerSummary.lowestInStockPrice.value', schemas.nullableNumber, {
          description: 'Lowest price among IN_STOCK offers.',
        }),
      },
      { description: 'Prices.' },
    ),
    brand: object(
      'GenericBrand',
      {
        id: leaf('brand.brandId', schemas.integer, { description: 'Brand id.' }),
        name: leaf('brand.name', schemas.string, { description: 'Brand name.' }),
      },
      { description: 'The brand, or null.', nullIf: 'brand', standard: false },
    ),
    category: {
      kind: 'object',
      fields: genericCategory('category.'),
      description: 'The product’s category.',
      standard: false,
    },
    offers: list(OFFERS_PATH, productOffer, { description: 'Available offers.', standard: false }),
    properties: list('properties', propertyNode(), {
      description: 'Specification.',
      standard: false,
    }),
    images: imageUrls('images', { standard: false }),
    gtins: leaf(
      'gtins',
      { type: 'array', items: { type: 'string' } },
      {
        description: 'GTINs.',
        standard: false,
      },
    ),
    price_trend: object(
      'GenericPriceTrend',
      {
        percentage: leaf('priceTrend.percentage', schemas.nullableNumber, {
          description: 'Price trend percentage (positive: cheaper than usual).',
        }),
      },
      { description: 'The price trend, or null.', nullIf: 'priceTrend', standard: false },
    ),
  },
};

const LIMIT = { default: 30, maximum: 100 } as const;
const genericParams = [
  marketParam,
  fieldsParam,
  ...pagingParams(LIMIT.default, LIMIT.maximum),
  refParam(false),
];

const productIdParam: ParamSpec = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The product id (an unsigned decimal integer).',
  schema: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
};

const categoryReferenceParam: ParamSpec = {
  name: 'id',
  in: 'path',
  required: true,
  description:
    'The category id (an unsigned decimal integer) or its slug, as `filter[category]` takes.',
  schema: { type: 'string', maxLength: 200, pattern: /^[a-z0-9]+(-[a-z0-9]+)*$/ },
};

const MAX_ID = 2 ** 31 - 1;

/** The `category(id:, slug:)` arguments for a path reference: digits are an id, else a slug. */
function categoryReference(params: ParamValues): { id: number } | { slug: string } {
  const reference = params.id as string;
  if (!/^\d+$/.test(reference)) return { slug: reference };
  const id = Number(reference);
  if (id < 1 || id > MAX_ID) {
    throw new ParamError(`id must be an integer between 1 and ${MAX_ID}, or a slug`, [
      { parameter: 'id', reason: 'out_of_range' },
    ]);
  }
  return { id };
}

const listSchema = (item: Record<string, unknown>) => ({
  type: 'object',
  required: ['meta', 'items'],
  properties: {
    meta: {
      type: 'object',
      properties: {
        paging: {
          type: 'object',
          properties: { next: { type: ['string', 'null'] }, prev: { type: ['string', 'null'] } },
        },
        items_total: { type: ['integer', 'null'] },
      },
    },
    items: { type: 'array', items: item },
  },
});

const singleSchema = (item: Record<string, unknown>) => ({
  type: 'object',
  required: ['meta', 'items'],
  properties: { meta: { type: 'object' }, items: { type: 'array', items: item, maxItems: 1 } },
});

function single(input: ResponseInput, what: string): RouteResponse {
  return input.items[0]
    ? { status: 200, body: { meta: {}, items: [input.items[0]] } }
    : { status: 404, message: `${what} ${String(input.params.id)} not found` };
}

export const genericProductsRoute: RestRoute = {
  id: 'genericProducts',
  method: 'GET',
  path: '/v1/products',
  summary: 'Products of a market',
  description: 'The market’s products with an available offer, most popular first.',
  tag: 'Generic resources',
  access: 'public',
  params: genericParams,
  resource: genericProduct,
  unknownNameStatus: 422,
  plan: (params) => ({
    shape: productsPageWithTotal,
    shapeKey: 'list',
    variables: pageVariables(params),
  }),
  respond: (input) => ({ status: 200, body: genericEnvelope(input) }),
  responseSchema: listSchema,
};

export const genericProductRoute: RestRoute = {
  id: 'genericProduct',
  method: 'GET',
  path: '/v1/products/{id}',
  summary: 'One product',
  description: 'One product in the generic envelope, or 404.',
  tag: 'Generic resources',
  access: 'public',
  params: [productIdParam, ...genericParams],
  resource: genericProduct,
  unknownNameStatus: 422,
  plan: (params) => ({
    shape: productsPage,
    shapeKey: 'list',
    variables: definedVariables({ ...scopeVariables(params), ids: [params.id], first: 1 }),
  }),
  respond: (input) => single(input, 'product'),
  responseSchema: singleSchema,
};

export const genericCategoriesRoute: RestRoute = {
  id: 'genericCategories',
  method: 'GET',
  path: '/v1/categories',
  summary: 'Every category',
  description: 'The category tree, parents before children, in the generic envelope.',
  tag: 'Generic resources',
  access: 'public',
  params: genericParams,
  resource: genericCategory(''),
  unknownNameStatus: 422,
  plan: (params) => ({
    shape: allCategoriesPage,
    shapeKey: 'list',
    variables: pageVariables(params),
  }),
  respond: (input) => ({ status: 200, body: genericEnvelope(input) }),
  responseSchema: listSchema,
};

export const genericCategoryRoute: RestRoute = {
  id: 'genericCategory',
  method: 'GET',
  path: '/v1/categories/{id}',
  summary: 'One category',
  description: 'One category by id or slug in the generic envelope, or 404.',
  tag: 'Generic resources',
  access: 'public',
  params: [categoryReferenceParam, ...genericParams],
  resource: genericCategory(''),
  unknownNameStatus: 422,
  plan: (params) => ({
    shape: singleCategory,
    shapeKey: 'single',
    variables: { ...scopeVariables(params), ...categoryReference(params) },
  }),
  respond: (input) => single(input, 'category'),
  responseSchema: singleSchema,
};

export const genericCategoryProductsRoute: RestRoute = {
  id: 'genericCategoryProducts',
  method: 'GET',
  path: '/v1/categories/{id}/products',
  summary: 'Products of a category',
  description:
    'The products of a category (by id or slug) and the categories below it with an available offer in the market, most popular first; 404 for an unknown category.',
  tag: 'Generic resources',
  access: 'public',
  params: [categoryReferenceParam, ...genericParams],
  resource: genericProduct,
  unknownNameStatus: 422,
  plan: (params) => ({
    shape: categoryProductsPage,
    shapeKey: 'list',
    variables: pageVariables(params, categoryReference(params)),
  }),
  respond: (input) =>
    input.root === null
      ? { status: 404, message: `category ${String(input.params.id)} not found` }
      : {
          status: 200,
          body: genericEnvelope({ ...input, root: input.root.products as ResponseInput['root'] }),
        },
  responseSchema: listSchema,
};
