/**
 * Every date in the seed is an offset from one fixed "today", so the same seed gives the same
 * rows on any day. Timestamps are UTC.
 */

/** Seed data's "today": fixed so that the same seed and scale give identical data on any day. */
export const SEED_REFERENCE_DATE = '2026-11-01';

/** The history's window: 90 daily prices, the last one for the day before the reference date. */
export const HISTORY_DAYS = 90;

const DAY_MS = 86_400_000;
const referenceMs = Date.parse(`${SEED_REFERENCE_DATE}T00:00:00Z`);

/** 'YYYY-MM-DD' of the reference date plus `days` (negative: in the past). */
export function dayFromReference(days: number): string {
  return new Date(referenceMs + days * DAY_MS).toISOString().slice(0, 10);
}

/** The first day of every product's price history. */
export const HISTORY_FIRST_DAY = dayFromReference(-HISTORY_DAYS);

/**
 * Timestamps as COPY-ready UTF-8 bytes, precomputed: offers are written tens of millions of
 * times and formatting a Date for each would cost more than the rest of the row.
 */
export class TimestampTable {
  /** Minute-resolution timestamps of the last `minutes` minutes before the reference date. */
  private readonly recent: Uint8Array[];
  /** Midnight timestamps from `-days` to `+days` around the reference date. */
  private readonly midnights: Uint8Array[];
  private readonly dayRange: number;

  constructor(minutes: number, days: number) {
    this.recent = Array.from({ length: minutes }, (_, minute) =>
      Buffer.from(formatTimestamp(referenceMs - (minute + 1) * 60_000)),
    );
    this.dayRange = days;
    this.midnights = Array.from({ length: 2 * days + 1 }, (_, index) =>
      Buffer.from(formatTimestamp(referenceMs + (index - days) * DAY_MS)),
    );
  }

  /** `minutesAgo` (1-based, within the table) before the reference date. */
  minutesAgo(minutesAgo: number): Uint8Array {
    return this.recent[Math.min(this.recent.length, Math.max(1, minutesAgo)) - 1] as Uint8Array;
  }

  /** Midnight UTC of the reference date plus `days`. */
  midnight(days: number): Uint8Array {
    const clamped = Math.min(this.dayRange, Math.max(-this.dayRange, days));
    return this.midnights[clamped + this.dayRange] as Uint8Array;
  }
}

function formatTimestamp(ms: number): string {
  // '2026-10-31 14:23:00+00': what Postgres itself prints, parsed the same in any time zone.
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}+00`;
}

/** The reference date at midnight UTC, for rows that need a creation time. */
export const REFERENCE_TIMESTAMP = formatTimestamp(referenceMs);
