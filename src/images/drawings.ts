/**
 * The pictures themselves, as SVG text: a product's (its category's pictogram, its brand and
 * model name) and a shop's logo (its name on a colour its name gives). Pure functions of what
 * they show, so the same product gives the same bytes, and so the same ETag, every time.
 */
import type { ImageSize } from './image-urls.ts';
import { pictogramOf } from './pictograms.ts';

export interface ProductPictureFacts {
  name: string;
  brand: string | null;
  /** The product's category slug, then its ancestors', nearest first. */
  categorySlugs: readonly string[];
}

/** Pixel width (and height) of each size; both draw the same 400 × 400 picture. */
const PIXELS: Record<ImageSize, number> = { small: 200, large: 800 };

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/** Text as SVG character data or an attribute value: names may hold `&`, `<` and quotes. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => XML_ESCAPES[character]!);
}

const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif"';
const MODEL_LINE_CHARACTERS = 24;
const MODEL_LINES = 3;

export function productPicture(facts: ProductPictureFacts, size: ImageSize): string {
  const { shapes, tint, ink } = pictogramOf(facts.categorySlugs);
  const pixels = PIXELS[size];
  const brand = facts.brand ?? '';
  const lines = wrap(modelName(facts.name, brand), MODEL_LINE_CHARACTERS, MODEL_LINES);
  const modelText = lines
    .map((line, index) => `<tspan x="200" y="${300 + index * 32}">${escapeXml(line)}</tspan>`)
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${pixels}" height="${pixels}" viewBox="0 0 400 400" role="img">` +
    `<title>${escapeXml(facts.name)}</title>` +
    `<rect width="400" height="400" fill="${tint}"/>` +
    `<g transform="translate(110 36) scale(1.8)" fill="none" stroke="${ink}" stroke-width="4" stroke-linecap="round" stroke-linejoin="round">${shapes}</g>` +
    `<text x="200" y="256" text-anchor="middle" ${FONT} font-size="28" font-weight="700" fill="${ink}">${escapeXml(brand)}</text>` +
    `<text text-anchor="middle" ${FONT} font-size="24" fill="#222222">${modelText}</text>` +
    `</svg>`
  );
}

/** The name without the brand it starts with (`Sony WH-1000XM6` under `Sony`: `WH-1000XM6`). */
function modelName(name: string, brand: string): string {
  if (brand === '' || !name.toLowerCase().startsWith(`${brand.toLowerCase()} `)) return name;
  return name.slice(brand.length).trim();
}

/** Words in lines of at most `width` characters, at most `count` lines, `…` where cut. */
function wrap(text: string, width: number, count: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const joined = line === '' ? word : `${line} ${word}`;
    if ([...joined].length <= width) {
      line = joined;
      continue;
    }
    if (line !== '') lines.push(line);
    line = word;
  }
  if (line !== '') lines.push(line);
  const shown = lines.slice(0, count).map((kept) => cut(kept, width));
  if (lines.length > count) shown[count - 1] = `${cut(shown[count - 1]!, width - 1)}…`;
  return shown;
}

function cut(text: string, width: number): string {
  const characters = [...text];
  return characters.length <= width ? text : `${characters.slice(0, width - 1).join('')}…`;
}

/** A shop's logo: its name in white on a colour drawn from the name (FNV-1a → hue). */
export function shopLogo(name: string): string {
  let hash = 0x811c9dc5;
  for (const character of name) {
    hash = Math.imul(hash ^ character.codePointAt(0)!, 0x01000193);
  }
  const hue = (hash >>> 0) % 360;
  const fontSize = Math.min(32, Math.floor(400 / Math.max(1, [...name].length)));
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="80" viewBox="0 0 240 80" role="img">` +
    `<title>${escapeXml(name)}</title>` +
    `<rect width="240" height="80" rx="12" fill="hsl(${hue}, 55%, 36%)"/>` +
    `<text x="120" y="40" dominant-baseline="central" text-anchor="middle" ${FONT} font-size="${fontSize}" font-weight="700" fill="#ffffff">${escapeXml(name)}</text>` +
    `</svg>`
  );
}
