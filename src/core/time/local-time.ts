import { DateTime, IANAZone } from 'luxon';

/**
 * Local days, weeks and months (extensions-v2 2.3), computed with luxon. Local dates are `YYYY-MM-DD`, clock
 * times `HH:MM`, ISO weeks (Monday first) `2026-W48`, months `2026-11`. A local time that does not exist (the
 * spring-forward gap) means the first instant after the gap; an ambiguous one (fall-back) its first occurrence:
 * luxon's own resolution of `DateTime.fromObject` in a zone.
 */

export const DEFAULT_TIME_ZONE = 'UTC';

/**
 * An IANA zone name as the tz database spells it: `UTC`, or an area of the tz database and a location
 * (`Europe/Madrid`, `America/Argentina/Buenos_Aires`, `Etc/GMT+5`). luxon (ICU) alone accepts more, and PostgreSQL,
 * which computes local days in reports, quiet hours and streaks with `AT TIME ZONE`, reads some of it differently or
 * not at all: ICU's Java-era ids (`AET`, `CTT`, `VST`, `BET`: unknown to PostgreSQL, so one person with such a zone
 * failed the platform-wide digest statement), three-letter names PostgreSQL takes as fixed abbreviations (`PST` is
 * America/Los_Angeles with daylight saving for ICU, a fixed UTC-8 for PostgreSQL; `ACT` is Darwin for one and Acre
 * for the other), `SystemV/...` and zones removed from the tz database (`US/Pacific-New`), bare offsets (`+01:00`,
 * which PostgreSQL reads with the opposite sign) and other spellings (`europe/madrid`). All refused.
 */
const ZONE_NAME =
  /^(UTC|(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)(\/[A-Za-z0-9_+-]+)+)$/;

export function isValidTimeZone(zone: unknown): zone is string {
  return (
    typeof zone === 'string' &&
    zone.length >= 1 &&
    zone.length <= 64 &&
    ZONE_NAME.test(zone) &&
    IANAZone.isValidZone(zone)
  );
}

function inZone(at: Date, zone: string): DateTime {
  return DateTime.fromJSDate(at, { zone });
}

/** The local date of an instant. */
export function localDate(at: Date, zone: string): string {
  return inZone(at, zone).toISODate()!;
}

/** The ISO week key of an instant in a zone (`2026-W48`). */
export function isoWeekKey(at: Date, zone: string): string {
  const d = inZone(at, zone);
  return `${d.weekYear}-W${String(d.weekNumber).padStart(2, '0')}`;
}

/** The month key of an instant in a zone (`2026-11`). */
export function monthKey(at: Date, zone: string): string {
  return inZone(at, zone).toFormat('yyyy-MM');
}

/** The first instant of a local date. */
export function startOfLocalDate(date: string, zone: string): Date {
  return DateTime.fromISO(date, { zone }).startOf('day').toJSDate();
}

/** The first instant of the local day after `date`. */
export function endOfLocalDate(date: string, zone: string): Date {
  return DateTime.fromISO(date, { zone }).plus({ days: 1 }).startOf('day').toJSDate();
}

/** `date` plus `days` (negative to go back), as a local date. */
export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: 'UTC' }).plus({ days }).toISODate()!;
}

/** Whole days from `a` to `b` (local dates). */
export function daysBetween(a: string, b: string): number {
  return Math.round(DateTime.fromISO(b, { zone: 'UTC' }).diff(DateTime.fromISO(a, { zone: 'UTC' }), 'days').days);
}

/** ISO weekday of a local date: 1 Monday .. 7 Sunday. */
export function weekday(date: string): number {
  return DateTime.fromISO(date, { zone: 'UTC' }).weekday;
}

/** Start (inclusive) and end (exclusive) of the ISO week `2026-W48` in a zone. */
export function isoWeekBounds(key: string, zone: string): { start: Date; end: Date } {
  const m = /^(\d{4})-W(\d{2})$/.exec(key);
  if (!m) throw new Error(`Not an ISO week key: ${key}`);
  const start = DateTime.fromObject({ weekYear: Number(m[1]), weekNumber: Number(m[2]), weekday: 1 }, { zone });
  return { start: start.toJSDate(), end: start.plus({ weeks: 1 }).toJSDate() };
}

/** Start (inclusive) and end (exclusive) of the month `2026-11` in a zone. */
export function monthBounds(key: string, zone: string): { start: Date; end: Date } {
  const m = /^(\d{4})-(\d{2})$/.exec(key);
  if (!m) throw new Error(`Not a month key: ${key}`);
  const start = DateTime.fromObject({ year: Number(m[1]), month: Number(m[2]), day: 1 }, { zone });
  return { start: start.toJSDate(), end: start.plus({ months: 1 }).toJSDate() };
}

/** The instant a local date and `HH:MM` clock time denote in a zone (gap: first instant after; overlap: first). */
export function atLocalTime(date: string, time: string, zone: string): Date {
  const [hour, minute] = time.split(':').map(Number);
  const d = DateTime.fromISO(date, { zone }).set({ hour, minute, second: 0, millisecond: 0 });
  if (d.hour === hour && d.minute === minute) return d.toJSDate();
  // In a spring-forward gap luxon moves the time forward by the gap's length; the rule is the gap's end instead:
  // the first instant whose offset is the post-gap one.
  const iana = IANAZone.create(zone);
  const after = iana.offset(d.toMillis());
  let lo = d.toMillis() - 6 * 3_600_000;
  let hi = d.toMillis();
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (iana.offset(mid) === after) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
}

/** The local clock time `HH:MM` of an instant. */
export function localClockTime(at: Date, zone: string): string {
  return inZone(at, zone).toFormat('HH:mm');
}
