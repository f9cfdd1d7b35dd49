import { createEmptyCard, default_w, Rating, State } from 'ts-fsrs';
import {
  fsrsEngine,
  fsrsRating,
  replay,
  review,
  type ScheduledState,
  SM2_START,
  sm2Next,
  type Sm2State,
} from './schedulers';

describe('SM-2 (extensions-v2 6.3)', () => {
  it('follows the test vectors of the spec, one card reviewed in order (incl. the reset below 3 and the 1.3 floor)', () => {
    const table: [grade: number, n: number, interval: number, ef: string][] = [
      [5, 1, 1, '2.60'],
      [5, 2, 6, '2.70'],
      [4, 3, 16, '2.70'],
      [3, 4, 43, '2.56'],
      [2, 0, 1, '2.24'],
      [4, 1, 1, '2.24'],
      [5, 2, 6, '2.34'],
      [0, 0, 1, '1.54'],
      [1, 0, 1, '1.30'],
    ];
    let state: Sm2State = SM2_START;
    for (const [grade, n, interval, ef] of table) {
      state = sm2Next(state, grade);
      expect([grade, state.repetitions, state.interval_days, (state.ease_hundredths / 100).toFixed(2)]).toEqual([
        grade,
        n,
        interval,
        ef,
      ]);
    }
  });

  it('a second card graded 4, 4, 4, 4 gets 1, 6, 15, 38 (37.5 rounds up) with EF 2.50 throughout', () => {
    let state = SM2_START;
    const seen: [number, number][] = [];
    for (let i = 0; i < 4; i++) {
      state = sm2Next(state, 4);
      seen.push([state.interval_days, state.ease_hundredths]);
    }
    expect(seen).toEqual([
      [1, 250],
      [6, 250],
      [15, 250],
      [38, 250],
    ]);
  });

  it('changes EF by +0.10, 0, -0.14, -0.32, -0.54, -0.80 for grades 5..0 and never below 1.30', () => {
    const start: Sm2State = { repetitions: 3, ease_hundredths: 250, interval_days: 10 };
    expect([5, 4, 3, 2, 1, 0].map((g) => sm2Next(start, g).ease_hundredths)).toEqual([260, 250, 236, 218, 196, 170]);
    const low: Sm2State = { repetitions: 0, ease_hundredths: 131, interval_days: 1 };
    expect(sm2Next(low, 3).ease_hundredths).toBe(130);
    expect(sm2Next({ ...low, ease_hundredths: 130 }, 0).ease_hundredths).toBe(130);
    // Grades below 3 reset n and give I = 1 whatever came before.
    expect(sm2Next({ repetitions: 7, ease_hundredths: 300, interval_days: 200 }, 2)).toEqual({
      repetitions: 0,
      ease_hundredths: 268,
      interval_days: 1,
    });
  });
});

describe('review(): due days in the person’s zone, lapses', () => {
  const sm2 = { scheduler: 'sm2' as const, desiredRetention: 0.9 };

  it('due_on is the local date of the review plus I; due_at the start of that date in the zone', () => {
    // 23:30 UTC on Nov 1 is already Nov 2 in Madrid (UTC+1).
    const at = new Date('2026-11-01T23:30:00.000Z');
    const first = review(null, 5, at, 'Europe/Madrid', sm2);
    expect(first.due_on).toBe('2026-11-03');
    expect(first.due_at.toISOString()).toBe('2026-11-02T23:00:00.000Z');
    const utc = review(null, 5, at, 'UTC', sm2);
    expect([utc.due_on, utc.due_at.toISOString()]).toEqual(['2026-11-02', '2026-11-02T00:00:00.000Z']);
  });

  it('counts a lapse only for a grade below 3 on a card answered correctly before', () => {
    const at = new Date('2026-11-01T10:00:00.000Z');
    let s: ScheduledState | null = null;
    for (const g of [1, 2]) s = review(s, g, at, 'UTC', sm2);
    expect([s!.reviews, s!.lapses]).toEqual([2, 0]);
    for (const g of [4, 0, 3, 2]) s = review(s, g, at, 'UTC', sm2);
    expect([s!.reviews, s!.lapses]).toEqual([6, 2]);
  });
});

