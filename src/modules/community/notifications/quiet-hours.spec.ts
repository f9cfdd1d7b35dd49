import { quietHoursDelayMs, quietHoursEnd } from './quiet-hours';

const on = (start: string, end: string) => ({ enabled: true, start, end });

describe('quiet hours (extensions-v2 13.2)', () => {
  it('is now when disabled or outside the window', () => {
    const at = new Date('2026-11-23T23:30:00Z');
    expect(quietHoursEnd(at, 'UTC', { enabled: false, start: '22:00', end: '07:00' })).toEqual(at);
    expect(quietHoursEnd(new Date('2026-11-23T12:00:00Z'), 'UTC', on('22:00', '07:00'))).toEqual(
      new Date('2026-11-23T12:00:00Z'),
    );
  });

  it('across midnight: before midnight waits for tomorrow’s end, after midnight for today’s', () => {
    expect(quietHoursEnd(new Date('2026-11-23T23:30:00Z'), 'UTC', on('22:00', '07:00'))).toEqual(
      new Date('2026-11-24T07:00:00Z'),
    );
    expect(quietHoursEnd(new Date('2026-11-24T03:00:00Z'), 'UTC', on('22:00', '07:00'))).toEqual(
      new Date('2026-11-24T07:00:00Z'),
    );
    // Exactly at start is inside; exactly at end is outside.
    expect(quietHoursEnd(new Date('2026-11-23T22:00:00Z'), 'UTC', on('22:00', '07:00'))).toEqual(
      new Date('2026-11-24T07:00:00Z'),
    );
    expect(quietHoursDelayMs(new Date('2026-11-24T07:00:00Z'), 'UTC', on('22:00', '07:00'))).toBe(0);
  });

  it('same-day window [start, end)', () => {
    expect(quietHoursEnd(new Date('2026-11-23T13:15:00Z'), 'UTC', on('13:00', '14:00'))).toEqual(
      new Date('2026-11-23T14:00:00Z'),
    );
    expect(quietHoursDelayMs(new Date('2026-11-23T14:00:00Z'), 'UTC', on('13:00', '14:00'))).toBe(0);
    expect(quietHoursDelayMs(new Date('2026-11-23T12:59:59Z'), 'UTC', on('13:00', '14:00'))).toBe(0);
  });

  it('in the person’s zone', () => {
    // 23:30 in Madrid (UTC+1 in November) is 22:30 UTC; the window ends at 07:00 Madrid = 06:00 UTC.
    expect(quietHoursEnd(new Date('2026-11-23T22:30:00Z'), 'Europe/Madrid', on('22:00', '07:00'))).toEqual(
      new Date('2026-11-24T06:00:00Z'),
    );
  });

  it('DST: an end inside the spring-forward gap is the first instant after the gap', () => {
    // Europe/Madrid jumps from 02:00 to 03:00 on 2026-03-29. A window ending 02:30 ends at 03:00 local = 01:00 UTC.
    const at = new Date('2026-03-28T23:30:00Z'); // 00:30 local, inside 23:00-02:30
    expect(quietHoursEnd(at, 'Europe/Madrid', on('23:00', '02:30'))).toEqual(new Date('2026-03-29T01:00:00Z'));
  });

  it('DST: across the fall-back night the end is the local time in the new offset', () => {
    // 2026-10-25 Madrid goes back from UTC+2 to UTC+1 at 03:00. 22:00 local on the 24th = 20:00 UTC; the window
    // 22:00-07:00 ends at 07:00 local on the 25th = 06:00 UTC (9 hours of wall time, 10 real hours).
    expect(quietHoursEnd(new Date('2026-10-24T20:30:00Z'), 'Europe/Madrid', on('22:00', '07:00'))).toEqual(
      new Date('2026-10-25T06:00:00Z'),
    );
  });
});
