import type { DomainEvent, EventName } from '@/core/events/event-catalog';

/**
 * What each learning fact is worth (extensions-v2 3.2) and what it counts for activity (3.4). Pure: the ledger
 * applies uniqueness, caps and membership.
 */
/** Where XP comes from: the one list (the history's `source` enum documents it). */
export const XP_SOURCES = [
  'lesson',
  'quiz_pass',
  'course',
  'program',
  'capstone',
  'exam_pass',
  'review',
  'game',
  'duel',
  'daily_reward',
  'mission',
  'challenge',
] as const;
export type XpSource = (typeof XP_SOURCES)[number];

/** XP that is not "learning": left out of `daily_xp_50` (5.4) and of the `xp` challenge metric (5.6). */
export const NON_LEARNING_SOURCES: readonly XpSource[] = ['daily_reward', 'mission', 'challenge'];

/** Daily caps per local day and organization (3.2; duels: extensions-v3 6.3). */
export const DAILY_CAPS: Partial<Record<XpSource, number>> = { review: 50, game: 100, duel: 150 };

/**
 * A duel that ends by forfeit or disconnection before its second round started awards nothing (extensions-v3 6.3):
 * two colluding members could otherwise queue, forfeit at once and repeat.
 */
export function duelCounts(p: { reason: string; rounds_started: number }): boolean {
  return p.reason === 'completed' || p.rounds_started >= 2;
}

export const XP = {
  lesson: 10,
  quiz_pass: 20,
  course: 100,
  program: 200,
  capstone: 50,
  exam_pass: 50,
  review: 1,
  duel_win: 15,
  duel_draw: 5,
  game_max: 30,
} as const;

export interface AwardCandidate {
  organizationId: string;
  userId: string;
  source: XpSource;
  sourceId: string;
  amount: number;
  occurredAt: Date;
}

export type ActivityCounter =
  | 'lessons_completed'
  | 'quiz_submissions'
  | 'reviews'
  | 'exams_submitted'
  | 'games_finished'
  | 'duels_finished'
  | 'duels_won';

export interface ActivityFact {
  organizationId: string;
  userId: string;
  counter: ActivityCounter;
  occurredAt: Date;
  /** Counts toward the active day (a duel win is counted by `duels_finished` already). */
  active: boolean;
}

/** Badges a single fact may earn directly (5.2); counted badges are decided by the ledger after writing. */
export interface FactBadge {
  organizationId: string;
  userId: string;
  code: string;
}

export const LEARNING_EVENTS = [
  'lesson.completed',
  'quiz.submitted',
  'course.completed',
  'program.completed',
  'capstone.graded',
  'exam.submitted',
  'exam.reviewed',
  'flashcard.reviewed',
  'game.finished',
  'duel.finished',
] as const satisfies readonly EventName[];
export type LearningEvent = (typeof LEARNING_EVENTS)[number];

/** A fact counted by challenges (5.6), with its instant. */
export interface CountedFact {
  organizationId: string;
  userId: string;
  kind: 'lesson' | 'review' | 'duel_win';
  subjectId: string;
  courseId: string | null;
  occurredAt: Date;
}

export interface FactEffects {
  awards: AwardCandidate[];
  activity: ActivityFact[];
  badges: FactBadge[];
  facts: CountedFact[];
}

export function effectsOf(event: DomainEvent<LearningEvent>): FactEffects {
  const out: FactEffects = { awards: [], activity: [], badges: [], facts: [] };
  const org = event.organization_id;
  if (!org) return out;
  const at = new Date(event.occurred_at);
  const award = (userId: string, source: XpSource, sourceId: string, amount: number): void => {
    if (amount > 0) out.awards.push({ organizationId: org, userId, source, sourceId, amount, occurredAt: at });
  };
  const fact = (userId: string, kind: CountedFact['kind'], subjectId: string, courseId: string | null = null): void => {
    out.facts.push({ organizationId: org, userId, kind, subjectId, courseId, occurredAt: at });
  };
  const act = (userId: string, counter: ActivityCounter, active = true): void => {
    out.activity.push({ organizationId: org, userId, counter, occurredAt: at, active });
  };
  switch (event.name) {
    case 'lesson.completed': {
      const p = (event as DomainEvent<'lesson.completed'>).payload;
      award(p.user_id, 'lesson', p.lesson_id, XP.lesson);
      act(p.user_id, 'lessons_completed');
      fact(p.user_id, 'lesson', p.lesson_id, p.course_id);
      break;
    }
    case 'quiz.submitted': {
      const p = (event as DomainEvent<'quiz.submitted'>).payload;
      if (p.passed) award(p.user_id, 'quiz_pass', p.lesson_id, XP.quiz_pass);
      if (p.passed && p.score === 100) out.badges.push({ organizationId: org, userId: p.user_id, code: 'quiz_ace' });
      act(p.user_id, 'quiz_submissions');
      break;
    }
    case 'course.completed': {
      const p = (event as DomainEvent<'course.completed'>).payload;
      award(p.user_id, 'course', p.course_id, XP.course);
      break;
    }
    case 'program.completed': {
      const p = (event as DomainEvent<'program.completed'>).payload;
      award(p.user_id, 'program', p.path_id, XP.program);
      break;
    }
    case 'capstone.graded': {
      const p = (event as DomainEvent<'capstone.graded'>).payload;
      if (p.status === 'passed') award(p.user_id, 'capstone', p.path_id, XP.capstone);
      break;
    }
    case 'exam.submitted': {
      const p = (event as DomainEvent<'exam.submitted'>).payload;
      // A flagged session waits for its review (9.7): the XP comes with an accepting `exam.reviewed`.
      if (p.passed && !p.flagged) award(p.user_id, 'exam_pass', p.exam_id, XP.exam_pass);
      act(p.user_id, 'exams_submitted');
      break;
    }
    case 'exam.reviewed': {
      const p = (event as DomainEvent<'exam.reviewed'>).payload;
      if (p.decision === 'accept' && p.passed) award(p.user_id, 'exam_pass', p.exam_id, XP.exam_pass);
      break;
    }
    case 'flashcard.reviewed': {
      const p = (event as DomainEvent<'flashcard.reviewed'>).payload;
      award(p.user_id, 'review', p.review_id, XP.review);
      act(p.user_id, 'reviews');
      fact(p.user_id, 'review', p.review_id);
      break;
    }
    case 'game.finished': {
      const p = (event as DomainEvent<'game.finished'>).payload;
      if (p.end_reason === 'abandoned') break;
      award(p.user_id, 'game', p.game_id, Math.min(XP.game_max, Math.floor(Math.max(0, p.score) / 10)));
      act(p.user_id, 'games_finished');
      break;
    }
    case 'duel.finished': {
      const p = (event as DomainEvent<'duel.finished'>).payload;
      // Nor does such a duel count as a win (badges, challenges): it would be farmed the same way.
      const counts = duelCounts(p);
      for (const player of [p.challenger_id, p.opponent_id]) {
        if (!counts) {
          act(player, 'duels_finished');
          continue;
        }
        if (p.winner_id === null) award(player, 'duel', p.duel_id, XP.duel_draw);
        else if (p.winner_id === player) {
          award(player, 'duel', p.duel_id, XP.duel_win);
          act(player, 'duels_won', false);
          fact(player, 'duel_win', p.duel_id);
        }
        act(player, 'duels_finished');
      }
      break;
    }
  }
  return out;
}

/** Whether an exam pass was awarded: exam badge `exam_passed` follows it. */
export function sourceKey(source: XpSource, sourceId: string): string {
  return `${source}:${sourceId}`;
}
