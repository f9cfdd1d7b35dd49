import { answerMs, answerWindow, isCorrect, points, resultFor, winnerOf, xpFor } from './duel-rules';

describe('duel rules (8.1, 8.3)', () => {
  const q = {
    id: 'q',
    prompt: 'p',
    kind: 'multiple' as const,
    options: [
      { id: 'a', text: 'A' },
      { id: 'b', text: 'B' },
      { id: 'c', text: 'C' },
    ],
    correct_option_ids: ['a', 'b'],
  };

  it('a right answer is exactly the correct set', () => {
    expect(isCorrect(q, ['b', 'a'])).toBe(true);
    expect(isCorrect(q, ['a'])).toBe(false);
    expect(isCorrect(q, ['a', 'b', 'c'])).toBe(false);
    expect(isCorrect(q, [])).toBe(false);
  });

  it('scores 100 + floor(50 * (round_ms - answer_ms) / round_ms), 0 when wrong', () => {
    expect(points(true, 0, 15_000)).toBe(150);
    expect(points(true, 15_000, 15_000)).toBe(100);
    expect(points(true, 7_500, 15_000)).toBe(125);
    expect(points(true, 1, 15_000)).toBe(149);
    expect(points(false, 0, 15_000)).toBe(0);
  });

  it('clamps answer_ms to 0..round_ms and applies the 250 ms grace', () => {
    expect(answerMs(900, 1000, 15_000)).toBe(0);
    expect(answerMs(17_000, 1000, 15_000)).toBe(15_000);
    expect(answerWindow(999, 1000, 16_000)).toBe('early');
    expect(answerWindow(1000, 1000, 16_000)).toBe('open');
    expect(answerWindow(16_250, 1000, 16_000)).toBe('open');
    expect(answerWindow(16_251, 1000, 16_000)).toBe('closed');
  });

  it('the higher total wins, equal totals draw; XP 15/5/0', () => {
    expect(winnerOf({ challenger: 300, opponent: 200 })).toBe('challenger');
    expect(winnerOf({ challenger: 0, opponent: 1 })).toBe('opponent');
    expect(winnerOf({ challenger: 7, opponent: 7 })).toBeNull();
    expect(resultFor('challenger', 'challenger')).toBe('win');
    expect(resultFor('opponent', 'challenger')).toBe('loss');
    expect(resultFor('opponent', null)).toBe('draw');
    expect([xpFor('win'), xpFor('draw'), xpFor('loss')]).toEqual([15, 5, 0]);
  });

  it('a forfeit or disconnection before the second round earns nothing (extensions-v3 6.3)', () => {
    expect([xpFor('win', 'forfeit', 0), xpFor('win', 'forfeit', 1), xpFor('win', 'disconnect', 1)]).toEqual([0, 0, 0]);
    expect([xpFor('win', 'forfeit', 2), xpFor('win', 'disconnect', 5), xpFor('win', 'completed', 5)]).toEqual([
      15, 15, 15,
    ]);
  });
});
