import { resolvePeriod } from './periods';

const ORG = '00000000-0000-4000-8000-000000000001';

describe('resolvePeriod, the current period', () => {
  it('answers the same current week as a fresh computation on every call, and moves on at its end', () => {
    const zone = 'America/New_York';
    // Sunday 2026-11-29 23:59 in New York: still ISO week 2026-W48 there (Monday 2026-11-23 00:00 local).
    const sunday = new Date('2026-11-30T04:59:00Z');
    const first = resolvePeriod(ORG, 'week', undefined, zone, sunday);
    expect(first).toEqual({
      organizationId: ORG,
      period: 'week',
      key: '2026-W48',
      start: new Date('2026-11-23T05:00:00Z'),
      end: new Date('2026-11-30T05:00:00Z'),
    });
    expect(resolvePeriod(ORG, 'week', undefined, zone, sunday)).toEqual(first);
    expect(resolvePeriod(ORG, 'week', '2026-W48', zone, sunday)).toEqual(first);
    // One minute later it is Monday there: the next week, not the remembered one.
    const monday = resolvePeriod(ORG, 'week', undefined, zone, new Date('2026-11-30T05:00:00Z'));
    expect(monday.key).toBe('2026-W49');
    expect(monday.start).toEqual(new Date('2026-11-30T05:00:00Z'));
    // And back in the earlier week (a test clock moved back), that week again.
    expect(resolvePeriod(ORG, 'week', undefined, zone, sunday).key).toBe('2026-W48');
  });

  it('keeps zones and periods apart', () => {
    const now = new Date('2026-11-30T03:00:00Z');
    expect(resolvePeriod(ORG, 'week', undefined, 'UTC', now).key).toBe('2026-W49');
    expect(resolvePeriod(ORG, 'week', undefined, 'America/New_York', now).key).toBe('2026-W48');
    expect(resolvePeriod(ORG, 'month', undefined, 'UTC', now).key).toBe('2026-11');
    expect(resolvePeriod(ORG, 'month', undefined, 'Pacific/Kiritimati', now).key).toBe('2026-11');
  });
});
