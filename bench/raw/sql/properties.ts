/**
 * Property trees as REST shows them (src/rest/shapes.ts propertyNode / corePropertyNode over
 * src/graph/types/property.ts): `properties` is the whole tree, `coreProperties` the core
 * nodes, each under its nearest core ancestor. Both stop at PROPERTY_TREE_DEPTH levels, the
 * deepest level having no `properties` key at all.
 *
 * Nested JSON of unknown depth is written without recursion in the output: the nodes are
 * listed in pre-order (siblings by position, then node id, as the gateway orders them), each
 * opening its object and its children's array, and the closing brackets after a node are
 * counted from the depth of the next node in pre-order. The core view is the same walk over
 * the core nodes only (pre-order restricted to them is the core forest's pre-order).
 */
import {
  boolean,
  constant,
  float,
  openObject,
  raw,
  render,
  sequence,
  string,
  word,
  requiredString,
  type Json,
} from '../json-sql.ts';
import type { TextSearchConfig } from '../../../src/search/text-search-configs.ts';
import { localisedPropertyColumns } from './localised-names.ts';

/** src/rest/shapes.ts PROPERTY_TREE_DEPTH. */
const MAX_DEPTH = 6;

/** The node's value, by its type (src/graph/types/property.ts valueOf). */
function nodeValue(n: string): Json {
  return raw(`case ${n}.type
      when 'boolean' then coalesce(${n}.value_boolean::text, 'null')
      when 'string' then coalesce(to_json(${n}.value_string)::text, 'null')
      when 'number' then ${render(float(`${n}.value_number`))}
      else 'null' end`);
}

/**
 * CTEs (to follow `with recursive`'s other CTEs) defining `property_json(product_id,
 * properties, core_properties)`: both trees of every product in `products` (a CTE with a
 * `product_id` column) as JSON arrays, names and word units in `language`; products without
 * nodes have no row.
 */
export function propertyTreeCtes(products: string, language: TextSearchConfig): string {
  const n = 't';
  const element = (depthColumn: string, fields: Record<string, Json>) => {
    // Preceded by a comma unless it is its parent's first child (the node before it in
    // pre-order is then its parent, one level up).
    const depth = `${n}.${depthColumn}`;
    const comma = `case when lag(${depth}) over w >= ${depth} then ',' else '' end`;
    // After the node, every node from its own level up to the next node's level ends.
    const next = `coalesce(lead(${n}.${depthColumn}) over w, 1)`;
    const closing = `case when ${n}.${depthColumn} = ${MAX_DEPTH}
        then '}' || repeat(']}', ${n}.${depthColumn} - ${next})
        else ',"properties":[' || repeat(']}', ${n}.${depthColumn} - ${next} + 1) end`;
    return render(sequence(raw(comma), openObject(fields), raw(closing)));
  };
  const all = element('depth', {
    type: word(`${n}.type`),
    name: requiredString(`${n}.local_name`),
    value: nodeValue(n),
    unit: string(`${n}.local_unit`),
    icon: string(`${n}.icon`),
  });
  const core = element('core_depth', {
    type: constant('property'),
    name: requiredString(`${n}.local_name`),
    value: nodeValue(n),
    core: boolean(`${n}.is_core`),
    comment: string(`${n}.comment`),
    unit: string(`${n}.local_unit`),
    icon: string(`${n}.icon`),
  });
  // The sort key of a node among its siblings, fitting an integer: position and node_id are
  // non-negative smallints.
  const key = (alias: string) => `(${alias}.position * 32768 + ${alias}.node_id)`;
  const localised = localisedPropertyColumns('r', language);
  return `
  property_rows as materialized (
    select pp.* from product_properties pp
     where pp.product_id in (select product_id from ${products})),
  property_walk (product_id, node_id, path, depth, core_depth) as (
    select r.product_id, r.node_id, array[${key('r')}], 1, case when r.is_core then 1 else 0 end
      from property_rows r where r.parent_node_id is null
    union all
    select r.product_id, r.node_id, w.path || ${key('r')}, w.depth + 1,
           w.core_depth + case when r.is_core then 1 else 0 end
      from property_walk w
      join property_rows r on r.product_id = w.product_id and r.parent_node_id = w.node_id),
  property_nodes as materialized (
    select r.*, ${localised.columns}, w.path, w.depth, w.core_depth
      from property_walk w join property_rows r using (product_id, node_id)
      ${localised.joins}),
  property_all as (
    select t.product_id, '[' || string_agg(t.element, '' order by t.path) || ']' as json
      from (select t.product_id, t.path, ${all} as element
              from property_nodes t where t.depth <= ${MAX_DEPTH}
            window w as (partition by t.product_id order by t.path)) as t
     group by t.product_id),
  property_core as (
    select t.product_id, '[' || string_agg(t.element, '' order by t.path) || ']' as json
      from (select t.product_id, t.path, ${core} as element
              from property_nodes t where t.is_core and t.core_depth <= ${MAX_DEPTH}
            window w as (partition by t.product_id order by t.path)) as t
     group by t.product_id),
  property_json (product_id, properties, core_properties) as (
    select coalesce(a.product_id, c.product_id), coalesce(a.json, '[]'), coalesce(c.json, '[]')
      from property_all a full join property_core c using (product_id))`;
}
