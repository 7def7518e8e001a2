/**
 * REST shapes shared by several routes (docs/api.md, "REST routes"): images and logos,
 * prices, shops, offers and property trees, each mapped onto the graph once.
 */
import {
  computed,
  leaf,
  list,
  object,
  responseKeys,
  valueAt,
  type GraphqlObject,
  type Resource,
  type RestField,
} from './resources.ts';

const string = { type: 'string' };
const nullableString = { type: ['string', 'null'] };
const number = { type: 'number' };
const nullableNumber = { type: ['number', 'null'] };
const integer = { type: 'integer' };

export const schemas = { string, nullableString, number, nullableNumber, integer };

/** `{small, large}` from an ImageUrls object at `path` (both null when there is none). */
export function imageUrls(path: string, options: { standard?: boolean; nullable?: boolean } = {}) {
  return object(
    'ImageUrls',
    {
      small: leaf(`${path}.small`, nullableString, { description: 'URL of the small image.' }),
      large: leaf(`${path}.large`, nullableString, { description: 'URL of the large image.' }),
    },
    {
      description: 'An image in two sizes.',
      ...(options.standard === undefined ? {} : { standard: options.standard }),
      ...(options.nullable ? { nullIf: path } : {}),
    },
  );
}

/** `{value, currency}` (and `includingShipping` when asked) from a Money object. */
export function money(path: string, options: { withShipping?: boolean; nullable?: boolean } = {}) {
  return object(
    'Money',
    {
      value: leaf(`${path}.value`, number, { description: 'The amount.' }),
      currency: leaf(`${path}.currency`, string, { description: 'ISO 4217 currency code.' }),
      ...(options.withShipping
        ? {
            includingShipping: leaf(`${path}.includingShipping`, nullableNumber, {
              description: 'The amount with shipping; null when the shop states no shipping cost.',
            }),
          }
        : {}),
    },
    { description: 'A price.', ...(options.nullable ? { nullIf: path } : {}) },
  );
}

/** `{value, currency, start, end}` or null, from a PeriodPrice object. */
export function periodPrice(path: string, description: string) {
  return object(
    'PeriodPrice',
    {
      value: leaf(`${path}.value`, number, { description: 'The amount.' }),
      currency: leaf(`${path}.currency`, string, { description: 'ISO 4217 currency code.' }),
      start: leaf(`${path}.start`, nullableString, { description: 'ISO 8601 start, or null.' }),
      end: leaf(`${path}.end`, nullableString, { description: 'ISO 8601 end, or null.' }),
    },
    { description, nullIf: path },
  );
}

/** `{id, name, logo}` of the shop at `path`. */
export function shop(path: string) {
  return object(
    'Shop',
    {
      id: leaf(`${path}.shopId`, integer, { description: 'Shop id.' }),
      name: leaf(`${path}.name`, string, { description: 'Shop name.' }),
      logo: imageUrls(`${path}.logo`),
    },
    { description: 'The shop.' },
  );
}

/**
 * An offer's URL with the request's `ref` (a variable every operation with offers defines;
 * unset, the URL as stored). The ref goes to the field, not the root (docs/api.md, "Partner ref").
 */
export const URL_WITH_REF = 'url(ref: $ref)';

/** The offers list argument every route uses: available offers, cheapest first. */
export const OFFERS_PATH = 'offers(first: 100).edges.node';

/** An offer as the products routes show it. */
export const productOffer: Resource = {
  name: 'ProductOffer',
  fields: {
    price: money('price', { withShipping: true }),
    salesPrice: periodPrice('salesPrice', 'Campaign price, or null.'),
    memberPrice: periodPrice('memberPrice', 'Members’ price, or null.'),
    originalPrice: periodPrice('originalPrice', 'Price before reduction, or null.'),
    url: leaf(URL_WITH_REF, string, { description: 'Offer URL (carries `ref` when given).' }),
    shop: shop('shop'),
    alternativePrices: list(
      'alternativePrices',
      {
        name: 'AlternativePrice',
        fields: {
          price: money('price'),
          url: leaf(URL_WITH_REF, string, { description: 'Where to buy at this price.' }),
        },
      },
      { description: 'Other prices the shop offers for the item.' },
    ),
    offerName: leaf('offerName', string, { description: 'Offer name.', standard: false }),
    productCondition: leaf('productCondition', string, {
      description: 'Condition.',
      standard: false,
    }),
    stockStatus: leaf('stockStatus', string, { description: 'Stock status.', standard: false }),
  },
};

