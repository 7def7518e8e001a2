/**
 * Property: a node of a product's specification tree, and the product's core
 * properties (the nodes flagged as core, shown as their own smaller tree). Properties do not
 * depend on the market; their names do, on its language. All nodes of a batch of products come in one statement and are
 * assembled into trees in memory, so a tree of any depth costs no further statements.
 */
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { RequestContext } from '../../context.ts';
import {
  findPropertyNodesOfProducts,
  type PropertyNodeRow,
} from '../../db/repositories/properties.ts';
import type { PropertyType } from '../../db/types.ts';
import { marketLanguage } from '../../localisation/market-language.ts';
import { propertyNameIn, unitIn } from '../../localisation/property-names.ts';
import type { TextSearchConfig } from '../../search/text-search-configs.ts';
import { builder } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { groupByKey } from '../grouping.ts';
import { ProductRef, type ProductParent } from './product.ts';

/** A node with its children already in order: the parent value of a Property. */
export interface PropertyNode {
  row: PropertyNodeRow;
  children: PropertyNode[];
}

/** A product's two views of its property nodes, built from the same rows. */
interface PropertyForest {
  all: PropertyNode[];
  core: PropertyNode[];
}

export const PropertyTypeEnum = builder.enumType('PropertyType', {
  description:
    'What a property node holds. REST routes show these values in lower case (e.g. `category`).',
  values: {
    CATEGORY: {
      value: 'category',
      description: 'A group of properties: it has children and no value.',
    },
    BOOLEAN: { value: 'boolean', description: 'A yes/no property: `value` is a Boolean.' },
    STRING: { value: 'string', description: 'A text property: `value` is a String.' },
    NUMBER: {
      value: 'number',
      description: 'A numeric property: `value` is a Number, in `unit` when given.',
    },
  } satisfies Record<Uppercase<PropertyType>, { value: PropertyType; description: string }>,
});

/** The value column that matches the node's type; null for groups and unset values. */
function valueOf(row: PropertyNodeRow): boolean | string | number | null {
  switch (row.type) {
    case 'boolean':
      return row.value_boolean;
    case 'string':
      return row.value_string;
    case 'number':
      return row.value_number;
    case 'category':
      return null;
  }
}

// Declared before it is implemented: a Property's children are Properties.
export const PropertyRef = builder.objectRef<PropertyNode>('Property');

PropertyRef.implement({
  description:
    'A node of a product’s specification tree: a group (type CATEGORY) or a typed value, with its children in order.',
  fields: (t) => ({
    type: t.field({
      type: PropertyTypeEnum,
      nullable: false,
      description: 'Whether this is a group or a Boolean, String or Number value.',
      resolve: (p) => p.row.type,
    }),
    name: t.string({
      nullable: false,
      description:
        'The property (or group) name in the market’s language, e.g. "Screen size" in GB, "Skärmstorlek" in SE.',
      resolve: (p) => p.row.name,
    }),
    value: t.field({
      type: 'PropertyValue',
      nullable: true,
      description:
        'The value, of the JSON type `type` names; null for a group (CATEGORY) and for a property without a value.',
      resolve: (p) => valueOf(p.row),
    }),
    unit: t.string({
      nullable: true,
      description:
        'Unit of a numeric value (e.g. "mm", "GB"; a word unit such as "inch" in the market’s language); null when unitless.',
      resolve: (p) => p.row.unit,
    }),
    icon: t.string({
      nullable: true,
      description: 'URL of an icon for the property or group; null when there is none.',
      resolve: (p) => p.row.icon,
    }),
    core: t.boolean({
      nullable: true,
      description:
        'True for a core property (one of the few that characterise the product, listed in `coreProperties`). Always true or false here; nullable as in the REST shape.',
      resolve: (p) => p.row.is_core,
    }),
    comment: t.string({
      nullable: true,
      description: 'An editorial note on the property (mostly on core properties); null when none.',
      resolve: (p) => p.row.comment,
    }),
    children: t.field({
      type: [PropertyRef],
      nullable: false,
      description:
        'The nodes below this one, in display order (empty for a leaf). In `coreProperties`, only the core nodes below.',
      // A product's tree is counted by `properties` (its nodes, once each): going down a
      // level does not multiply it again.
      complexity: { field: 1, multiplier: 1 },
      resolve: (p) => p.children,
    }),
  }),
});

/** The product's trees: nodes grouped under their parents, siblings in row (position) order. */
function treesOf(rows: readonly PropertyNodeRow[]): PropertyNode[] {
  const childRows = new Map<number | null, PropertyNodeRow[]>();
  for (const row of rows) {
    const siblings = childRows.get(row.parent_node_id);
    if (siblings) siblings.push(row);
    else childRows.set(row.parent_node_id, [row]);
  }
  // Descending from the roots only: every node has one parent, so this always ends.
  const build = (parentId: number | null): PropertyNode[] =>
    (childRows.get(parentId) ?? []).map((row) => ({ row, children: build(row.node_id) }));
  return build(null);
}

/**
 * The core view of a tree: each core node with, as children, the core nodes nearest below it;
 * non-core nodes (groups, ordinary values) are skipped but their core descendants kept, in
 * tree order. Products usually flag leaves only, which gives a flat list.
 */
function coreTreesOf(nodes: readonly PropertyNode[]): PropertyNode[] {
  return nodes.flatMap((node) =>
    node.row.is_core
      ? [{ row: node.row, children: coreTreesOf(node.children) }]
      : coreTreesOf(node.children),
  );
}

function forestOf(rows: readonly PropertyNodeRow[]): PropertyForest {
  const all = treesOf(rows);
  return { all, core: coreTreesOf(all) };
}

/** A product's forest in a market's language: names and word units translated (English as stored). */
interface ForestKey {
  productId: number;
  language: TextSearchConfig;
}

function inLanguage(language: TextSearchConfig) {
  return (row: PropertyNodeRow): PropertyNodeRow =>
    language === 'english'
      ? row
      : { ...row, name: propertyNameIn(language, row.name), unit: unitIn(language, row.unit) };
}

/** `properties` and `coreProperties` share one statement per batch of products and request. */
const propertyForestLoader = createContextCache(
  (context: RequestContext) =>
    new DataLoader<ForestKey, PropertyForest, string>(
      async (keys) => {
        const productIds = [...new Set(keys.map((key) => key.productId))];
        const rows = await findPropertyNodesOfProducts(context.db, productIds);
        const groups = groupByKey(productIds, rows, (row) => row.product_id);
        const rowsOf = new Map(productIds.map((id, index) => [id, groups[index]!]));
        return keys.map((key) =>
          forestOf(rowsOf.get(key.productId)!.map(inLanguage(key.language))),
        );
      },
      loaderOptions({ cacheKeyFn: (key: ForestKey) => `${key.language}:${key.productId}` }),
    ),
);

async function forestIn(p: ProductParent, context: RequestContext): Promise<PropertyForest> {
  const language = await marketLanguage(context, p.scope.market);
  return propertyForestLoader(context).load({ productId: p.row.id, language });
}

builder.objectFields(ProductRef, (t) => ({
  properties: t.field({
    type: [PropertyRef],
    nullable: false,
    description:
      'The full specification tree: its top-level groups and properties in display order, each with its `children`; names and word units in the market’s language.',
    resolve: async (p, _args, context) => (await forestIn(p, context)).all,
  }),
  coreProperties: t.field({
    type: [PropertyRef],
    nullable: false,
    description:
      'The core properties (the few that characterise the product), in tree order; a core property’s `children` are the core properties below it.',
    resolve: async (p, _args, context) => (await forestIn(p, context)).core,
  }),
}));
