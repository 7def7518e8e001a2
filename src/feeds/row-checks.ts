/**
 * One feed row's checks, shared by every format: a record of the columns read becomes a
 * FeedItem, or a RejectedRow naming the first field that fails and why (docs/api.md,
 * "Feeds"). A row's faults never stop the run; the next row is checked the same way.
 */
import type { FeedItem, RejectedRow } from './feed-item.ts';
import type { FeedColumn, FeedMarket, FeedRecord } from './feed-record.ts';
import {
  parseAvailability,
  parseCondition,
  parseDateRange,
  parseGtin,
  parseHttpUrl,
  parsePrice,
  parseShippingText,
  shippingPriceTo,
  type Parsed,
} from './field-values.ts';

const MAX_ITEM_ID_LENGTH = 50;

export function isRejectedRow(row: FeedItem | RejectedRow): row is RejectedRow {
  return 'reason' in row;
}

/**
 * The checks for one feed's rows. An id twice in a feed is the run's to find
 * (src/db/repositories/feed-staging.ts, findDuplicateRows): remembering every id here would
 * hold a large feed's ids in memory.
 */
export function createRowChecks(
  market: FeedMarket,
): (record: FeedRecord) => FeedItem | RejectedRow {
  return (record) => {
    const itemId = record.values.id?.trim() ?? '';
    const reject = (field: string, reason: string, id: string | null = itemId): RejectedRow => ({
      line: record.line,
      itemId: id,
      field,
      reason,
    });
    if (itemId === '') return reject('id', 'missing: id is required', null);
    if (itemId.length > MAX_ITEM_ID_LENGTH) {
      return reject('id', `${itemId.length} characters long: at most ${MAX_ITEM_ID_LENGTH}`, null);
    }
    if (record.extraCells) {
      return reject('row', `${record.extraCells} more cells than the header has columns`);
    }
    try {
      return { line: record.line, itemId, ...checkedFields(record, market) };
    } catch (error) {
      if (error instanceof FieldProblem) return reject(error.field, error.message);
      throw error;
    }
  };
}

/** Why a field fails; caught at the row, which becomes a RejectedRow. */
class FieldProblem extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(problem);
  }
}

function accepted<T>(field: FeedColumn, parsed: Parsed<T>): T {
  if ('problem' in parsed) throw new FieldProblem(field, parsed.problem);
  return parsed.value;
}

/** A column's text, trimmed; an empty cell is as good as no cell. */
function textOf(record: FeedRecord, column: FeedColumn): string | null {
  return record.values[column]?.trim() || null;
}

function requiredText(record: FeedRecord, column: FeedColumn): string {
  const text = textOf(record, column);
  if (text === null) throw new FieldProblem(column, `missing: ${column} is required`);
  return text;
}

function optionalValue<T>(
  record: FeedRecord,
  column: FeedColumn,
  parse: (text: string) => Parsed<T>,
): T | null {
  const text = textOf(record, column);
  return text === null ? null : accepted(column, parse(text));
}

/** Every field but the id, in the order docs/api.md states ("Rejected rows"). */
function checkedFields(record: FeedRecord, market: FeedMarket): Omit<FeedItem, 'line' | 'itemId'> {
  const title = requiredText(record, 'title');
  const link = accepted('link', parseHttpUrl(requiredText(record, 'link')));
  const price = accepted('price', parsePrice(requiredText(record, 'price'), market.currency));
  const sale = checkedSale(record, price, market);
  const availability = accepted(
    'availability',
    parseAvailability(requiredText(record, 'availability')),
  );
  const condition = optionalValue(record, 'condition', parseCondition) ?? 'new';
  const gtin = optionalValue(record, 'gtin', parseGtin);
  const brand = textOf(record, 'brand');
  const mpn = textOf(record, 'mpn');
  const shippingPrice = checkedShippingPrice(record, market);
  const imageLink = optionalValue(record, 'image_link', parseHttpUrl);
  return {
    title,
    link,
    price,
    sale,
    availability,
    condition,
    gtin,
    brand,
    mpn,
    shippingPrice,
    imageLink,
  };
}

/** A sale price at most the price; its period, when stated, must be one even without a sale. */
function checkedSale(record: FeedRecord, price: number, market: FeedMarket): FeedItem['sale'] {
  const salePrice = optionalValue(record, 'sale_price', (text) =>
    parsePrice(text, market.currency),
  );
  const period = optionalValue(record, 'sale_price_effective_date', parseDateRange);
  if (salePrice === null) return null;
  if (salePrice > price) {
    throw new FieldProblem('sale_price', `${salePrice} is above the price ${price}`);
  }
  return { price: salePrice, start: period?.start ?? null, end: period?.end ?? null };
}

function checkedShippingPrice(record: FeedRecord, market: FeedMarket): number | null {
  const entries = record.shippingEntries ?? optionalValue(record, 'shipping', parseShippingText);
  return entries === null ? null : accepted('shipping', shippingPriceTo(entries, market));
}
