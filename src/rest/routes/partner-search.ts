/**
 * Partner search (docs/api.md, "Authentication" and "Versions"): products with all their available
 * offers, for partners holding a token; every offer URL carries the partner's `ref`.
 */
import { fieldsParam, marketParam, pagingParams, refParam } from '../common-params.ts';
import { partnerEnvelope } from '../paging.ts';
import type { ParamSpec } from '../params.ts';
import { leaf, list, object, type Resource } from '../resources.ts';
import type { RestRoute } from '../route.ts';
import { imageUrls, money, periodPrice, schemas, OFFERS_PATH, URL_WITH_REF } from '../shapes.ts';
import { productsPage, singleProduct, pageVariables } from './operations.ts';

const partnerOffer: Resource = {
  name: 'PartnerOffer',
  fields: {
    url: leaf(URL_WITH_REF, schemas.string, {
      description: 'Offer URL carrying the partner `ref`.',
    }),
    offerName: leaf('offerName', schemas.string, { description: 'The shop’s name for the item.' }),
    productCondition: leaf('productCondition', schemas.string, {
      description: 'CONDITION_NEW, CONDITION_USED, CONDITION_REFURBISHED or CONDITION_DEMO.',
    }),
    currentPrice: money('price'),
    memberPrice: periodPrice('memberPrice', 'Members’ price, or null.'),
    salesPrice: periodPrice('salesPrice', 'Campaign price, or null.'),
    originalPrice: periodPrice('originalPrice', 'Price before reduction, or null.'),
    shop: object(
      'PartnerShop',
      {
        id: leaf('shop.shopId', schemas.integer, { description: 'Shop id.' }),
        name: leaf('shop.name', schemas.string, { description: 'Shop name.' }),
        logo: imageUrls('shop.logo'),
      },
      { description: 'The shop.' },
    ),
    stockStatus: leaf('stockStatus', schemas.string, {
      description: 'IN_STOCK, LIMITED_STOCK, PREORDER, INCOMING or UNKNOWN.',
    }),
  },
};

/** A partner search product whose offers are read at `offersPath`. */
function partnerProduct(offersPath: string): Resource {
  return {
    name: 'PartnerProduct',
    fields: {
      id: leaf('productId', schemas.integer, { description: 'Product id.' }),
      name: leaf('name', schemas.string, { description: 'Product name.' }),
      brand: object(
        'PartnerBrand',
        {
          id: leaf('brand.brandId', schemas.integer, { description: 'Brand id.' }),
          name: leaf('brand.name', schemas.string, { description: 'Brand name.' }),
        },
        { description: 'The brand, or null.', nullIf: 'brand' },
      ),
      offers: list(offersPath, partnerOffer, {
        description: 'The offers available for purchase, cheapest first.',
      }),
      productPage: leaf('productPage', schemas.string, { description: 'Product page URL.' }),
      category: object(
        'PartnerCategory',
        {
          id: leaf('category.categoryId', schemas.integer, { description: 'Category id.' }),
          name: leaf('category.name', schemas.string, { description: 'Category name.' }),
        },
        { description: 'The product’s category.' },
      ),
      rankWithinCategory: leaf('rankWithinCategory', schemas.integer, {
        description: 'Popularity rank within the category (1 is first).',
      }),
    },
  };
}

const LIMIT = { default: 10, maximum: 250 } as const;
const API_VERSION = '1.0.0';

const productIdsParam: ParamSpec = {
  name: 'productIds',
  in: 'query',
  description: 'Comma-delimited product ids, up to 20.',
  schema: { type: 'idList', maxItems: 20 },
};

const gtinsParam: ParamSpec = {
  name: 'gtins',
  in: 'query',
  description: 'Comma-delimited GTINs, up to 10.',
  schema: { type: 'idList', maxItems: 10 },
};

const listSchema = (item: Record<string, unknown>) => ({
  type: 'object',
  required: ['links', 'paging', 'data'],
  properties: {
    links: {
      type: 'object',
      properties: {
        self: { type: 'string' },
        next: { type: ['string', 'null'] },
        prev: { type: ['string', 'null'] },
      },
    },
    paging: {
      type: 'object',
      properties: {
        limit: { type: 'integer' },
        offset: { type: 'integer' },
        nextOffset: { type: ['integer', 'null'] },
        prevOffset: { type: ['integer', 'null'] },
      },
    },
    data: { type: 'array', items: item },
  },
});

/** Ids that do not fit a GraphQL Int cannot name a product: they are left out like unknown ones. */
const asProductIds = (ids: string[] | undefined) =>
  ids?.map(Number).filter((id) => id >= 1 && id <= 2 ** 31 - 1);

export const partnerSearchRoute: RestRoute = {
  id: 'partnerSearchProducts',
  method: 'GET',
  path: '/partner-search/products',
  summary: 'Search products with their offers',
  description:
    'Products by ids or GTINs (in the order given), or the market’s products by popularity, each with every offer available for purchase. Requires a Bearer token and a `ref` owned by its client.',
  tag: 'Partner search',
  access: 'partner',
  params: [
    marketParam,
    refParam(true),
    ...pagingParams(LIMIT.default, LIMIT.maximum),
    productIdsParam,
    gtinsParam,
    fieldsParam,
  ],
  resource: partnerProduct(OFFERS_PATH),
  unknownNameStatus: 400,
  parameterOf: { ids: 'productIds' },
  apiVersion: API_VERSION,
  plan(params) {
    return {
      shape: productsPage,
      shapeKey: 'list',
      variables: pageVariables(params, {
        ids: asProductIds(params.productIds as string[] | undefined),
        gtins: params.gtins,
      }),
    };
  },
  respond: (input) => ({ status: 200, body: partnerEnvelope(input) }),
  responseSchema: listSchema,
};

export const partnerProductRoute: RestRoute = {
  id: 'partnerSearchProduct',
  method: 'GET',
  path: '/partner-search/products/{productId}',
  summary: 'One product with its offers',
  description:
    'One product with its offers available for purchase; `limit` and `offset` page through the offers. Requires a Bearer token and a `ref` owned by its client.',
  tag: 'Partner search',
  access: 'partner',
  params: [
    {
      name: 'productId',
      in: 'path',
      required: true,
      description: 'The product id (an unsigned decimal integer).',
      schema: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    },
    marketParam,
    refParam(true),
    ...pagingParams(LIMIT.default, LIMIT.maximum),
    fieldsParam,
  ],
  resource: partnerProduct('offers(first: $first, after: $after).edges.node'),
  unknownNameStatus: 400,
  parameterOf: { id: 'productId', first: 'limit', after: 'offset' },
  apiVersion: API_VERSION,
  plan(params) {
    return {
      shape: singleProduct,
      shapeKey: 'single',
      variables: pageVariables(params, {
        id: params.productId,
      }),
    };
  },
  respond: (input) =>
    input.items[0]
      ? { status: 200, body: input.items[0] }
      : { status: 404, message: `product ${String(input.params.productId)} not found` },
  responseSchema: (item) => item,
};
