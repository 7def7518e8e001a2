/** Categories: categories whose name matches a text query. */
import { fieldsParam, marketParam, pagingParams, refParam } from '../common-params.ts';
import { dataEnvelopeSchema } from '../paging.ts';
import { leaf, type Resource } from '../resources.ts';
import type { RestRoute } from '../route.ts';
import { asString, imageUrls, schemas } from '../shapes.ts';
import { categoriesPage, pageVariables } from './operations.ts';

export const categoryItem: Resource = {
  name: 'CategoryItem',
  fields: {
    id: leaf('categoryId', schemas.string, { description: 'Leaf category id.', convert: asString }),
    name: leaf('name', schemas.string, { description: 'Category name.' }),
    slug: leaf('slug', schemas.string, { description: 'Slug, usable in filter[category].' }),
    url: leaf('url', schemas.string, { description: 'The category page on the market’s site.' }),
    logo: imageUrls('logo', { nullable: true }),
  },
};

export const categoriesRoute: RestRoute = {
  id: 'categories',
  method: 'GET',
  path: '/categories',
  summary: 'Find categories by a text query',
  description:
    'Leaf categories whose name matches the query, best match first. The id or slug works in filter[category] of the other routes.',
  tag: 'Categories',
  access: 'public',
  params: [
    marketParam,
    {
      name: 'q',
      in: 'query',
      required: true,
      description: 'Text query to find categories for.',
      schema: { type: 'string', maxLength: 200, maxTerms: 8 },
    },
    ...pagingParams(5, 30),
    refParam(false),
    fieldsParam,
  ],
  resource: categoryItem,
  unknownNameStatus: 422,
  parameterOf: { query: 'q', first: 'limit', after: 'offset' },
  plan: (params) => ({
    shape: categoriesPage,
    shapeKey: 'list',
    variables: pageVariables(params, {
      query: params.q,
    }),
  }),
  respond: (input) => ({ status: 200, body: { data: input.items } }),
  responseSchema: dataEnvelopeSchema,
};
