/**
 * 90 days of daily lowest prices for a product in a market, ending at today's lowest price.
 *
 * Daily lowest prices are step functions (shops change prices now and then, not every day),
 * so a series is a few constant runs: small moves at random days, and for about a fifth of
 * the products one decisive step, down (the price fell: a positive trend, "cheaper than
 * usual") or up (a negative one). The level before the step is solved for so that the 90-day
 * mean lands on the trend the product was given; the trend itself is computed from these rows
 * by refreshProductMarketSummaries, never here.
 */
import { HISTORY_DAYS } from '../calendar.ts';
import { roundShopPrice } from '../economics.ts';
import { encoded, type CopyBuffer } from '../load/copy-buffer.ts';
import type { MarketFrame } from '../frame.ts';
import { Random, STREAM } from '../random.ts';

/** Shares of products whose price fell (trend +10 … +35 %) or rose (−3 … −15 %) lately. */
const FELL = 0.14;
const ROSE = 0.08;

/**
 * Writes the price_history row: product, market, first day (`firstDay`, the calendar's
 * historyFirstDay as bytes), the 90 prices.
 */
export function writePriceHistory(
  productId: number,
  market: MarketFrame,
  seed: number,
  currentCents: number,
  firstDay: Uint8Array,
  out: CopyBuffer,
): void {
  const random = new Random(seed, STREAM.history, productId, market.index);
  const kind = random.next();
  const trend =
    kind < FELL
      ? random.between(10, 35)
      : kind < FELL + ROSE
        ? -random.between(3, 15)
        : random.between(-2.5, 3);
  // Recently listed products have no prices for their first days.
  const missing = random.chance(0.05) ? random.int(5, 45) : 0;
  const priced = HISTORY_DAYS - missing;
  const targetMean = currentCents / (1 - trend / 100);

  // The last `recent` days are at today's level: after the decisive step when there is one,
  // else just since the last small move.
  const recent = Math.abs(trend) > 3 ? random.int(2, Math.floor(priced * 0.5)) : random.int(1, 10);
  const earlier = priced - recent;
  const earlierLevel = (priced * targetMean - recent * currentCents) / earlier;

  // Columns in TABLE_COLUMNS.price_history order; the array as a literal, each run of equal
  // prices written once and copied.
  out.int(productId).bytes(encoded(market.code)).bytes(firstDay).rawByte(OPEN_BRACE);
  if (missing > 0) {
    const start = out.mark();
    out.raw('NULL,').repeatSince(start, missing);
  }
  // Earlier days: a few small moves around the solved level.
  let day = 0;
  while (day < earlier) {
    const run = Math.min(earlier - day, random.int(4, 30));
    const jittered = earlierLevel * random.between(0.985, 1.015);
    // Rounded the way the market's shops round their prices.
    const level = roundShopPrice(jittered, market.currency, random.next());
    const start = out.mark();
    out.rawCents(level).rawByte(COMMA).repeatSince(start, run);
    day += run;
  }
  const start = out.mark();
  out.rawCents(currentCents).rawByte(COMMA).repeatSince(start, recent);
  // The last element carries no separator.
  out.drop(1).rawByte(CLOSE_BRACE).rawByte(TAB).end();
}

const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const COMMA = 44;
const TAB = 9;
