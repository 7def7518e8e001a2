/**
 * Fields of the types a compiled statement builds (./root-fields.ts) answer a compiled parent
 * from its own property, the response key: no resolver runs. A compiled object carries `$`
 * (never a GraphQL name): 0, or, when some of its fields were left to their resolvers or its
 * type records a cache tag, the parent those resolvers take (a row and its scope), given to
 * them as it is, and to the type's tag (../cache-tags.ts) when an answer is being stored.
 */
import {
  defaultFieldResolver,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { recordTypeTag } from '../cache-tags.ts';

const COMPILED_TYPES = [
  'Product',
  'Offer',
  'Shop',
  'Brand',
  'Category',
  'CategoryConnection',
  'CategoryEdge',
  'ProductConnection',
  'ProductEdge',
  'OfferConnection',
  'OfferEdge',
  'PageInfo',
  'Money',
  'PeriodPrice',
  'ImageUrls',
];

type CompiledObject = Record<string, unknown> & { $?: unknown };

function answeringCompiled(resolve: GraphQLFieldResolver<unknown, unknown>) {
  return ((parent: CompiledObject, args, context, info) => {
    const fallback = parent.$;
    if (fallback === undefined) return resolve(parent, args, context, info);
    const key = info.path.key as string;
    if (Object.hasOwn(parent, key)) {
      if (fallback !== 0) recordTypeTag(info.parentType, fallback, args, context);
      return parent[key];
    }
    if (fallback === 0) throw new Error(`the compiled ${info.parentType.name} lacks ${key}`);
    return resolve(fallback, args, context, info);
  }) as GraphQLFieldResolver<unknown, unknown>;
}

/**
 * Wraps the resolvers of those types in the built schema, outside every wrapper the builder's
 * plugins added (cache tags, loaders, ids): a compiled parent's field costs a property read.
 */
export function answerCompiledValues(schema: GraphQLSchema): GraphQLSchema {
  for (const name of COMPILED_TYPES) {
    const type = schema.getType(name);
    if (!isObjectType(type)) throw new Error(`no object type ${name} to compile`);
    for (const field of Object.values(type.getFields())) {
      field.resolve = answeringCompiled(field.resolve ?? defaultFieldResolver);
    }
  }
  return schema;
}
