import { QuestionPoolService } from './question-pool.service';
import {
  afterAnswer,
  answerDelta,
  endAfter,
  type GameNumbers,
  isIdle,
  isLate,
  lateLoss,
  validWager,
  xpWorth,
} from './game-rules';

const base = (over: Partial<GameNumbers>): GameNumbers => ({
  mode: 'survival',
  score: 0,
  lives: 3,
  questions_total: 100,
  questions_answered: 0,
  correct_answers: 0,
  ends_at: null,
  ...over,
});

describe('game rules (extensions-v2 7.1)', () => {
  it('an answer is late strictly after deadline + 1 000 ms', () => {
    const deadline = new Date('2026-11-23T10:00:20.000Z');
    expect(isLate(deadline, new Date('2026-11-23T10:00:21.000Z'))).toBe(false);
    expect(isLate(deadline, new Date('2026-11-23T10:00:21.001Z'))).toBe(true);
  });

  it('idle after 10 minutes untouched', () => {
    const touched = new Date('2026-11-23T10:00:00.000Z');
    expect(isIdle(touched, new Date('2026-11-23T10:09:59.999Z'))).toBe(false);
    expect(isIdle(touched, new Date('2026-11-23T10:10:00.000Z'))).toBe(true);
  });

  it('scores: survival +10; speed +10 / -5 never below 0; risk +-wager', () => {
    expect([answerDelta('survival', 0, true, null), answerDelta('survival', 20, false, null)]).toEqual([10, 0]);
    expect([
      answerDelta('speed', 0, true, null),
      answerDelta('speed', 20, false, null),
      answerDelta('speed', 3, false, null),
    ]).toEqual([10, -5, -3]);
    expect([answerDelta('risk', 100, true, 40), answerDelta('risk', 100, false, 100)]).toEqual([40, -100]);
    expect([
      validWager(100, 0),
      validWager(100, 1),
      validWager(100, 100),
      validWager(100, 101),
      validWager(5, 2.5),
    ]).toEqual([false, true, true, false, false]);
  });

  it('a late risk answer loses max(1, ceil(points / 10))', () => {
    expect([lateLoss(100), lateLoss(95), lateLoss(9), lateLoss(1)]).toEqual([10, 10, 1, 1]);
  });

  it('ends: lives, points, the 60 s, the question limit, the questions drawn', () => {
    const now = new Date('2026-11-23T10:00:00.000Z');
    let g = base({ lives: 1 });
    g = afterAnswer(g, { correct: false, timedOut: true, delta: 0 });
    expect([g.lives, g.questions_answered, endAfter(g, now)]).toEqual([0, 1, 'lives_exhausted']);
    expect(endAfter(base({ mode: 'risk', lives: null, score: 0, questions_answered: 3 }), now)).toBe(
      'points_exhausted',
    );
    expect(
      endAfter(base({ mode: 'risk', lives: null, score: 5, questions_answered: 10, questions_total: 10 }), now),
    ).toBe('question_limit');
    expect(
      endAfter(base({ mode: 'risk', lives: null, score: 5, questions_answered: 7, questions_total: 7 }), now),
    ).toBe('questions_exhausted');
    expect(endAfter(base({ questions_answered: 100 }), now)).toBe('question_limit');
    expect(endAfter(base({ questions_answered: 6, questions_total: 6 }), now)).toBe('questions_exhausted');
    expect(endAfter(base({ mode: 'speed', lives: null, ends_at: now }), now)).toBe('time_up');
    expect(endAfter(base({ mode: 'speed', lives: null, ends_at: new Date(now.getTime() + 1) }), now)).toBeNull();
  });

  it('XP worth min(30, floor(score / 10))', () => {
    expect([0, 9, 10, 299, 300, 1000].map(xpWorth)).toEqual([0, 0, 1, 29, 30, 30]);
  });

  it('draws uniformly without replacement and shuffles options', () => {
    const pool = new QuestionPoolService(null as never, null as never);
    const questions = Array.from({ length: 6 }, (_, i) => ({
      id: `q${i}`,
      course_id: 'c',
      lesson_id: 'l',
      prompt: `Q${i}`,
      kind: 'single' as const,
      explanation: null,
      options: [
        { id: `q${i}a`, text: 'a', correct: true },
        { id: `q${i}b`, text: 'b', correct: false },
      ],
    }));
    const drawn = pool.draw(questions, 4);
    expect(drawn).toHaveLength(4);
    expect(new Set(drawn.map((q) => q.id)).size).toBe(4);
    expect(pool.draw(questions, 10)).toHaveLength(6);
    // Every question can come first (uniform), over many draws.
    const firsts = new Set<string>();
    for (let i = 0; i < 300; i++) firsts.add(pool.draw(questions, 1)[0].id);
    expect(firsts.size).toBe(6);
    // A fixed random source gives a fixed order.
    const last = (max: number): number => max - 1;
    expect(pool.draw(questions, 3, last).map((q) => q.id)).toEqual(['q5', 'q0', 'q1']);
  });
});
