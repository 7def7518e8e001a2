/**
 * PostGraphile's own documents for the P workloads (bench/workloads.ts), asking its generated
 * schema (bench/postgraphile/preset.ts) for the rows the gateway's documents ask for, and the
 * reading of its answers into those rows (bench/rows.ts).
 *
 * What the gateway says with its own arguments is said here with the generated ones: a
 * category's products in a market are its `product_market_summaries` rows of that market
 * (there is one exactly for each product with an available offer there), by popularity, ties
 * by product id; a product's offers are its `available_offers` rows of the market, cheapest
 * first, ties by id. The gateway's products of a category are those of the categories below
 * it too: the workloads only list leaf categories, where the two are the same. The generated
 * schema has no "ids in (…)": 20 products are 20 aliased `productByRowId` fields.
 */
import { aliasedFields } from '../aliases.ts';
import { categoryRow, nameRow, offerRow, productRow } from '../rows.ts';

/** How much of a category page a document asks for. */
export interface PageShape {
  products: number;
  offers: number;
}

const offersOf = (offers: number) => `availableOffersByProductId(
      condition: { market: $market }, orderBy: [PRICE_ASC, ROW_ID_ASC], first: ${offers}) {
      nodes { rowId price shopByShopId { rowId name } }
    }`;

const categoryPage = ({ products, offers }: PageShape) => `rowId
  productMarketSummariesByCategoryId(
    condition: { market: $market }, orderBy: [POPULARITY_DESC, PRODUCT_ID_ASC], first: ${products}) {
    nodes { productByProductId { rowId name ${offersOf(offers)} } }
  }`;

export function categoryPageDocument(operationName: string, shape: PageShape): string {
  return `query ${operationName}($market: String!, $category: Int!) {
  categoryByRowId(rowId: $category) { ${categoryPage(shape)} }
}`;
}

/** `count` categories, variables `$c0` … */
export function categoryTreeDocument(operationName: string, count: number, shape: PageShape) {
  const { variables, fields } = aliasedFields(
    'c',
    count,
    (id) => `categoryByRowId(rowId: ${id}) { ${categoryPage(shape)} }`,
  );
  return `query ${operationName}($market: String!, ${variables}) {
  ${fields}
}`;
}

/** `count` products by id, variables `$p0` …, each with its category and offers. */
export function productsByIdDocument(operationName: string, count: number, offers: number) {
  const { variables, fields } = aliasedFields(
    'p',
    count,
    (id) =>
      `productByRowId(rowId: ${id}) { rowId name categoryByCategoryId { rowId name } ${offersOf(offers)} }`,
  );
  return `query ${operationName}($market: String!, ${variables}) {
  ${fields}
}`;
}

export function productNameDocument(operationName: string): string {
  return `query ${operationName}($id: Int!) { productByRowId(rowId: $id) { name } }`;
}

interface Named {
  rowId: number;
  name: string;
}

interface Offer {
  rowId: number;
  price: string;
  shopByShopId: Named;
}

interface Product extends Named {
  categoryByCategoryId?: Named;
  availableOffersByProductId: { nodes: Offer[] };
}

interface CategoryPage {
  rowId: number;
  productMarketSummariesByCategoryId: { nodes: { productByProductId: Product }[] };
}

function productRows(product: Product): string[] {
  const category = product.categoryByCategoryId;
  return [
    productRow(product.rowId, product.name, category && { id: category.rowId }),
    ...product.availableOffersByProductId.nodes.map((offer) =>
      offerRow(offer.rowId, offer.price, {
        id: offer.shopByShopId.rowId,
        name: offer.shopByShopId.name,
      }),
    ),
  ];
}

/**
 * The root fields' values in document order, unknown ids (null) left out as the gateway
 * leaves them out of `products(ids:)`.
 */
const present = <T>(data: Record<string, T | null>): T[] =>
  Object.values(data).filter((value): value is T => value !== null);

/** The rows of PostGraphile's answers, by the shape of their root fields. */
export const postgraphileRows = {
  /** Every root field a category page (P1, P2), in document order. */
  categoryPages(data: Record<string, CategoryPage | null>): string[] {
    return present(data).flatMap((category) => [
      categoryRow(category.rowId),
      ...category.productMarketSummariesByCategoryId.nodes.flatMap((summary) =>
        productRows(summary.productByProductId),
      ),
    ]);
  },
  /** Every root field a product with category and offers (P3), in document order. */
  products(data: Record<string, Product | null>): string[] {
    return present(data).flatMap(productRows);
  },
  /** The one product's name (P4). */
  name(data: { productByRowId: { name: string } }): string[] {
    return [nameRow(data.productByRowId.name)];
  },
};
