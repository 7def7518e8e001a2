/**
 * Every date in the seed is an offset from its as-of date, the seed's "today" (`seed --as-of`,
 * by default the day it runs, UTC): the same seed, scale and as-of date give the same rows on
 * any day. Timestamps are UTC.
 */

/** The history's window: 90 daily prices, the last one for the day before the as-of date. */
export const HISTORY_DAYS = 90;

const DAY_MS = 86_400_000;

/** Today in UTC as 'YYYY-MM-DD': the as-of date when none is given. */
export function utcToday(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** Midnight UTC of a 'YYYY-MM-DD' date that exists in the calendar, in ms; NaN otherwise. */
function calendarDayMs(day: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(day) ? Date.parse(`${day}T00:00:00Z`) : NaN;
  // Date.parse accepts 2026-02-30 on some engines; a round trip rejects it everywhere.
  return !Number.isNaN(ms) && new Date(ms).toISOString().slice(0, 10) === day ? ms : NaN;
}

export function isCalendarDay(day: string): boolean {
  return !Number.isNaN(calendarDayMs(day));
}

/** The seed's dates, all counted from its as-of date. */
export class SeedCalendar {
  private readonly asOfMs: number;

  constructor(readonly asOf: string) {
    this.asOfMs = calendarDayMs(asOf);
    if (Number.isNaN(this.asOfMs)) throw new RangeError(`asOf must be YYYY-MM-DD, got "${asOf}"`);
  }

  /** 'YYYY-MM-DD' of the as-of date plus `days` (negative: in the past). */
  day(days: number): string {
    return new Date(this.asOfMs + days * DAY_MS).toISOString().slice(0, 10);
  }

  /** The first day of every product's price history. */
  get historyFirstDay(): string {
    return this.day(-HISTORY_DAYS);
  }

  /** The as-of date at midnight UTC, for rows that need a creation time. */
  get midnight(): string {
    return formatTimestamp(this.asOfMs);
  }

  /** Precomputed timestamps around the as-of date (see TimestampTable). */
  timestamps(minutes: number, days: number): TimestampTable {
    return new TimestampTable(this.asOfMs, minutes, days);
  }
}

/**
 * Timestamps as COPY-ready UTF-8 bytes, precomputed: offers are written tens of millions of
 * times and formatting a Date for each would cost more than the rest of the row.
 */
export class TimestampTable {
  /** Minute-resolution timestamps of the last `minutes` minutes before the as-of date. */
  private readonly recent: Uint8Array[];
  /** Midnight timestamps from `-days` to `+days` around the as-of date. */
  private readonly midnights: Uint8Array[];
  private readonly dayRange: number;

  constructor(asOfMs: number, minutes: number, days: number) {
    this.recent = Array.from({ length: minutes }, (_, minute) =>
      Buffer.from(formatTimestamp(asOfMs - (minute + 1) * 60_000)),
    );
    this.dayRange = days;
    this.midnights = Array.from({ length: 2 * days + 1 }, (_, index) =>
      Buffer.from(formatTimestamp(asOfMs + (index - days) * DAY_MS)),
    );
  }

  /** `minutesAgo` (1-based, within the table) before the as-of date. */
  minutesAgo(minutesAgo: number): Uint8Array {
    return this.recent[Math.min(this.recent.length, Math.max(1, minutesAgo)) - 1] as Uint8Array;
  }

  /** Midnight UTC of the as-of date plus `days`. */
  midnight(days: number): Uint8Array {
    const clamped = Math.min(this.dayRange, Math.max(-this.dayRange, days));
    return this.midnights[clamped + this.dayRange] as Uint8Array;
  }
}

function formatTimestamp(ms: number): string {
  // '2026-10-31 14:23:00+00': what Postgres itself prints, parsed the same in any time zone.
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}+00`;
}
