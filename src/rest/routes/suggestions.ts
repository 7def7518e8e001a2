/**
 * Suggestions (docs/api.md, "Text search"): products with a good price now, or matching a text
 * query, each with the offer at the lowest current price.
 */
import { exclusive, type ParamSpec, type ParamValues } from '../params.ts';
import { fieldsParam, marketParam, pagingParams, refParam } from '../common-params.ts';
import { dataEnvelopeSchema } from '../paging.ts';
import { leaf, object, type Resource } from '../resources.ts';
import type { RestRoute } from '../route.ts';
import {
  money,
  periodPrice,
  productItemExtras,
  productItemIdentity,
  schemas,
  shop,
} from '../shapes.ts';
import { definedVariables, productsPage, pageVariables } from './operations.ts';

export const suggestionItem: Resource = {
  name: 'Suggestion',
  fields: {
    ...productItemIdentity(),
    lowestPrice: object(
      'LowestPrice',
      {
        price: money('lowestOffer.price', { withShipping: true }),
        memberPrice: periodPrice('lowestOffer.memberPrice', 'Members’ price, or null.'),
        salesPrice: periodPrice('lowestOffer.salesPrice', 'Campaign price, or null.'),
        originalPrice: periodPrice('lowestOffer.originalPrice', 'Price before reduction, or null.'),
        shop: shop('lowestOffer.shop'),
        priceTrend: object(
          'PriceTrend',
          {
            percentage: leaf('priceTrend.percentage', schemas.nullableNumber, {
              description:
                '(90-day average − current) / average × 100; positive is cheaper than usual.',
            }),
          },
          { description: 'The price trend.' },
        ),
      },
      { description: 'The offer with the lowest current price.', nullIf: 'lowestOffer' },
    ),
    ...productItemExtras(),
  },
};

const priceTrendParams: ParamSpec[] = ['', '[gte]', '[lte]'].map((suffix) => ({
  name: `filter[price_trend]${suffix}`,
  in: 'query',
  description:
    suffix === '[lte]'
      ? 'Keep products whose price trend percentage is at most this.'
      : 'Keep products whose price trend percentage is at least this.',
  schema: { type: 'number', minimum: -1_000_000, maximum: 100 },
}));

const categoryFilterParam: ParamSpec = {
  name: 'filter[category]',
  in: 'query',
  description: 'A category id or slug (from the categories endpoint).',
  schema: { type: 'string', maxLength: 200 },
};

/** The price trend bounds; `filter[price_trend]` is `[gte]` under its older name. */
export function priceTrendFilter(params: ParamValues) {
  exclusive(params, 'filter[price_trend]', 'filter[price_trend][gte]');
  const gte = params['filter[price_trend][gte]'] ?? params['filter[price_trend]'];
  const lte = params['filter[price_trend][lte]'];
  if (gte === undefined && lte === undefined) return undefined;
  return definedVariables({ gte, lte });
}

export const suggestionsRoute: RestRoute = {
  id: 'suggestions',
  method: 'GET',
  path: '/suggestions',
  summary: 'Products with a good price now, or matching a text query',
  description:
    'With `product`: products matching every term (stemming, prefixes, typo tolerance), by relevance then popularity. Without: best price trend first, then popularity. Only products with an available offer in the market.',
  tag: 'Suggestions',
  access: 'public',
  params: [
    marketParam,
    {
      name: 'product',
      in: 'query',
      description: 'Product name to search for: at most eight space-separated terms.',
      schema: { type: 'string', maxLength: 200, maxTerms: 8 },
    },
    {
      name: 'category',
      in: 'query',
      description: 'Deprecated: use filter[category].',
      replacedBy: 'filter[category]',
      schema: { type: 'string', maxLength: 200 },
    },
    ...pagingParams(5, 30),
    refParam(false),
    categoryFilterParam,
    ...priceTrendParams,
    fieldsParam,
  ],
  resource: suggestionItem,
  unknownNameStatus: 422,
  parameterOf: {
    query: 'product',
    category: (params) => (params.category === undefined ? 'filter[category]' : 'category'),
    'priceTrend.gte': 'filter[price_trend][gte]',
    'priceTrend.lte': 'filter[price_trend][lte]',
  },
  plan(params) {
    const query = params.product as string | undefined;
    return {
      shape: productsPage,
      shapeKey: 'list',
      variables: pageVariables(params, {
        query,
        category: exclusive(params, 'category', 'filter[category]'),
        priceTrend: priceTrendFilter(params),
        orderBy: query === undefined ? 'PRICE_TREND' : 'RELEVANCE',
      }),
    };
  },
  respond: (input) => ({ status: 200, body: { data: input.items } }),
  responseSchema: dataEnvelopeSchema,
};
