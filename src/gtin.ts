/**
 * GS1 Global Trade Item Numbers: the check digit and the lengths GS1 issues. The database
 * holds the same rule in SQL (`gtin_is_valid`) for what it stores; feeds and the sample
 * generator use this one.
 */

/** GTIN-8, GTIN-12 (UPC-A), GTIN-13 (EAN) and GTIN-14. */
export const GTIN_LENGTHS: readonly number[] = [8, 12, 13, 14];

/** The GS1 check digit of a GTIN's body (all digits but the last): weights 3 and 1 alternating from the right. */
export function gtinCheckDigit(body: string): number {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const digit = body.charCodeAt(body.length - 1 - i) - 48;
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** Whether `digits` (digits only, a GTIN length) ends in its right check digit. */
export function hasValidGtinCheckDigit(digits: string): boolean {
  return gtinCheckDigit(digits.slice(0, -1)) === Number(digits.slice(-1));
}

/** The GTIN-14 form: leading zeros keep every length's check digit valid. */
export function gtin14(digits: string): string {
  return digits.padStart(14, '0');
}
