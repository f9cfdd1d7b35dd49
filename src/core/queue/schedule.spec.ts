import { defineSchedule, definedSchedules, isDue, minuteOf, type ScheduleDefinition } from './schedule';

const at = (iso: string): Date => new Date(iso);
const def = (cron: string): ScheduleDefinition => ({ name: `test.${cron}`, cron });

/** The minutes of [from, from + minutes) at which `cron` is due, as `HH:MM` UTC (date prefix when it changes). */
function dueMinutes(cron: string, from: string, minutes: number): string[] {
  const start = at(from).getTime();
  const out: string[] = [];
  for (let i = 0; i < minutes; i++) {
    const minute = new Date(start + i * 60_000);
    if (isDue(def(cron), minute)) out.push(minute.toISOString().slice(0, 16));
  }
  return out;
}

describe('schedules: cron evaluation at minutes (UTC)', () => {
  it('`* * * * *` is due every minute', () => {
    expect(dueMinutes('* * * * *', '2026-03-01T23:58:00Z', 4)).toEqual([
      '2026-03-01T23:58',
      '2026-03-01T23:59',
      '2026-03-02T00:00',
      '2026-03-02T00:01',
    ]);
  });

  it('`*/15 * * * *` is due at :00, :15, :30 and :45 only', () => {
    expect(dueMinutes('*/15 * * * *', '2026-03-01T10:00:00Z', 60)).toEqual([
      '2026-03-01T10:00',
      '2026-03-01T10:15',
      '2026-03-01T10:30',
      '2026-03-01T10:45',
    ]);
  });

  it('`0 3 * * *` is due once a day at 03:00 UTC', () => {
    expect(dueMinutes('0 3 * * *', '2026-03-01T00:00:00Z', 3 * 24 * 60)).toEqual([
      '2026-03-01T03:00',
      '2026-03-02T03:00',
      '2026-03-03T03:00',
    ]);
  });

  it('a Monday-only cron is due on Mondays only (2026-03-02 is a Monday)', () => {
    expect(dueMinutes('30 8 * * 1', '2026-02-28T00:00:00Z', 14 * 24 * 60)).toEqual([
      '2026-03-02T08:30',
      '2026-03-09T08:30',
    ]);
    expect(dueMinutes('30 8 * * MON', '2026-02-28T00:00:00Z', 14 * 24 * 60)).toEqual([
      '2026-03-02T08:30',
      '2026-03-09T08:30',
    ]);
  });

  it('evaluates in UTC whatever the process time zone, across a daylight-saving change', () => {
    const previous = process.env.TZ;
    process.env.TZ = 'Europe/Madrid'; // clocks go forward at 01:00 UTC on 2026-03-29
    try {
      expect(dueMinutes('0 3 * * *', '2026-03-28T00:00:00Z', 3 * 24 * 60)).toEqual([
        '2026-03-28T03:00',
        '2026-03-29T03:00',
        '2026-03-30T03:00',
      ]);
      expect(dueMinutes('0 * * * *', '2026-03-29T00:30:00Z', 180)).toEqual([
        '2026-03-29T01:00',
        '2026-03-29T02:00',
        '2026-03-29T03:00',
      ]);
    } finally {
      process.env.TZ = previous;
    }
  });

  it('minuteOf floors to the UTC minute; a tick inside the minute is that minute', () => {
    expect(minuteOf(at('2026-03-02T03:00:59.999Z')).toISOString()).toBe('2026-03-02T03:00:00.000Z');
    expect(isDue(def('0 3 * * *'), minuteOf(at('2026-03-02T03:00:42.123Z')))).toBe(true);
  });
});

describe('defineSchedule', () => {
  it('registers a schedule under its name', () => {
    const s = defineSchedule({ name: 'unit.registered', cron: '*/5 * * * *' });
    expect(definedSchedules().get('unit.registered')).toBe(s);
  });

  it('refuses a second schedule with the same name', () => {
    defineSchedule({ name: 'unit.twice', cron: '0 * * * *' });
    expect(() => defineSchedule({ name: 'unit.twice', cron: '5 * * * *' })).toThrow(/defined twice/);
    expect(definedSchedules().get('unit.twice')?.cron).toBe('0 * * * *');
  });

  it.each([
    ['six fields (seconds)', '0 0 3 * * *'],
    ['four fields', '0 3 * *'],
    ['a nickname', '@daily'],
    ['an empty expression', ''],
    ['a minute out of range', '61 * * * *'],
    ['an hour out of range', '0 24 * * *'],
    ['a day of the week out of range', '0 3 * * 8'],
    ['a range past the end', '1-70 * * * *'],
    ['a zero step', '*/0 * * * *'],
    ['a date that never exists', '0 0 31 2 *'],
    ['words', 'every day at three'],
    ['letters', 'a b c d e'],
  ])('refuses a bad cron: %s', (_why, cron) => {
    expect(() => defineSchedule({ name: 'unit.bad_cron', cron })).toThrow();
    expect(definedSchedules().has('unit.bad_cron')).toBe(false);
  });

  it.each([['Unit.Upper'], ['nodot'], ['unit.'], ['.unit'], ['unit bad.name'], ['unit.a-b']])(
    'refuses a name that is not <area>.<work>: %s',
    (name) => {
      expect(() => defineSchedule({ name, cron: '* * * * *' })).toThrow(/name/);
    },
  );
});