describe('FSRS through ts-fsrs (6.4)', () => {
  it('maps grades 0..5 to Again, Again, Again, Hard, Good, Easy', () => {
    expect([0, 1, 2, 3, 4, 5].map(fsrsRating)).toEqual([
      Rating.Again,
      Rating.Again,
      Rating.Again,
      Rating.Hard,
      Rating.Good,
      Rating.Easy,
    ]);
  });

  // ts-fsrs's own long-term scheduler examples (__tests__/impl/long-term_scheduler.test.ts at commit 75cc1cc, the 5.x line; weights below, no fuzz,
  // no short-term steps), each next review on the day the previous one set.
  const W = [
    0.4197, 1.1869, 3.0412, 15.2441, 7.1434, 0.6477, 1.0007, 0.0674, 1.6597, 0.1712, 1.1178, 2.0225, 0.0904, 0.3025,
    2.1214, 0.2498, 2.9466, 0.4891, 0.6468,
  ];
  const examples: { grades: number[]; intervals: number[]; stability: number[]; difficulty: number[] }[] = [
    {
      // Again, Hard, Good, Easy, Again, Hard, Good, Easy
      grades: [1, 3, 4, 5, 0, 3, 4, 5],
      intervals: [1, 2, 6, 41, 4, 7, 21, 133],
      stability: [0.4197, 1.0344317, 5.5356759, 41.0033667, 4.46605519, 6.67743292, 20.88868155, 132.81849454],
      difficulty: [7.1434, 7.03653841, 6.64066485, 5.92312772, 6.44779861, 6.45995078, 6.10293922, 5.36588547],
    },
    {
      // Easy, Again, Hard, Good, Easy, Again, Hard, Good
      grades: [5, 2, 3, 4, 5, 1, 3, 4],
      intervals: [15, 3, 6, 27, 240, 10, 17, 60],
      stability: [15.2441, 3.25621013, 6.32684549, 26.56339029, 239.70462771, 9.75621519, 17.06035531, 59.59547542],
      difficulty: [1.16304343, 2.99573557, 3.59851762, 3.43436666, 2.60045771, 4.03816348, 4.46259158, 4.24020203],
    },
  ];

  it.each(examples.map((e, i) => [i + 1, e] as const))(
    'reference example %i: intervals, stability, difficulty',
    (_, e) => {
      const settings = { scheduler: 'fsrs' as const, desiredRetention: 0.9, weights: W };
      let at = new Date(2022, 11, 29, 12, 30, 0, 0);
      let s: ScheduledState | null = null;
      const got = { intervals: [] as number[], stability: [] as number[], difficulty: [] as number[] };
      for (const grade of e.grades) {
        s = review(s, grade, at, 'UTC', settings);
        got.intervals.push(s.fsrs!.scheduled_days);
        got.stability.push(s.fsrs!.stability);
        got.difficulty.push(s.fsrs!.difficulty);
        at = s.fsrs!.due;
      }
      expect(got).toEqual({ intervals: e.intervals, stability: e.stability, difficulty: e.difficulty });
    },
  );

  it('uses FSRS-6 defaults in service: a first review’s stability is the default weight of its rating', () => {
    const at = new Date('2026-11-01T10:00:00.000Z');
    const settings = { scheduler: 'fsrs' as const, desiredRetention: 0.9 };
    expect(default_w).toHaveLength(21);
    expect([1, 3, 4, 5].map((g) => review(null, g, at, 'UTC', settings).fsrs!.stability)).toEqual([
      0.212, 1.2931, 2.3065, 8.2956,
    ]);
    const good = review(null, 4, at, 'UTC', settings);
    expect(good.fsrs!.state).toBe(State.Review);
    expect(good.due_on).toBe(`2026-11-0${1 + good.fsrs!.scheduled_days}`);
  });

  it('a higher desired retention gives shorter intervals; the engine is deterministic (no fuzz)', () => {
    const at = new Date('2026-11-01T10:00:00.000Z');
    const run = (r: number): number[] => {
      let s: ScheduledState | null = null;
      let t = at;
      const out: number[] = [];
      for (const g of [4, 4, 4, 4]) {
        s = review(s, g, t, 'UTC', { scheduler: 'fsrs', desiredRetention: r });
        out.push(s.fsrs!.scheduled_days);
        t = s.due_at;
      }
      return out;
    };
    expect(run(0.9)).toEqual(run(0.9));
    const high = run(0.97);
    const low = run(0.7);
    expect(high[3]).toBeLessThan(run(0.9)[3]);
    expect(low[3]).toBeGreaterThan(run(0.9)[3]);
    expect(fsrsEngine(0.9)).toBe(fsrsEngine(0.9));
    expect(createEmptyCard(at).state).toBe(State.New);
  });

  it('replay gives the same state as the reviews it replays', () => {
    const zone = 'Europe/Madrid';
    const log = [
      { grade: 4, reviewed_at: new Date('2026-11-01T10:00:00.000Z') },
      { grade: 2, reviewed_at: new Date('2026-11-04T10:00:00.000Z') },
      { grade: 5, reviewed_at: new Date('2026-11-05T10:00:00.000Z') },
    ];
    for (const scheduler of ['sm2', 'fsrs'] as const) {
      const settings = { scheduler, desiredRetention: 0.85 };
      let s: ScheduledState | null = null;
      for (const e of log) s = review(s, e.grade, e.reviewed_at, zone, settings);
      expect(replay(log, zone, settings)).toEqual(s);
    }
    expect(replay([], zone, { scheduler: 'sm2', desiredRetention: 0.9 })).toBeNull();
  });
});
