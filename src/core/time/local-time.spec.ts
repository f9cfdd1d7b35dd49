import { IANAZone } from 'luxon';
import {
  addDays,
  atLocalTime,
  daysBetween,
  isoWeekBounds,
  isoWeekKey,
  isValidTimeZone,
  localClockTime,
  localDate,
  monthBounds,
  monthKey,
  startOfLocalDate,
  weekday,
} from './local-time';

describe('local time', () => {
  it('accepts IANA zones and refuses anything else', () => {
    expect(isValidTimeZone('Europe/Madrid')).toBe(true);
    expect(isValidTimeZone('UTC')).toBe(true);
    expect(isValidTimeZone('Mars/Olympus')).toBe(false);
    expect(isValidTimeZone('Etc/GMT+5')).toBe(true);
    expect(isValidTimeZone('America/Argentina/Buenos_Aires')).toBe(true);
    // Offsets are zones to recent ICU, not IANA names (and PostgreSQL would read them with the sign flipped).
    for (const offset of ['+01:00', '-05:30', '+0100', '+01']) expect(isValidTimeZone(offset)).toBe(false);
    expect(isValidTimeZone('Europe/Madrid ')).toBe(false);
    expect(isValidTimeZone(`Europe/${'x'.repeat(58)}`)).toBe(false);
    expect(isValidTimeZone('')).toBe(false);
    expect(isValidTimeZone(`Europe/${'x'.repeat(60)}`)).toBe(false);
    expect(isValidTimeZone(3)).toBe(false);
  });

  it('refuses what ICU accepts but the tz database does not spell so (PostgreSQL reads it otherwise or not at all)', () => {
    // ICU's Java-era ids, three-letter names PostgreSQL takes as fixed abbreviations, ICU-only areas, removed zones,
    // other spellings.
    for (const zone of [
      'AET',
      'CTT',
      'VST',
      'BET',
      'PST',
      'ACT',
      'IST',
      'EST',
      'GMT',
      'SystemV/AST4',
      'US/Pacific-New',
    ]) {
      expect(IANAZone.isValidZone(zone)).toBe(true);
      expect(isValidTimeZone(zone)).toBe(false);
    }
    expect(isValidTimeZone('europe/madrid')).toBe(false);
    expect(isValidTimeZone('US/Eastern')).toBe(false);
    for (const zone of ['Asia/Kolkata', 'Europe/Kyiv', 'Etc/UTC', 'Antarctica/Troll', 'Indian/Maldives']) {
      expect(isValidTimeZone(zone)).toBe(true);
    }
  });

  it('gives the local date, week and month of an instant', () => {
    const at = new Date('2026-11-29T23:30:00Z'); // Sunday in UTC, Monday 00:30 in Madrid
    expect(localDate(at, 'UTC')).toBe('2026-11-29');
    expect(localDate(at, 'Europe/Madrid')).toBe('2026-11-30');
    expect(isoWeekKey(at, 'UTC')).toBe('2026-W48');
    expect(isoWeekKey(at, 'Europe/Madrid')).toBe('2026-W49');
    expect(monthKey(new Date('2026-11-30T23:30:00Z'), 'Europe/Madrid')).toBe('2026-12');
    expect(isoWeekKey(new Date('2027-01-01T12:00:00Z'), 'UTC')).toBe('2026-W53');
  });

  it('computes day and period bounds in a zone', () => {
    expect(startOfLocalDate('2026-11-23', 'Europe/Madrid').toISOString()).toBe('2026-11-22T23:00:00.000Z');
    expect(isoWeekBounds('2026-W48', 'UTC')).toEqual({
      start: new Date('2026-11-23T00:00:00Z'),
      end: new Date('2026-11-30T00:00:00Z'),
    });
    expect(monthBounds('2026-03', 'Europe/Madrid')).toEqual({
      start: new Date('2026-02-28T23:00:00Z'),
      end: new Date('2026-03-31T22:00:00Z'),
    });
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(daysBetween('2026-03-28', '2026-03-30')).toBe(2);
    expect(weekday('2026-11-23')).toBe(1);
  });

  it('a local day across the spring-forward change has 23 hours', () => {
    const start = startOfLocalDate('2026-03-29', 'Europe/Madrid');
    const next = startOfLocalDate('2026-03-30', 'Europe/Madrid');
    expect(next.getTime() - start.getTime()).toBe(23 * 3_600_000);
  });

  it('a time in the spring-forward gap means the first instant after it', () => {
    // Madrid skips 02:00-03:00 on 2026-03-29 (01:00Z is 03:00 CEST).
    expect(atLocalTime('2026-03-29', '02:30', 'Europe/Madrid').toISOString()).toBe('2026-03-29T01:00:00.000Z');
    expect(atLocalTime('2026-03-29', '03:30', 'Europe/Madrid').toISOString()).toBe('2026-03-29T01:30:00.000Z');
  });

  it('an ambiguous fall-back time means its first occurrence', () => {
    // 02:30 happens twice on 2026-10-25 in Madrid: first at 00:30Z (CEST), again at 01:30Z (CET).
    expect(atLocalTime('2026-10-25', '02:30', 'Europe/Madrid').toISOString()).toBe('2026-10-25T00:30:00.000Z');
    expect(localClockTime(new Date('2026-10-25T01:30:00Z'), 'Europe/Madrid')).toBe('02:30');
  });
});