/** How deep REST property trees go: deeper than any catalogue tree (3 levels today). */
export const PROPERTY_TREE_DEPTH = 6;

const lowerCase = (value: unknown) => String(value).toLowerCase();

/** A property tree node, its children down to `levels` levels. */
export function propertyNode(levels = PROPERTY_TREE_DEPTH): Resource {
  const fields: Record<string, RestField> = {
    type: leaf('type', string, {
      description: 'category, boolean, string or number.',
      convert: lowerCase,
    }),
    name: leaf('name', string, { description: 'Property name.' }),
    value: leaf(
      'value',
      { type: ['boolean', 'string', 'number', 'null'] },
      {
        description: 'The value; null for a category.',
      },
    ),
    unit: leaf('unit', nullableString, { description: 'Unit of the value, or null.' }),
    icon: leaf('icon', nullableString, { description: 'Icon name, or null.' }),
  };
  if (levels > 1) {
    fields.properties = list('children', propertyNode(levels - 1), {
      description: 'Nested properties.',
    });
  }
  return { name: 'Property', fields };
}

/** A core property, its core children down to `levels` levels. */
export function corePropertyNode(levels = PROPERTY_TREE_DEPTH): Resource {
  const fields: Record<string, RestField> = {
    type: computed([], () => 'property', string, { description: 'Always "property".' }),
    name: leaf('name', string, { description: 'Property name.' }),
    value: leaf(
      'value',
      { type: ['boolean', 'string', 'number', 'null'] },
      { description: 'The value.' },
    ),
    core: leaf('core', { type: ['boolean', 'null'] }, { description: 'True for a core property.' }),
    comment: leaf('comment', nullableString, { description: 'Editorial comment, or null.' }),
    unit: leaf('unit', nullableString, { description: 'Unit of the value, or null.' }),
    icon: leaf('icon', nullableString, { description: 'Icon name, or null.' }),
  };
  if (levels > 1) {
    fields.properties = list('children', corePropertyNode(levels - 1), {
      description: 'Nested core properties.',
    });
  }
  return { name: 'CoreProperty', fields };
}

/** A value converted to a string (the spec types several ids as strings). */
export const asString = (value: unknown) => String(value);

/**
 * The spec's category `path`: ancestor id → name, root first. (JSON objects order integer
 * keys numerically; ancestors are created before their descendants, so ids ascend from the
 * root and the two orders agree.)
 */
export function categoryPath(prefix: string) {
  const ancestors = `${prefix}ancestors`;
  return computed(
    [`${ancestors}.categoryId`, `${ancestors}.name`],
    (item: GraphqlObject) => {
      const path: Record<string, string> = {};
      const found = valueAt(item, responseKeys(ancestors));
      for (const ancestor of (found ?? []) as { categoryId: number; name: string }[]) {
        path[String(ancestor.categoryId)] = ancestor.name;
      }
      return path;
    },
    { type: 'object', additionalProperties: { type: 'string' } },
    { description: 'Map of ancestor category id to name, root first.' },
  );
}

/**
 * The identity every product item of suggestions and products starts with:
 * ids as strings, the category with the product's rank in it, the brand, the images.
 */
export function productItemIdentity(): Record<string, RestField> {
  return {
    productId: leaf('productId', string, { description: 'Product id.', convert: asString }),
    productName: leaf('name', string, { description: 'Product name.' }),
    category: object(
      'ProductCategory',
      {
        id: leaf('category.categoryId', string, { description: 'Category id.', convert: asString }),
        name: leaf('category.name', string, { description: 'Category name.' }),
        rank: leaf('rankWithinCategory', integer, { description: 'Rank within the category.' }),
      },
      { description: 'The product’s category and its rank there.' },
    ),
    brand: object(
      'ProductBrand',
      { name: leaf('brand.name', string, { description: 'Brand name.' }) },
      { description: 'The brand, or null.', nullIf: 'brand' },
    ),
    images: imageUrls('images'),
  };
}

/** The fields every product item may add on request. */
export function productItemExtras(): Record<string, RestField> {
  return {
    popularity: leaf('popularity', integer, { description: 'Popularity.', standard: false }),
    productPage: leaf('productPage', string, { description: 'Product page URL.', standard: false }),
    gtins: leaf(
      'gtins',
      { type: 'array', items: string },
      { description: 'GTINs.', standard: false },
    ),
  };
}
