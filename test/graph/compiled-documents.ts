/**
 * Documents over the shapes the compiled path covers (product, products by ids, category →
 * products → offers → shop), generated from a seed: random selections with aliases,
 * fragments, @include/@skip on variables, pages (first/after/last/before, cursors of every
 * kind, out of range), orders, price-trend filters, markets, the deprecated root `ref` and
 * `url(ref:)`, and fields the compiler leaves to the resolvers mixed in.
 */
import { offsetToCursor } from '@pothos/plugin-relay';

export interface CatalogueSample {
  productIds: number[];
  /** Leaf categories with a few listed products. */
  leaves: number[];
  /** Categories with children (their products are their subtree's). */
  parents: number[];
  slugs: string[];
}

export interface GeneratedDocument {
  query: string;
  variables: Record<string, unknown>;
}

/** mulberry32: a small seeded generator, so a failing document is the same on every run. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const chance = (p: number) => next() < p;
  return { pick, chance };
}

type Random = ReturnType<typeof generator>;

/** A document's aliases so far, and whether it mixes in what the resolvers answer. */
interface Counter {
  n: number;
  mixed: boolean;
}

/** Scalar fields, as one string. */
const words = (text: string) => text.split(' ');

const MARKETS = ['SE', 'NO', 'DK', 'FI', 'FR', 'GB', 'NZ'];
const PERIOD = 'amount value currency start end';

/** Some of `fields`, each perhaps aliased or under a directive; never none. */
function someOf(random: Random, listed: readonly string[], counter: Counter): string {
  // `!`: a field the compiler leaves to its resolver, only in mixed documents.
  const fields = listed.flatMap((field) =>
    field.startsWith('!') ? (counter.mixed ? [field.slice(1)] : []) : [field],
  );
  const chosen = fields.filter(() => random.chance(0.45));
  if (chosen.length === 0) chosen.push(random.pick(fields));
  return chosen
    .map((field) => {
      const plain = /^\w+(?![\w:])/.test(field); // not a spread, not aliased already
      const alias = plain && random.chance(0.15) ? `a${++counter.n}: ` : '';
      const directive = random.chance(0.1)
        ? random.pick([' @include(if: $yes)', ' @skip(if: $no)', ' @include(if: $no)'])
        : '';
      // After the name and arguments, before the selection.
      return `${alias}${field.replace(/^((?:\w+: )?\w+(?:\([^)]*\))?)/, `$1${directive}`)}`;
    })
    .join(' ');
}

function pageArguments(random: Random, orders: readonly string[], counter: Counter): string {
  const parts: string[] = [];
  const kinds = ['first', 'first', 'first', 'none', 'after', 'before'];
  const kind = random.pick(counter.mixed ? [...kinds, 'last', 'bad'] : kinds);
  if (kind === 'first' || kind === 'after') parts.push(`first: ${random.pick([0, 1, 2, 3, 5])}`);
  if (kind === 'after') parts.push(`after: "${offsetToCursor(random.pick([0, 1, 2, 4, 40]))}"`);
  if (kind === 'last') parts.push(`last: ${random.pick([1, 2])}`);
  if (kind === 'before') parts.push(`before: "${offsetToCursor(3)}", last: 2`);
  if (kind === 'bad') parts.push('first: 2, after: "not-a-cursor"');
  const order = orders.filter((o) => counter.mixed || o !== 'RELEVANCE');
  if (order.length > 0 && random.chance(0.5)) parts.push(`orderBy: ${random.pick(order)}`);
  return parts.length > 0 ? `(${parts.join(', ')})` : '';
}

function connection(random: Random, node: string, counter: Counter): string {
  return someOf(
    random,
    [
      'totalCount',
      'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }',
      `edges { cursor node { ${node} } }`,
      `edges { node { ${node} } }`,
    ],
    counter,
  );
}

const SHOP_FIELDS = [
  ...words('shopId id name url market'),
  'logo { small large }',
  '!offers(first: 1) { totalCount }',
];

function offer(random: Random, counter: Counter): string {
  return someOf(
    random,
    [
      ...words('offerId id market itemId offerName url'),
      '!tagged: url(ref: "partner-1")',
      'productCondition',
      'stockStatus',
      'price { amount value currency includingShipping }',
      `memberPrice { ${PERIOD} }`,
      `salesPrice { ${PERIOD} }`,
      `originalPrice { ${PERIOD} }`,
      'updatedAt',
      `shop { ${someOf(random, SHOP_FIELDS, counter)} }`,
      '!alternativePrices { url price { value } }',
      '!product { productId name }',
    ],
    counter,
  );
}

