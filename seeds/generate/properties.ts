/**
 * A product's property tree from its category's templates: groups ('category' nodes without a
 * value) holding boolean, string and number leaves, some of them nested one level further.
 * Node ids number the tree depth first from 1, so a parent's id is below its children's.
 */
import { Random, STREAM } from '../random.ts';
import { encoded, type CopyBuffer } from '../load/copy-buffer.ts';
import {
  IMAGE_CDN,
  isGroup,
  type PropertyLeafSpec,
  type PropertySpec,
} from '../vocabulary/index.ts';
import { hashText, type ProductDraft } from './product.ts';

/** A node that made it into this product's tree, with its value when it is a leaf. */
interface ChosenNode {
  spec: PropertySpec;
  value?: number | string | boolean;
  children: ChosenNode[];
}

const iconUrls = new Map<string, string>();
function iconUrl(key: string | undefined): string | null {
  if (key === undefined) return null;
  let url = iconUrls.get(key);
  if (url === undefined) {
    url = `${IMAGE_CDN}/icons/${key}.svg`;
    iconUrls.set(key, url);
  }
  return url;
}

function vocabularyOrNull(out: CopyBuffer, text: string | null | undefined): CopyBuffer {
  return text === null || text === undefined ? out.null() : out.bytes(encoded(text));
}

function decimalsOf(step: number): number {
  const text = String(step);
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** Whole numbers standing alone in a model name ("XPS 13", "ROG Zephyrus G14", not "5450"). */
const MODEL_NUMBER = /(?<!\d)\d{1,2}(?!\d)/g;

function sizeOfModel(
  source: { sizeInModel: Readonly<Record<number, number>>; otherwise: readonly number[] },
  draft: ProductDraft,
): number {
  for (const [number] of draft.shortName.matchAll(MODEL_NUMBER)) {
    const size = source.sizeInModel[Number(number)];
    if (size !== undefined) return size;
  }
  // The family's own pick: the same for every member, whatever else its products draw.
  return source.otherwise[hashText(draft.shortName) % source.otherwise.length]!;
}

function leafValue(
  spec: PropertyLeafSpec,
  draft: ProductDraft,
  random: Random,
): number | string | boolean {
  const source = spec.value;
  if ('trait' in source) {
    const value = draft.traits.get(source.trait);
    if (value === undefined) throw new Error(`vocabulary: no trait "${source.trait}"`);
    return value;
  }
  if ('oneOf' in source) return random.pick(source.oneOf);
  if ('probability' in source) return random.chance(source.probability);
  if ('brand' in source) return draft.brandName;
  if ('byBrand' in source) return random.pick(source.byBrand[draft.brandName] ?? source.otherwise);
  if ('releaseYear' in source) return draft.releaseYear;
  if ('sizeInModel' in source) return sizeOfModel(source, draft);
  const [min, max, step] = source.range;
  const steps = Math.floor((max - min) / step + 1e-9);
  // Rounded to the step's decimals: 0.1 steps would otherwise give 1.2000000000000002.
  return Number((min + step * random.int(0, steps)).toFixed(decimalsOf(step)));
}

function choose(spec: PropertySpec, draft: ProductDraft, random: Random): ChosenNode | null {
  if (spec.presence !== undefined && !random.chance(spec.presence)) return null;
  if (!isGroup(spec)) {
    const value = leafValue(spec, draft, random);
    if (typeof value !== spec.type) {
      throw new Error(`vocabulary: "${spec.name}" is a ${spec.type} but got ${typeof value}`);
    }
    return { spec, value, children: [] };
  }
  const children: ChosenNode[] = [];
  for (const child of spec.children) {
    const chosen = choose(child, draft, random);
    if (chosen) children.push(chosen);
  }
  // A group with nothing left in it is not shown at all.
  return children.length ? { spec, children } : null;
}

export function writeProperties(draft: ProductDraft, seed: number, out: CopyBuffer): number {
  const random = new Random(seed, STREAM.properties, draft.id);
  const roots: ChosenNode[] = [];
  for (const group of draft.leaf.spec.properties) {
    const chosen = choose(group, draft, random);
    if (chosen) roots.push(chosen);
  }
  let nextId = 1;
  const write = (node: ChosenNode, parentId: number, position: number) => {
    const id = nextId++;
    const spec = node.spec;
    // Columns in TABLE_COLUMNS.product_properties order; parent 0 is a root.
    out.int(draft.id).int(id);
    if (parentId === 0) out.null();
    else out.int(parentId);
    out.int(position);
    // Every string here comes from the vocabulary: a fixed set, encoded once.
    if (isGroup(spec)) {
      out.bytes(encoded('category')).bytes(encoded(spec.group)).null().null().null().null();
      vocabularyOrNull(out, iconUrl(spec.icon)).bool(false).null();
    } else {
      const value = node.value;
      out.bytes(encoded(spec.type)).bytes(encoded(spec.name));
      if (typeof value === 'boolean') out.bool(value).null().null();
      else if (typeof value === 'string') out.null().bytes(encoded(value)).null();
      else if (typeof value === 'number') out.null().null().number(value);
      else out.null().null().null();
      vocabularyOrNull(out, spec.unit);
      vocabularyOrNull(out, iconUrl(spec.icon));
      if (spec.core === undefined) out.bool(false).null();
      else out.bool(true).bytes(encoded(spec.core));
    }
    out.end();
    node.children.forEach((child, index) => write(child, id, index));
  };
  roots.forEach((root, index) => write(root, 0, index));
  return nextId - 1;
}
