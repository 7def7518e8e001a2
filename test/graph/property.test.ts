import type { Insertable } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { withoutCompiledSelections } from '../../src/graph/compile/switch.ts';
import type { ProductPropertiesTable } from '../../src/db/types.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { insertBasics, insertProduct } from '../helpers/fixtures.ts';
import { postGraphql } from '../helpers/graphql.ts';

type Node = Insertable<ProductPropertiesTable>;

const ICON = 'https://img.example/icons';

/**
 * A tree three levels deep, stored out of display order (positions decide), with every value
 * type, units, icons, comments and core flags, including a core group whose core descendants
 * sit under a non-core group:
 *
 *   General (group)              Display (group)                 Connectivity (group, core)
 *     Colour "Black" (core)        Screen (group)                  5G true (core)
 *     Model year 2024              Refresh rate 120 Hz             Bluetooth "5.3"
 *                                  Size 6.1 in (core)              Wi-Fi (group)
 *                                  HDR false                         Wi-Fi 7 true (core)
 *                                Touchscreen true (core)
 */
function treeOf(productId: number): Node[] {
  const node = (
    node_id: number,
    parent_node_id: number | null,
    position: number,
    type: Node['type'],
    name: string,
    extra: Partial<Node> = {},
  ): Node => ({ product_id: productId, node_id, parent_node_id, position, type, name, ...extra });
  return [
    node(4, null, 1, 'category', 'Display', { icon: `${ICON}/display.svg` }),
    node(1, null, 0, 'category', 'General'),
    node(11, null, 2, 'category', 'Connectivity', { is_core: true }),
    node(2, 1, 1, 'number', 'Model year', { value_number: 2024 }),
    node(3, 1, 0, 'string', 'Colour', {
      value_string: 'Black',
      is_core: true,
      comment: 'Also sold in white',
    }),
    node(5, 4, 0, 'category', 'Screen'),
    node(9, 4, 1, 'boolean', 'Touchscreen', { value_boolean: true, is_core: true }),
    node(7, 5, 2, 'boolean', 'HDR', { value_boolean: false }),
    node(6, 5, 1, 'number', 'Size', {
      value_number: 6.1,
      unit: 'in',
      icon: `${ICON}/size.svg`,
      is_core: true,
    }),
    node(8, 5, 0, 'number', 'Refresh rate', { value_number: 120, unit: 'Hz' }),
    node(12, 11, 0, 'boolean', '5G', { value_boolean: true, is_core: true }),
    node(13, 11, 1, 'string', 'Bluetooth', { value_string: '5.3' }),
    node(14, 11, 2, 'category', 'Wi-Fi'),
    node(15, 14, 0, 'boolean', 'Wi-Fi 7', { value_boolean: true, is_core: true }),
  ];
}

const PROPERTY_FIELDS = 'type name value unit icon core comment';
/** Three levels of the full tree, and two of the core view. */
const TREE_SELECTION = `
  properties {
    ${PROPERTY_FIELDS}
    children { ${PROPERTY_FIELDS} children { ${PROPERTY_FIELDS} children { name } } }
  }
  coreProperties { ${PROPERTY_FIELDS} children { ${PROPERTY_FIELDS} children { name } } }`;

/** In GB, where names are shown as stored (English). */
const TREE_QUERY = `query ($id: Int!) { product(market: GB, id: $id) { ${TREE_SELECTION} } }`;

/** What a node of the response looks like, with the defaults of the fixture's columns. */
function property(
  type: string,
  name: string,
  fields: Partial<Record<'value' | 'unit' | 'icon' | 'comment', unknown>> & {
    core?: boolean;
    children?: unknown[];
  } = {},
) {
  return {
    type,
    name,
    value: null,
    unit: null,
    icon: null,
    core: false,
    comment: null,
    ...fields,
  };
}

