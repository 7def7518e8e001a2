/**
 * A category's pictogram: simple line drawings on a 100 × 100 grid, one per group of the
 * catalogue's tree (and its roots, and a leaf a group's drawing would misname), found by the
 * category itself or its nearest ancestor that has one; a category none covers gets a parcel. Each has its own tint, so a page of products reads by kind.
 */

export interface Pictogram {
  /** SVG elements drawn with the pictogram's stroke, no fill. */
  shapes: string;
  /** Background tint and stroke colour. */
  tint: string;
  ink: string;
}

const PHONE = '<rect x="32" y="12" width="36" height="76" rx="6"/><path d="M45 80h10"/>';
const SCREEN = '<rect x="12" y="20" width="76" height="48" rx="3"/><path d="M40 84h20M50 68v16"/>';
const HEADPHONES =
  '<path d="M20 66V52a30 30 0 0 1 60 0v14"/><rect x="14" y="60" width="16" height="26" rx="5"/><rect x="70" y="60" width="16" height="26" rx="5"/>';
const LAPTOP = '<rect x="22" y="22" width="56" height="38" rx="3"/><path d="M10 74h80l-8-14H18z"/>';
const CAMERA =
  '<rect x="12" y="30" width="76" height="48" rx="6"/><circle cx="50" cy="54" r="15"/><path d="M34 30l6-10h20l6 10"/>';
const GAMEPAD =
  '<path d="M26 34h48c10 0 16 20 16 30 0 10-10 12-16 4l-8-8H34l-8 8c-6 8-16 6-16-4 0-10 6-30 16-30z"/><path d="M30 48v12M24 54h12"/><circle cx="68" cy="50" r="2"/><circle cx="74" cy="58" r="2"/>';
const KITCHEN =
  '<path d="M20 40h60v34c0 8-6 14-14 14H34c-8 0-14-6-14-14z"/><path d="M12 46h8M80 46h8M36 30c0-8 8-8 8-16M56 30c0-8 8-8 8-16"/>';
const HOUSEHOLD = '<path d="M50 14l36 30v42H14V44z"/><rect x="40" y="60" width="20" height="26"/>';
const TOOLS =
  '<path d="M20 80l38-38M58 42c-6-10 0-26 16-26l-8 10 4 8 8 4 10-8c0 16-16 22-26 16"/><path d="M14 86l12-12"/>';
const TOY =
  '<rect x="18" y="42" width="64" height="40" rx="3"/><rect x="26" y="32" width="14" height="10"/><rect x="60" y="32" width="14" height="10"/>';
const WATCH =
  '<circle cx="50" cy="50" r="22"/><path d="M50 38v12l8 6M40 30l4-18h12l4 18M40 70l4 18h12l4-18"/>';
const BICYCLE =
  '<circle cx="26" cy="62" r="16"/><circle cx="74" cy="62" r="16"/><path d="M26 62l16-28h22l10 28M42 34l14 28h-30M38 28h10M64 34l-4-10h10"/>';
const PLUG = '<path d="M38 14v20M62 14v20M28 34h44v18c0 12-10 20-22 20s-22-8-22-20zM50 72v16"/>';
const PARCEL = '<path d="M50 12l36 18v40L50 88 14 70V30zM14 30l36 18 36-18M50 48v40"/>';

function pictogram(shapes: string, tint: string, ink: string): Pictogram {
  return { shapes, tint, ink };
}

const BLUE = ['#e3efff', '#1f4e8c'] as const;
const GREEN = ['#e4f5e9', '#1e6b3a'] as const;
const AMBER = ['#fff1da', '#8a4b00'] as const;

/** By category slug: the seed vocabulary's groups and roots (seeds/vocabulary). */
const BY_SLUG: ReadonlyMap<string, Pictogram> = new Map([
  ['phones-and-wearables', pictogram(PHONE, ...BLUE)],
  ['headphones', pictogram(HEADPHONES, ...BLUE)],
  ['tv-and-audio', pictogram(SCREEN, ...BLUE)],
  ['computers', pictogram(LAPTOP, ...BLUE)],
  ['cameras-and-photo', pictogram(CAMERA, ...BLUE)],
  ['gaming', pictogram(GAMEPAD, ...BLUE)],
  ['electronics', pictogram(PLUG, ...BLUE)],
  ['kitchen-appliances', pictogram(KITCHEN, ...GREEN)],
  ['household-appliances', pictogram(HOUSEHOLD, ...GREEN)],
  ['tools', pictogram(TOOLS, ...GREEN)],
  ['home-and-garden', pictogram(HOUSEHOLD, ...GREEN)],
  ['toys', pictogram(TOY, ...AMBER)],
  ['watches', pictogram(WATCH, ...AMBER)],
  ['sports-and-outdoor', pictogram(BICYCLE, ...AMBER)],
  ['toys-and-leisure', pictogram(TOY, ...AMBER)],
]);

const FALLBACK = pictogram(PARCEL, '#eeeeee', '#444444');

/** The pictogram of the nearest category (its own slug first, then its ancestors') that has one. */
export function pictogramOf(categorySlugs: readonly string[]): Pictogram {
  for (const slug of categorySlugs) {
    const found = BY_SLUG.get(slug);
    if (found) return found;
  }
  return FALLBACK;
}
