import { addDays, daysBetween, localDate, monthBounds, monthKey } from '@/core/time/local-time';

/** A window of time: `[start, end)`. */
export interface Window {
  start: Date;
  end: Date;
}

/** The UTC day of an instant (AI quota windows are UTC, extensions-v2 2.3). */
export function utcDay(at: Date): Window {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
  return { start, end: new Date(start.getTime() + 86_400_000) };
}

/** The UTC month of an instant. */
export function utcMonth(at: Date): Window {
  return monthBounds(monthKey(at, 'UTC'), 'UTC');
}

/** Whole seconds from `now` to the window's end, at least 1 (the `Retry-After` of a reached quota). */
export function secondsUntil(end: Date, now: Date): number {
  return Math.max(1, Math.ceil((end.getTime() - now.getTime()) / 1000));
}

/** The most days a usage period may span. */
export const MAX_PERIOD_DAYS = 366;

/** A period of whole UTC dates, both inclusive. */
export interface Period {
  from: string;
  to: string;
}

/**
 * The period asked for: `from` and `to` as given, or the current UTC month for what is missing (a missing `from` is
 * the first day of `to`'s month, a missing `to` the last day of `from`'s). Null when it is backwards or spans more
 * than 366 days.
 */
export function resolvePeriod(query: { from?: string; to?: string }, now: Date): Period | null {
  const anchor = query.from ?? query.to ?? localDate(now, 'UTC');
  const month = monthBounds(anchor.slice(0, 7), 'UTC');
  const from = query.from ?? localDate(month.start, 'UTC');
  const to = query.to ?? localDate(new Date(month.end.getTime() - 1), 'UTC');
  const days = daysBetween(from, to) + 1;
  return days >= 1 && days <= MAX_PERIOD_DAYS ? { from, to } : null;
}

/** The instants of a period: from the start of `from` to the end of `to`. */
export function periodWindow(period: Period): Window {
  return {
    start: new Date(`${period.from}T00:00:00.000Z`),
    end: new Date(`${addDays(period.to, 1)}T00:00:00.000Z`),
  };
}

/** Every date of the period, in order. */
export function datesOf(period: Period): string[] {
  const n = daysBetween(period.from, period.to) + 1;
  return Array.from({ length: n }, (_, i) => addDays(period.from, i));
}
