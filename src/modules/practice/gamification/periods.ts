import { DateTime } from 'luxon';
import { ApiError } from '@/core/http/api-error';
import { isoWeekBounds, isoWeekKey, monthBounds, monthKey } from '@/core/time/local-time';
import type { BoardWindow } from './leaderboard.store';

export type Period = 'week' | 'month' | 'all';

export interface ResolvedPeriod extends BoardWindow {
  period: Period;
}

/** The current week or month of each zone, as computed last: reused while `now` stays inside it. */
const currentPeriods = new Map<string, { key: string; start: Date; end: Date }>();
/** Bound of `currentPeriods` (zones in use are few; past it the map starts over). */
const CURRENT_PERIODS_SIZE = 1_000;

/**
 * The leaderboard's period in the organization's zone (extensions-v2 3.3): the current one, or a past one by key
 * (at most 52 weeks or 24 months back); a future, malformed or too old key is 422.
 */
export function resolvePeriod(
  organizationId: string,
  period: Period,
  key: string | undefined,
  zone: string,
  now: Date,
): ResolvedPeriod {
  if (period === 'all') {
    if (key !== undefined) throw invalid('period_key is not used with period all');
    return { organizationId, period, key: 'all', start: null, end: null };
  }
  // The current period (no key: every leaderboard read by default) needs no calendar work while `now` is inside
  // the one computed last for this zone.
  const cacheKey = `${period} ${zone}`;
  if (key === undefined) {
    const known = currentPeriods.get(cacheKey);
    if (known && now >= known.start && now < known.end) {
      return { organizationId, period, key: known.key, start: new Date(known.start), end: new Date(known.end) };
    }
  }
  const current = period === 'week' ? isoWeekKey(now, zone) : monthKey(now, zone);
  const chosen = key ?? current;
  const shape = period === 'week' ? /^(\d{4})-W(\d{2})$/ : /^(\d{4})-(\d{2})$/;
  const m = shape.exec(chosen);
  if (!m)
    throw invalid(
      `period_key must be ${period === 'week' ? 'an ISO week such as 2026-W47' : 'a month such as 2026-10'}`,
    );
  const [year, n] = [Number(m[1]), Number(m[2])];
  const valid =
    period === 'week'
      ? n >= 1 &&
        DateTime.fromObject({ weekYear: year, weekNumber: n, weekday: 1 }, { zone }).isValid &&
        n <= DateTime.fromObject({ year, month: 12, day: 28 }, { zone }).weeksInWeekYear
      : n >= 1 && n <= 12;
  if (!valid) throw invalid('period_key is not a valid period');
  const bounds = period === 'week' ? isoWeekBounds(chosen, zone) : monthBounds(chosen, zone);
  const currentBounds = period === 'week' ? isoWeekBounds(current, zone) : monthBounds(current, zone);
  if (bounds.start > currentBounds.start) throw invalid('period_key is in the future');
  const oldest = DateTime.fromJSDate(currentBounds.start, { zone })
    .minus(period === 'week' ? { weeks: 52 } : { months: 24 })
    .toJSDate();
  if (bounds.start < oldest)
    throw invalid(`period_key is more than ${period === 'week' ? '52 weeks' : '24 months'} back`);
  if (key === undefined) {
    if (currentPeriods.size >= CURRENT_PERIODS_SIZE) currentPeriods.clear();
    currentPeriods.set(cacheKey, { key: chosen, start: new Date(bounds.start), end: new Date(bounds.end) });
  }
  return { organizationId, period, key: chosen, start: bounds.start, end: bounds.end };
}

function invalid(message: string): ApiError {
  return ApiError.validation([{ field: 'period_key', message }]);
}
