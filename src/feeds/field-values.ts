/**
 * The feed's value formats, read from text: money (`1299.00 SEK`), a sale's period
 * (ISO 8601 `start/end`), availability and condition as Google spells them, shipping
 * entries (`country:region:service:price`), GTINs and http(s) links. Each answers the value or
 * why it is not one; ./row-checks.ts names the field.
 */
import {
  FEED_AVAILABILITIES,
  FEED_CONDITIONS,
  type FeedAvailability,
  type FeedCondition,
} from './feed-item.ts';
import { GTIN_LENGTHS, gtin14, hasValidGtinCheckDigit } from '../gtin.ts';
import type { FeedMarket, ShippingEntry } from './feed-record.ts';

export type Parsed<T> = { value: T } | { problem: string };

const MONEY = /^(\d+(?:\.(\d+))?)\s*([A-Za-z]{3})$/;

/** An amount with at most two decimals followed by the market's currency code; zero (free shipping) included. */
function parseMoney(text: string, currency: string): Parsed<number> {
  const match = MONEY.exec(text);
  if (!match) {
    return { problem: `"${text}" is not an amount and a currency, like 1299.00 ${currency}` };
  }
  const [, amount, decimals, code] = match as unknown as [
    string,
    string,
    string | undefined,
    string,
  ];
  if (code.toUpperCase() !== currency) {
    return { problem: `in ${code.toUpperCase()}, not the market's currency ${currency}` };
  }
  if ((decimals?.length ?? 0) > 2) return { problem: `"${text}" has more than two decimals` };
  return { value: Number(amount) };
}

/** An item's price or sale price: money above zero. */
export function parsePrice(text: string, currency: string): Parsed<number> {
  const money = parseMoney(text, currency);
  if ('value' in money && money.value === 0) return { problem: `"${text}" is not above zero` };
  return money;
}

// Google's example is 2016-02-24T11:07+0100; seconds, fractions, `Z`, `+01:00` and a bare
// date are ISO 8601 too. Without an offset the time is UTC.
const INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** An instant of a period; a bare date is the start of that day, or for an end its end. */
function parseInstant(text: string, isEnd: boolean): number | null {
  const match = INSTANT.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, offset] = match;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  // Date.UTC rolls 2024-02-30 over to March: a day the month lacks is no date.
  if (date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return null;
  if (hour === undefined) return date.getTime() + (isEnd ? 86_400_000 : 0);
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59) return null;
  const zone =
    offset === undefined || offset === 'Z' ? 'Z' : offset.replace(/(\d{2})(\d{2})$/, '$1:$2');
  const time = Date.parse(`${year}-${month}-${day}T${hour}:${minute}:${second ?? '00'}${zone}`);
  return Number.isNaN(time) ? null : time;
}

/** `start/end`, the start before the end; both as UTC ISO 8601 instants. */
export function parseDateRange(text: string): Parsed<{ start: string; end: string }> {
  const parts = text.split('/');
  const start = parts.length === 2 ? parseInstant(parts[0]!.trim(), false) : null;
  const end = parts.length === 2 ? parseInstant(parts[1]!.trim(), true) : null;
  if (start === null || end === null) {
    return { problem: `"${text}" is not an ISO 8601 period start/end` };
  }
  if (start >= end) return { problem: `"${text}" ends before it starts` };
  return { value: { start: new Date(start).toISOString(), end: new Date(end).toISOString() } };
}

/** `in_stock` and Google's other spelling `in stock`, in any case. */
export function parseAvailability(text: string): Parsed<FeedAvailability> {
  const value = text.toLowerCase().replace(/ /g, '_');
  return (FEED_AVAILABILITIES as readonly string[]).includes(value)
    ? { value: value as FeedAvailability }
    : { problem: `"${text}" is not one of ${FEED_AVAILABILITIES.join(', ')}` };
}

export function parseCondition(text: string): Parsed<FeedCondition> {
  const value = text.toLowerCase();
  return (FEED_CONDITIONS as readonly string[]).includes(value)
    ? { value: value as FeedCondition }
    : { problem: `"${text}" is not one of ${FEED_CONDITIONS.join(', ')}` };
}

export function parseHttpUrl(text: string): Parsed<string> {
  let protocol: string;
  try {
    protocol = new URL(text).protocol;
  } catch {
    return { problem: `"${text}" is not a URL` };
  }
  return protocol === 'http:' || protocol === 'https:'
    ? { value: text }
    : { problem: `"${text}" is not an http(s) URL` };
}

/** 8, 12, 13 or 14 digits with a right check digit, as GTIN-14 (zeros in front). */
export function parseGtin(text: string): Parsed<string> {
  if (!/^\d+$/.test(text) || !GTIN_LENGTHS.includes(text.length)) {
    return { problem: `"${text}" is not a GTIN: 8, 12, 13 or 14 digits` };
  }
  return hasValidGtinCheckDigit(text)
    ? { value: gtin14(text) }
    : { problem: `"${text}" has a wrong check digit` };
}

/** A text feed's `shipping`: entries apart by commas, each `country:region:service:price`. */
export function parseShippingText(text: string): Parsed<ShippingEntry[]> {
  const entries: ShippingEntry[] = [];
  for (const entry of text.split(',')) {
    const parts = entry.split(':').map((part) => part.trim());
    if (parts.length !== 4) {
      return { problem: `"${entry.trim()}" is not country:region:service:price` };
    }
    const [country, region, service, price] = parts as [string, string, string, string];
    entries.push({ country, region, service, price });
  }
  return { value: entries };
}

/**
 * The cheapest shipping to the market's country, or null when no entry names it (entries
 * for other countries are another market's business).
 */
export function shippingPriceTo(
  entries: readonly ShippingEntry[],
  market: FeedMarket,
): Parsed<number | null> {
  let cheapest: number | null = null;
  for (const entry of entries) {
    if (entry.country.toUpperCase() !== market.country) continue;
    const price = parseMoney(entry.price, market.currency);
    if ('problem' in price) return price;
    cheapest = cheapest === null ? price.value : Math.min(cheapest, price.value);
  }
  return { value: cheapest };
}
