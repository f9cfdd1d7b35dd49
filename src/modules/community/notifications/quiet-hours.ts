import { addDays, atLocalTime, localClockTime, localDate } from '@/core/time/local-time';

export interface QuietHours {
  enabled: boolean;
  /** `HH:MM` in the person's zone. */
  start: string;
  end: string;
}

export const DEFAULT_QUIET_HOURS: Readonly<QuietHours> = { enabled: false, start: '22:00', end: '07:00' };

/** `HH:MM`, 24 h. */
export const CLOCK_TIME = /^([01][0-9]|2[0-3]):[0-5][0-9]$/;

/**
 * When a push or a notification email may go out (extensions-v2 13.2): `at` itself outside the window, else the
 * window's end in the person's zone. `start > end` crosses midnight; an end inside a spring-forward gap is the first
 * instant after the gap, an ambiguous one its first occurrence (`atLocalTime`).
 */
export function quietHoursEnd(at: Date, zone: string, quiet: QuietHours): Date {
  if (!quiet.enabled || quiet.start === quiet.end) return at;
  const now = localClockTime(at, zone);
  const today = localDate(at, zone);
  if (quiet.start < quiet.end) {
    // Same-day window: [start, end).
    return now >= quiet.start && now < quiet.end ? atLocalTime(today, quiet.end, zone) : at;
  }
  // Across midnight: [start, 24:00) and [00:00, end).
  if (now >= quiet.start) return atLocalTime(addDays(today, 1), quiet.end, zone);
  if (now < quiet.end) return atLocalTime(today, quiet.end, zone);
  return at;
}

/** Milliseconds to wait from `at` (0 outside the window). */
export function quietHoursDelayMs(at: Date, zone: string, quiet: QuietHours): number {
  return Math.max(0, quietHoursEnd(at, zone, quiet).getTime() - at.getTime());
}
