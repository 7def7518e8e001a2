/**
 * The shapes the vocabulary is written in: plain data that the generator interprets, so that
 * adding a category means adding data, not code.
 */

/**
 * A model-name pattern: `{22-26}` picks an integer in the range, `{a|b|}` one of the
 * alternatives (an empty one included), e.g. `Galaxy S{22-26}{| Ultra|+}`.
 */
export type ModelPattern = string;

/**
 * A product trait: shown in its name and reused by its properties. A trait with a label is
 * picked per product; one without (a phone's screen size) is the model family's, picked once
 * for all its members, since their names do not tell them apart.
 */
export interface TraitSpec {
  key: string;
  values: readonly (number | string)[];
  /** How the value appears in the product name; absent: not in the name. */
  label?: (value: number | string) => string;
  /** Price multiplier step per position in `values` (later values cost more). */
  priceStep?: number;
}

export type ValueSpec =
  /** The product's trait of that key. */
  | { trait: string }
  | { oneOf: readonly (string | number)[] }
  /** A number from min to max in steps of step. */
  | { range: readonly [min: number, max: number, step: number] }
  /** A boolean, true with this probability. */
  | { probability: number }
  /** The product's brand name. */
  | { brand: true }
  /** One of the brand's values where it has its own (Apple: iOS), else one of `otherwise`. */
  | { byBrand: Readonly<Record<string, readonly string[]>>; otherwise: readonly string[] }
  /** The year the product's model family came out (vocabulary/model-years.ts). */
  | { releaseYear: true }
  /**
   * A size the model's name gives (`XPS 13`: `{ 13: 13.3 }`), else one of `otherwise` picked
   * once for the model family.
   */
  | { sizeInModel: Readonly<Record<number, number>>; otherwise: readonly number[] };

export interface PropertyLeafSpec {
  name: string;
  type: 'boolean' | 'string' | 'number';
  value: ValueSpec;
  unit?: string;
  /** An icon key; the generator turns it into an icon URL. */
  icon?: string;
  /** Share of products that state this property; 1 when absent. */
  presence?: number;
  /** A core property, shown with this comment. */
  core?: string;
}

export interface PropertyGroupSpec {
  group: string;
  icon?: string;
  /** Share of products that have this group at all; 1 when absent. */
  presence?: number;
  children: readonly PropertySpec[];
}

export type PropertySpec = PropertyLeafSpec | PropertyGroupSpec;

export interface LeafCategorySpec {
  slug: string;
  name: string;
  description: string;
  /** Relative share of the catalogue's products. */
  weight: number;
  /** Base price range in euros before traits, drawn log-uniformly. */
  priceEur: readonly [min: number, max: number];
  /** Brand → model-name patterns of its product lines in this category. */
  lines: Readonly<Record<string, readonly ModelPattern[]>>;
  traits: readonly TraitSpec[];
  /** A sentence about the product; `{name}` and `{brand}` are filled in. */
  blurbs: readonly string[];
  properties: readonly PropertyGroupSpec[];
}

export interface CategoryGroupSpec {
  slug: string;
  name: string;
  description: string;
  leaves: readonly LeafCategorySpec[];
}

export interface RootCategorySpec {
  slug: string;
  name: string;
  description: string;
  groups: readonly CategoryGroupSpec[];
}

export function isGroup(spec: PropertySpec): spec is PropertyGroupSpec {
  return 'group' in spec;
}
