/**
 * Scores external tools report for lessons (extensions-v3 1.6: an LTI tool's AGS score on a lesson's line item,
 * `scoreGiven / scoreMaximum` as 0..100), shown in the learner's progress and the teacher's student view. Declared
 * by progress, which shows them; the LTI area provides it from a global module (`{ provide: LessonScores,
 * useExisting: ... }`), since LTI depends on progress (a score completes a lesson). Progress injects it optionally:
 * without it, no lesson has a score.
 */

/** The latest score of one lesson for one person in one organization. */
export interface LessonScore {
  readonly lesson_id: string;
  readonly lesson_title: string;
  /** 0..100, two decimals at most (a tool's extra credit above its maximum counts as 100). */
  readonly score: number;
  readonly updated_at: Date;
}

export abstract class LessonScores {
  /** Per course (only courses with at least one scored lesson appear): the scored lessons, in course order. */
  abstract scoresOf(
    organizationId: string,
    userId: string,
    courseIds: readonly string[],
  ): Promise<ReadonlyMap<string, readonly LessonScore[]>>;
}
