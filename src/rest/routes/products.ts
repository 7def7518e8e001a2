/**
 * Products: products with offers, properties and core
 * properties, by category or GTIN, or by id.
 */
import { fieldsParam, marketParam, pagingParams, refParam } from '../common-params.ts';
import { dataEnvelopeSchema, linksEnvelope } from '../paging.ts';
import type { ParamSpec } from '../params.ts';
import { list, type Resource } from '../resources.ts';
import type { RestRoute } from '../route.ts';
import {
  corePropertyNode,
  productItemExtras,
  productItemIdentity,
  productOffer,
  propertyNode,
  OFFERS_PATH,
} from '../shapes.ts';
import { scopeVariables, definedVariables, productsPage, pageVariables } from './operations.ts';

export const productItem: Resource = {
  name: 'ProductItem',
  fields: {
    ...productItemIdentity(),
    offers: list(OFFERS_PATH, productOffer, {
      description: 'The offers available for purchase, cheapest first.',
    }),
    properties: list('properties', propertyNode(), { description: 'The specification tree.' }),
    coreProperties: list('coreProperties', corePropertyNode(), {
      description: 'The core properties.',
    }),
    ...productItemExtras(),
  },
};

const linksSchema = (item: Record<string, unknown>) => ({
  type: 'object',
  required: ['links', 'data'],
  properties: {
    links: {
      type: 'object',
      properties: {
        prev: { type: ['string', 'null'] },
        next: { type: ['string', 'null'] },
        self: { type: 'string' },
      },
    },
    data: { type: 'array', items: item },
  },
});

export const productsRoute: RestRoute = {
  id: 'products',
  method: 'GET',
  path: '/products',
  summary: 'Products with offers and properties',
  description:
    'By GTIN (in the order given), or the market’s products by popularity, optionally of a category (and the categories below it).',
  tag: 'Products',
  access: 'public',
  params: [
    marketParam,
    ...pagingParams(10, 15),
    {
      name: 'filter[category]',
      in: 'query',
      description: 'A category id or slug.',
      schema: { type: 'string', maxLength: 200 },
    },
    refParam(false),
    {
      name: 'gtin',
      in: 'query',
      description: 'GTINs: up to 10, comma-separated.',
      schema: { type: 'idList', maxItems: 10 },
    },
    fieldsParam,
  ],
  resource: productItem,
  unknownNameStatus: 422,
  parameterOf: { category: 'filter[category]', gtins: 'gtin' },
  plan: (params) => ({
    shape: productsPage,
    shapeKey: 'list',
    variables: pageVariables(params, {
      category: params['filter[category]'],
      gtins: params.gtin,
    }),
  }),
  respond: (input) => ({ status: 200, body: linksEnvelope(input) }),
  responseSchema: linksSchema,
};

const MAX_IDS = 20;

const productIdsPathParam: ParamSpec = {
  name: 'productIds',
  in: 'path',
  required: true,
  description: `One product id, or 1 to ${MAX_IDS} comma-separated ids.`,
  schema: { type: 'idList', maxItems: MAX_IDS },
};

/** Ids beyond a GraphQL Int cannot name a product: they are left out like unknown ones. */
function productIds(raw: string[]): number[] {
  return raw.map(Number).filter((id) => id >= 1 && id <= 2 ** 31 - 1);
}

export const productsByIdRoute: RestRoute = {
  id: 'productsById',
  method: 'GET',
  path: '/products/{productIds}',
  summary: 'Products by id',
  description:
    'With one id: the product itself, or 404. With several: `{"data": [...]}` in the order given, duplicates collapsed, unknown ids left out.',
  tag: 'Products',
  access: 'public',
  params: [productIdsPathParam, marketParam, refParam(false), fieldsParam],
  resource: productItem,
  unknownNameStatus: 422,
  parameterOf: { ids: 'productIds' },
  plan: (params) => ({
    shape: productsPage,
    shapeKey: 'list',
    variables: definedVariables({
      ...scopeVariables(params),
      ids: productIds(params.productIds as string[]),
      first: MAX_IDS,
    }),
  }),
  respond(input) {
    const raw = input.params.productIds as string[];
    if (raw.length > 1) return { status: 200, body: { data: input.items } };
    return input.items[0]
      ? { status: 200, body: input.items[0] }
      : { status: 404, message: `product ${raw[0]} not found` };
  },
  responseSchema: (item) => ({
    oneOf: [item, dataEnvelopeSchema(item)],
  }),
};
