/**
 * The catalogue as a subgraph of a federated supergraph (docs/federation.md): its nodes are
 * Federation v2 entities keyed by their Relay global id (`@key(fields: "id")`), so another
 * subgraph can extend them and the gateway can ask for them with `_entities`. A reference is
 * resolved through the type's own node loader: the representations of one type in one
 * `_entities` call load with one statement, and a market-scoped id (a product's, a
 * category's) resolves to the object in the market it names, as `node(id:)` does.
 */
import { decodeGlobalID } from '@pothos/plugin-relay';
import type DataLoader from 'dataloader';
import type { RequestContext } from '../context.ts';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLUnionType,
  isObjectType,
  isScalarType,
  isUnionType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { badUserInput } from '../errors.ts';
import { builder } from './builder.ts';

/** The only federation directive the catalogue applies (its `@link` imports just this). */
export const FEDERATION_DIRECTIVES = ['@key'];

/** The node id inside a global id of `typename`; a malformed one or another type's is refused. */
function nodeIdOf(globalId: string, typename: string): string {
  let decoded: { typename: string; id: string } | undefined;
  try {
    decoded = decodeGlobalID(globalId);
  } catch {
    decoded = undefined;
  }
  if (decoded?.typename !== typename) {
    throw badUserInput(`not a ${typename} id: ${globalId}`, 'representations', 'malformed_id');
  }
  return decoded.id;
}

/** A loadable node's ref: its name and its per-request node loader (`node`/`nodes` use it). */
interface LoadableNode<Shape> {
  name: string;
  getDataloader: (context: RequestContext) => DataLoader<string, Shape>;
}

/** The names of the entity types: the members of the `_Entity` union. */
function entityTypeNames(schema: GraphQLSchema): Set<string> {
  const union = schema.getType('_Entity');
  return new Set(isUnionType(union) ? union.getTypes().map((type) => type.name) : []);
}

/**
 * `_entities` with every representation checked first: one that is not an object naming an
 * entity type by `__typename` is null with a BAD_USER_INPUT error at its place (graphql-js
 * answers an Error in a list so), and the others resolve. Unchecked, the plugin's resolver
 * threw a plain error for it, and the whole answer was a 500.
 */
function checkedRepresentations(
  resolve: GraphQLFieldResolver<unknown, unknown>,
  entityTypes: Set<string>,
): GraphQLFieldResolver<unknown, unknown> {
  return async (source, args: { representations: unknown[] }, context, info) => {
    const { representations } = args;
    const valid = representations.map(
      (item) =>
        typeof item === 'object' &&
        item !== null &&
        entityTypes.has((item as { __typename?: unknown }).__typename as string),
    );
    if (valid.every(Boolean)) return resolve(source, args, context, info);
    const kept = representations.filter((_, index) => valid[index]);
    const resolved = (await resolve(
      source,
      { ...args, representations: kept },
      context,
      info,
    )) as unknown[];
    let next = 0;
    return valid.map((isValid) =>
      isValid
        ? resolved[next++]
        : badUserInput(
            `a representation is an object with the __typename of an entity (${[...entityTypes].join(', ')}) and its id`,
            'representations',
            'malformed_representation',
          ),
    );
  };
}

/** The `asEntity` options of a loadable node: keyed by `id`, resolved through its loader. */
export function entityByGlobalId<Shape>(node: LoadableNode<Shape>) {
  return {
    key: builder.selection<{ id: string }>('id'),
    // Async, so that a bad id fails its own entity, not the whole `_entities` list.
    resolveReference: async ({ id }: { id: string }, context: RequestContext) =>
      node.getDataloader(context).load(nodeIdOf(id, node.name)),
  };
}

/** The Federation version the subgraph's `@link` names (composition and gateways read it). */
export const FEDERATION_SPEC = 'https://specs.apollo.dev/federation/v2.6';

/** What the federation types and fields are, for GraphiQL's docs like every other part. */
const DESCRIPTIONS: Record<string, string> = {
  _Any: 'An entity representation: `__typename` and the key fields (`id`), for the gateway.',
  _Entity: 'Every type another subgraph can extend or resolve by key (Federation v2).',
  _Service: 'This subgraph’s capabilities, for composing a supergraph.',
  '_Service.sdl': 'The subgraph SDL with its `@key` directives (what composition reads).',
  'Query._service': 'This subgraph’s SDL, for a federation gateway or composition tool.',
  'Query._entities':
    'Entities by their representations, in the order given (null where unknown): what a federation gateway asks.',
  'Query._entities(representations:)':
    'Representations (`{ __typename, id }`) of entities, as the gateway holds them.',
};

/**
 * The subgraph schema with the federation types and fields described (test/graph/schema.test.ts
 * wants every part described), and `_entities` costed like `nodes`: by how many
 * representations it is given, so it cannot carry more work than the cost bound allows.
 */
export function describeFederation(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.TYPE]: (type) => {
      const description = DESCRIPTIONS[type.name];
      if (description === undefined) return type;
      if (isScalarType(type)) return new GraphQLScalarType({ ...type.toConfig(), description });
      if (isUnionType(type)) return new GraphQLUnionType({ ...type.toConfig(), description });
      if (isObjectType(type)) return new GraphQLObjectType({ ...type.toConfig(), description });
      return type;
    },
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const description = DESCRIPTIONS[`${typeName}.${fieldName}`];
      if (description === undefined) return field;
      const args = Object.fromEntries(
        Object.entries(field.args ?? {}).map(([name, arg]) => [
          name,
          { ...arg, description: DESCRIPTIONS[`${typeName}.${fieldName}(${name}:)`] },
        ]),
      );
      if (fieldName !== '_entities') return { ...field, description, args };
      const complexity = ({ representations }: { representations: unknown[] }) => ({
        field: 1,
        multiplier: representations.length,
      });
      return {
        ...field,
        description,
        args,
        resolve: checkedRepresentations(field.resolve!, entityTypeNames(schema)),
        extensions: { ...field.extensions, complexity },
      };
    },
  });
}