function product(random: Random, counter: Counter, depth: number): string {
  const offers = `offers${pageArguments(random, ['PRICE', 'PRICE_INCLUDING_SHIPPING'], counter)} { ${connection(random, offer(random, counter), counter)} }`;
  return someOf(
    random,
    [
      ...words('productId id name description popularity rankWithinCategory market'),
      'images { small large }',
      'brand { id brandId name }',
      ...(depth < 2 ? [`category { ${category(random, counter, depth + 1)} }`] : []),
      offers,
      '...ProductBits',
      '!productPage',
      '!offerSummary { offerCount }',
      '__typename',
    ],
    counter,
  );
}

function category(random: Random, counter: Counter, depth: number): string {
  const orders = ['POPULARITY', 'PRICE', 'PRICE_TREND', 'RELEVANCE'];
  const trend = random.chance(0.15) ? ', priceTrend: { gte: -20 }' : '';
  const args =
    pageArguments(random, orders, counter).replace(/\)$/, `${trend})`) ||
    (trend ? `(${trend.slice(2)})` : '');
  const products =
    depth < 2
      ? [`products${args} { ${connection(random, product(random, counter, depth + 1), counter)} }`]
      : [];
  return someOf(
    random,
    [
      ...words('categoryId id slug name description isLeaf'),
      'logo { small large }',
      '!url',
      '!productsTotal',
      '!parent { categoryId }',
      ...products,
    ],
    counter,
  );
}

const FRAGMENT = 'fragment ProductBits on Product { productId ... on Product { name } }';

function rootField(random: Random, sample: CatalogueSample, counter: Counter) {
  const ref = counter.mixed && random.chance(0.3) ? ', ref: "root-ref"' : '';
  switch (random.pick(['product', 'products', 'category', 'slug', 'categories'])) {
    case 'product':
      return `product(market: $market, id: ${random.pick([...sample.productIds, 999999])}${ref}) { ${product(random, counter, 0)} }`;
    case 'products': {
      const ids = sample.productIds.filter(() => random.chance(0.1));
      if (random.chance(0.3)) ids.push(ids[0] ?? 1, 999999);
      const page = pageArguments(random, [], counter).replace(/^\(|\)$/g, '');
      return `products(market: $market, ids: [${ids.join(', ')}]${page ? `, ${page}` : ''}${ref}) { ${connection(random, product(random, counter, 0), counter)} }`;
    }
    case 'categories': {
      const page = pageArguments(random, [], counter).replace(/^\(|\)$/g, '');
      return `categories(market: $market${page ? `, ${page}` : ''}${ref}) { ${connection(random, category(random, counter, 0), counter)} }`;
    }
    case 'category':
      return `category(market: $market, id: ${random.pick([...sample.leaves, ...sample.parents])}${ref}) { ${category(random, counter, 0)} }`;
    default:
      return `category(market: $market, slug: "${random.pick(sample.slugs)}"${ref}) { ${category(random, counter, 0)} }`;
  }
}

export function generatedDocuments(sample: CatalogueSample, count: number): GeneratedDocument[] {
  const random = generator(24);
  return Array.from({ length: count }, (_, index) => {
    const counter = { n: 0, mixed: index % 2 === 1 };
    const roots = Array.from(
      { length: random.chance(0.2) ? 2 : 1 },
      (_, index) => `r${index}: ${rootField(random, sample, counter)}`,
    );
    const body = roots.join('\n');
    const fragment = body.includes('...ProductBits') ? `\n${FRAGMENT}` : '';
    // Only the variables the document uses: an unused one is a validation error.
    const flags = (['yes', 'no'] as const).filter((name) => body.includes(`$${name}`));
    const declared = flags.map((name) => `, $${name}: Boolean!`).join('');
    return {
      query: `query Generated($market: Market!${declared}) {\n${body}\n}${fragment}`,
      variables: {
        market: random.pick(MARKETS),
        ...Object.fromEntries(flags.map((name) => [name, name === 'yes'])),
      },
    };
  });
}
