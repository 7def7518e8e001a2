/**
 * The Pothos builder: plugin configuration and the scalars every type shares. Types live one
 * per file in ./types (object, loaders, fields, and the root fields that return it).
 */
import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin, { decodeGlobalID } from '@pothos/plugin-relay';
import { badUserInput } from '../errors.ts';
import CacheTagsPlugin from './cache-tags.ts';
import type { RequestContext } from '../context.ts';

/** The types implementing Node (test/graph/schema.test.ts keeps this list complete). */
export const NODE_TYPES = new Set(['Product', 'Offer', 'Shop', 'Brand', 'Category']);

/** A global id's type and key; a well-formed id of a type that is not a node is refused. */
export function decodeNodeId(globalID: string): { typename: string; id: string } {
  const decoded = decodeGlobalID(globalID);
  if (!NODE_TYPES.has(decoded.typename)) {
    throw badUserInput(`not an id of this API: ${globalID}`, 'id', 'malformed_id');
  }
  return decoded;
}

/** A connection's total: a number, or a thunk run only when a client selects `totalCount`. */
export type TotalCount = number | (() => Promise<number>);

export const builder = new SchemaBuilder<{
  Context: RequestContext;
  // Fields are non-null unless they say `nullable: true`: clients need not null-check what
  // is always there.
  DefaultFieldNullability: false;
  DefaultEdgesNullability: { list: false; items: false };
  DefaultNodeNullability: false;
  Connection: { totalCount?: TotalCount };
  Scalars: {
    Date: { Input: string; Output: string };
    DateTime: { Input: string; Output: Date | string };
    Decimal: { Input: never; Output: string };
    PropertyValue: { Input: never; Output: boolean | string | number };
  };
}>({
  plugins: [
    RelayPlugin,
    DataloaderPlugin,
    ComplexityPlugin,
    CacheTagsPlugin,
    // Federation (./federation.ts) marks the entities; the directives plugin gives its
    // `@key`s the AST nodes that the subgraph SDL (`_service { sdl }`) is printed from.
    DirectivePlugin,
    FederationPlugin,
  ],
  defaultFieldNullability: false,
  // What a field costs (src/graph/limits.ts checks the budget before execution): 1, and a
  // list's selection counts 10 times unless the field says how many items it can hold
  // (connections: the page asked for; `ids`: how many were given).
  complexity: { defaultComplexity: 1, defaultListMultiplier: 10 },
  relay: {
    // A well-formed id of a type that is not a node is the client's mistake, not ours.
    decodeGlobalID: decodeNodeId,
    idFieldOptions: { description: 'Opaque global id (Relay Node), stable across requests.' },
    nodeQueryOptions: {
      description: 'Any object by its global id.',
      args: { id: { description: 'A global id, as an object’s `id` field gives it.' } },
    },
    // ./types/node.ts declares `nodes`: one bad id must not cost the others their answer.
    nodesQueryOptions: false,
    pageInfoTypeOptions: {
      description: 'Where a page sits in its list (Relay cursor connections).',
    },
    cursorFieldOptions: {
      description: 'Opaque position of this edge; pass to `after` for the next page.',
    },
    nodeFieldOptions: { description: 'The item at this edge.' },
    edgesFieldOptions: {
      description: 'The items of this page with their cursors.',
      // The connection field already counts its selection once per item of the page.
      complexity: { field: 1, multiplier: 1 },
    },
    pageInfoFieldOptions: { description: 'Paging state of this page.' },
    hasNextPageFieldOptions: { description: 'True when a further page exists.' },
    hasPreviousPageFieldOptions: {
      description: 'True when this page does not start at the first item.',
    },
    startCursorFieldOptions: { description: 'Cursor of the first edge of this page.' },
    endCursorFieldOptions: { description: 'Cursor of the last edge of this page.' },
    firstArgOptions: { description: 'Page size (at most the field’s documented maximum).' },
    afterArgOptions: { description: 'Return items after this cursor.' },
    lastArgOptions: { description: 'Page size counted back from `before`.' },
    beforeArgOptions: { description: 'Return items before this cursor.' },
    defaultEdgeTypeOptions: { description: 'An item of a page, with its position in the list.' },
    nodeTypeOptions: { description: 'An object with a global id, refetchable through `node`.' },
  },
});

/** The builder's types, for helpers that add the same fields to several object types. */
export type BuilderTypes =
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

builder.queryType({ description: 'The catalogue: products, offers, shops and categories.' });

builder.subscriptionType({
  description:
    'Live prices: events as shops’ feed runs commit (over SSE or graphql-ws; docs/api.md, "Live updates").',
});

builder.scalarType('Date', {
  description: 'A calendar day, ISO 8601 (YYYY-MM-DD).',
  serialize: (value) => value,
});

builder.scalarType('DateTime', {
  description: 'A point in time, ISO 8601 with time zone (e.g. 2026-11-01T12:00:00.000Z).',
  // Timestamps from the database already are that string (src/db/timestamps.ts).
  serialize: (value) => (value instanceof Date ? value.toISOString() : value),
});

builder.scalarType('Decimal', {
  description:
    'An exact decimal amount as a string with exactly two decimals and no grouping (e.g. "5899.00", "7.50"), like Shopify’s MoneyV2 `amount`: parse it with a decimal type, not a float.',
  // Money fields format it (money.ts decimalOfCents); output only, never an argument.
  serialize: (value) => value,
});

builder.scalarType('PropertyValue', {
  description: 'A property value: a Boolean, a String or a Number.',
  serialize: (value) => value,
});

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    nullable: true,
    description:
      'How many items the whole list has (null where counting is not offered). A text search counts up to the bound its `query` argument states: the bound means that many or more.',
    resolve: (connection) => {
      const total = connection.totalCount;
      return typeof total === 'function' ? total() : (total ?? null);
    },
  }),
);
