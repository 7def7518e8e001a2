/**
 * GTIN-13s that are valid (GS1 mod-10 check digit) and unique without remembering the ones
 * already handed out: the number part is a bijection of (product, index).
 */
import { gtinCheckDigit } from '../src/gtin.ts';

/** Real GS1 prefixes (country of the issuing member organisation), chosen per brand. */
const GS1_PREFIXES = [
  '400',
  '401',
  '403',
  '405',
  '450',
  '490',
  '500',
  '501',
  '540',
  '570',
  '571',
  '590',
  '690',
  '693',
  '730',
  '731',
  '735',
  '760',
  '800',
  '840',
  '871',
  '880',
  '890',
  '940',
];

const NINE_DIGITS = 1_000_000_000;
// A unit modulo 10^9 (odd, not a multiple of 5): multiplying by it permutes 0..10^9−1, which
// scatters consecutive products over the number space.
const SCATTER = 387_420_489;

/**
 * The `index`-th GTIN (0 or 1) of a product; the same inputs always give the same GTIN and
 * different (product, index) pairs never collide.
 */
export function productGtin(
  productId: number,
  index: number,
  brandIndex: number,
  seedOffset: number,
): string {
  const serial = productId * 2 + index;
  if (index < 0 || index > 1 || serial >= NINE_DIGITS) throw new RangeError('GTIN out of range');
  // serial < 2·10^6 and SCATTER < 4·10^8: the product stays far below 2^53, exact in a double.
  const scattered = (serial * SCATTER + seedOffset) % NINE_DIGITS;
  const body = `${GS1_PREFIXES[brandIndex % GS1_PREFIXES.length]}${String(scattered).padStart(9, '0')}`;
  return `${body}${gtinCheckDigit(body)}`;
}