describe(`Product.properties and coreProperties on ${databaseKind}`, () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await insertBasics(db);
    for (let id = 1; id <= 12; id++) await insertProduct(db, id);
    // Product 2 has no properties; every other one has the same tree.
    const products = [1, ...Array.from({ length: 10 }, (_, index) => index + 3)];
    await db.insertInto('product_properties').values(products.flatMap(treeOf)).execute();
    app = createApp({ config: loadConfig({}), database, logger: pino({ level: 'silent' }) });
  });
  afterAll(() => database?.dispose());

  async function graphql(query: string, variables: Record<string, unknown> = {}) {
    const response = await postGraphql(app, query, variables);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: any; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    return body.data;
  }

  it('returns the whole tree, roots and children in position order, each value typed', async () => {
    const { product } = await graphql(TREE_QUERY, { id: 1 });
    expect(product.properties).toEqual([
      property('CATEGORY', 'General', {
        children: [
          property('STRING', 'Colour', {
            value: 'Black',
            core: true,
            comment: 'Also sold in white',
            children: [],
          }),
          property('NUMBER', 'Model year', { value: 2024, children: [] }),
        ],
      }),
      property('CATEGORY', 'Display', {
        icon: `${ICON}/display.svg`,
        children: [
          property('CATEGORY', 'Screen', {
            children: [
              property('NUMBER', 'Refresh rate', { value: 120, unit: 'Hz', children: [] }),
              property('NUMBER', 'Size', {
                value: 6.1,
                unit: 'in',
                icon: `${ICON}/size.svg`,
                core: true,
                children: [],
              }),
              property('BOOLEAN', 'HDR', { value: false, children: [] }),
            ],
          }),
          property('BOOLEAN', 'Touchscreen', { value: true, core: true, children: [] }),
        ],
      }),
      property('CATEGORY', 'Connectivity', {
        core: true,
        children: [
          property('BOOLEAN', '5G', { value: true, core: true, children: [] }),
          property('STRING', 'Bluetooth', { value: '5.3', children: [] }),
          property('CATEGORY', 'Wi-Fi', {
            children: [property('BOOLEAN', 'Wi-Fi 7', { value: true, core: true, children: [] })],
          }),
        ],
      }),
    ]);
  });

  it('lists the core properties in tree order, each with the core properties below it', async () => {
    const { product } = await graphql(TREE_QUERY, { id: 1 });
    expect(product.coreProperties).toEqual([
      property('STRING', 'Colour', {
        value: 'Black',
        core: true,
        comment: 'Also sold in white',
        children: [],
      }),
      property('NUMBER', 'Size', {
        value: 6.1,
        unit: 'in',
        icon: `${ICON}/size.svg`,
        core: true,
        children: [],
      }),
      property('BOOLEAN', 'Touchscreen', { value: true, core: true, children: [] }),
      // Wi-Fi 7 sits under the non-core group Wi-Fi: it is kept, directly below Connectivity.
      property('CATEGORY', 'Connectivity', {
        core: true,
        children: [
          property('BOOLEAN', '5G', { value: true, core: true, children: [] }),
          property('BOOLEAN', 'Wi-Fi 7', { value: true, core: true, children: [] }),
        ],
      }),
    ]);
  });

  it('shows names and word units in the market’s language, standards’ names as stored', async () => {
    await insertProduct(database.db, 13);
    await database.db
      .insertInto('product_properties')
      .values([
        {
          product_id: 13,
          node_id: 101,
          parent_node_id: null,
          position: 0,
          type: 'category',
          name: 'Display',
        },
        {
          product_id: 13,
          node_id: 102,
          parent_node_id: 101,
          position: 0,
          type: 'number',
          name: 'Screen size',
          value_number: 6.1,
          unit: 'inch',
          is_core: true,
        },
        {
          product_id: 13,
          node_id: 103,
          parent_node_id: 101,
          position: 1,
          type: 'number',
          name: 'Warranty',
          value_number: 2,
          unit: 'years',
        },
        {
          product_id: 13,
          node_id: 104,
          parent_node_id: 101,
          position: 2,
          type: 'boolean',
          name: 'Wi-Fi',
          value_boolean: true,
        },
        {
          product_id: 13,
          node_id: 105,
          parent_node_id: 101,
          position: 3,
          type: 'number',
          name: 'Weight',
          value_number: 170,
          unit: 'g',
        },
      ])
      .execute();
    const selection = 'properties { name children { name unit } } coreProperties { name unit }';
    const document = `{
      se: product(market: SE, id: 13) { ${selection} }
      fr: product(market: FR, id: 13) { ${selection} }
      fi: product(market: FI, id: 13) { ${selection} }
      gb: product(market: GB, id: 13) { ${selection} }
      nz: product(market: NZ, id: 13) { ${selection} }
    }`;
    const treeReads = () => database.statements.filter((s) => s.includes('product_properties'));
    database.statements.length = 0;
    const data = await graphql(document);
    // The compiled path answers each root field on its own (aliased root fields are not
    // batched there yet): at most one tree statement each.
    expect(treeReads().length).toBeLessThanOrEqual(5);
    const tree = (group: string, names: [string, string | null][]) => ({
      properties: [{ name: group, children: names.map(([name, unit]) => ({ name, unit })) }],
      coreProperties: [{ name: names[0]![0], unit: names[0]![1] }],
    });
    expect(data.se).toEqual(
      tree('Skärm', [
        ['Skärmstorlek', 'tum'],
        ['Garanti', 'år'],
        ['Wi-Fi', null],
        ['Vikt', 'g'],
      ]),
    );
    expect(data.fr).toEqual(
      tree('Écran', [
        ['Taille d’écran', 'pouces'],
        ['Garantie', 'ans'],
        ['Wi-Fi', null],
        ['Poids', 'g'],
      ]),
    );
    expect(data.fi).toEqual(
      tree('Näyttö', [
        ['Näytön koko', 'tuumaa'],
        ['Takuu', 'vuotta'],
        ['Wi-Fi', null],
        ['Paino', 'g'],
      ]),
    );
    const english = tree('Display', [
      ['Screen size', 'inch'],
      ['Warranty', 'years'],
      ['Wi-Fi', null],
      ['Weight', 'g'],
    ]);
    expect(data.gb).toEqual(english);
    expect(data.nz).toEqual(english);
    // On the resolvers, five markets' trees of one product come from one statement: the
    // loader reads a product's tree once, whatever the market. (Named, so that the response
    // cache does not answer it from the request above.)
    database.statements.length = 0;
    const onResolvers = await withoutCompiledSelections(() => graphql(`query Trees ${document}`));
    expect(onResolvers).toEqual(data);
    expect(treeReads()).toHaveLength(1);
  });

  it('answers empty lists for a product without properties', async () => {
    const { product } = await graphql(TREE_QUERY, { id: 2 });
    expect(product).toEqual({ properties: [], coreProperties: [] });
  });

  it('loads the trees of any number of products, and both views, in one statement', async () => {
    const query = `query ($ids: [Int!]) {
      products(market: SE, ids: $ids) {
        edges { node { productId ${TREE_SELECTION} } }
      }
    }`;
    const run = async (ids: number[]) => {
      database.statements.length = 0;
      const data = await graphql(query, { ids });
      return { data, statements: [...database.statements] };
    };

    const one = await run([1]);
    const ten = await run([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);

    expect(ten.data.products.edges).toHaveLength(10);
    expect(ten.data.products.edges[1].node.properties).toEqual([]);
    expect(ten.data.products.edges[9].node).toEqual({
      ...one.data.products.edges[0].node,
      productId: 10,
    });
    expect(ten.statements).toHaveLength(one.statements.length);
    const propertyReads = ten.statements.filter((s) => s.includes('product_properties'));
    expect(propertyReads).toHaveLength(1);
  });
});
