/**
 * Category names, and the property names and word units of specification trees, in each
 * market's language on every route that shows them (GraphQL, the REST routes, the /v1 paths),
 * English in gb and nz; slugs unchanged; category search still finding both languages. And
 * every name the seed's vocabulary writes has a translation.
 */
import { describe, expect, it } from 'vitest';
import { CATEGORY_TREE, isGroup, type PropertySpec } from '../../seeds/vocabulary/index.ts';
import { propertyNameIn } from '../../src/localisation/property-names.ts';
import { MARKET_CODES } from '../../src/markets.ts';
import { CATEGORY_TRANSLATIONS } from '../../src/search/category-translations.ts';
import {
  TEXT_SEARCH_CONFIGS,
  type TextSearchConfig,
} from '../../src/search/text-search-configs.ts';
import { useRestCatalogue } from '../helpers/rest.ts';

const rest = useRestCatalogue();

const MOBILE_PHONES = {
  se: 'Mobiltelefoner',
  no: 'Mobiltelefoner',
  dk: 'Mobiltelefoner',
  fi: 'Matkapuhelimet',
  fr: 'Téléphones portables',
  gb: 'Mobile phones',
  nz: 'Mobile phones',
} as const;

/** The market's language as the markets table says. */
async function languageOf(market: string): Promise<TextSearchConfig> {
  const row = await rest.catalogue.database.db
    .selectFrom('markets')
    .select('search_config')
    .where('code', '=', market as never)
    .executeTakeFirstOrThrow();
  return String(row.search_config) as TextSearchConfig;
}

/** The first product of the mobile-phones category with an offer in every market. */
async function phoneId(): Promise<number> {
  const data = await rest.graphqlData(
    '{ products(market: SE, category: "mobile-phones", first: 1) { edges { node { productId } } } }',
  );
  return data.products.edges[0].node.productId;
}

describe('names in the market’s language', () => {
  it.each(MARKET_CODES)('%s: GraphQL category names, slugs unchanged', async (market) => {
    const data = await rest.graphqlData(
      `{ category(market: ${market.toUpperCase()}, slug: "mobile-phones") { slug name ancestors { slug name } } }`,
    );
    expect(data.category.slug).toBe('mobile-phones');
    expect(data.category.name).toBe(MOBILE_PHONES[market]);
    const language = await languageOf(market);
    for (const ancestor of data.category.ancestors) {
      expect(ancestor.name).toBe(
        language === 'english'
          ? ancestor.name
          : CATEGORY_TRANSLATIONS[ancestor.slug as string]![language],
      );
    }
    expect(data.category.ancestors.map((a: { slug: string }) => a.slug)).toEqual([
      'electronics',
      'phones-and-wearables',
    ]);
  });

  it.each(MARKET_CODES)('%s: every REST route and /v1 path shows them', async (market) => {
    const id = await phoneId();
    const expected = MOBILE_PHONES[market];
    const [products, byId, suggestions, categories, v1Product, v1Category, partner] =
      await Promise.all([
        rest.get(`/products?market=${market}&filter[category]=mobile-phones&limit=1`),
        rest.get(`/products/${id}?market=${market}`),
        rest.get(`/suggestions?market=${market}&filter[category]=mobile-phones&limit=1`),
        rest.get(`/categories?market=${market}&q=${encodeURIComponent(expected)}`),
        rest.get(`/v1/products/${id}?market=${market}&fields=category,properties`),
        rest.get(`/v1/categories/mobile-phones?market=${market}`),
        rest.partner(`/partner-search/products?market=${market}&ref=demo-ref&productIds=${id}`),
      ]);
    expect(products.body.data[0].category.name).toBe(expected);
    expect(byId.body.category.name).toBe(expected);
    expect(suggestions.body.data[0].category.name).toBe(expected);
    expect(categories.body.data.map((c: { name: string }) => c.name)).toContain(expected);
    expect(v1Product.body.items[0].category.name).toBe(expected);
    expect(v1Category.body.items[0].name).toBe(expected);
    expect(partner.body.data[0].category.name).toBe(expected);

    const language = await languageOf(market);
    const groups = byId.body.properties.map((group: { name: string }) => group.name);
    expect(groups[0]).toBe(propertyNameIn(language, 'General'));
    expect(v1Product.body.items[0].properties.map((p: { name: string }) => p.name)).toEqual(groups);
    const general = byId.body.properties[0].properties.map((p: { name: string }) => p.name);
    expect(general).toContain(propertyNameIn(language, 'Release year'));
  });

  it('category search still finds a category by its English and its market name', async () => {
    for (const q of ['robot vacuums', 'aspirateurs robots']) {
      const response = await rest.get(`/categories?market=fr&q=${encodeURIComponent(q)}`);
      expect(response.body.data[0]).toMatchObject({
        slug: 'robot-vacuums',
        name: 'Aspirateurs robots',
      });
    }
  });
});

describe('the vocabulary’s names all have translations', () => {
  /** Standards' and brands' names, the same in every language. */
  const SAME_EVERYWHERE = new Set([
    'GPS',
    'HDR',
    'HDR10+',
    'Dolby Vision',
    'Dolby Atmos',
    'Wi-Fi',
    'Bluetooth',
    'HDMI eARC',
  ]);

  it('every category has a name in every language', () => {
    const walk = (node: { slug: string }) => {
      const names = CATEGORY_TRANSLATIONS[node.slug];
      expect(names && Object.keys(names).sort(), node.slug).toEqual(
        TEXT_SEARCH_CONFIGS.filter((config) => config !== 'english').sort(),
      );
    };
    for (const root of CATEGORY_TREE) {
      walk(root);
      for (const group of root.groups) {
        walk(group);
        group.leaves.forEach(walk);
      }
    }
  });

  it('every property and group name, in some language other than English', () => {
    const untranslated = new Set<string>();
    const walk = (spec: PropertySpec) => {
      const name = isGroup(spec) ? spec.group : spec.name;
      const languages = TEXT_SEARCH_CONFIGS.filter((config) => config !== 'english');
      if (languages.every((language) => propertyNameIn(language, name) === name)) {
        untranslated.add(name);
      }
      if (isGroup(spec)) spec.children.forEach(walk);
    };
    for (const root of CATEGORY_TREE) {
      for (const group of root.groups) {
        for (const leaf of group.leaves) leaf.properties.forEach(walk);
      }
    }
    expect([...untranslated].sort()).toEqual([...SAME_EVERYWHERE].sort());
  });
});
