import type { Tx } from '@/core/database/transaction';

/**
 * What completing a course needs besides its lessons (extensions-v2 9.8): the course's published exams marked
 * `required_for_completion`, each passed by the person in the organization. Declared by progress, which needs it;
 * the exams area provides it from its global module (`{ provide: CompletionRequirements, useExisting: ... }`), since
 * exams depends on progress (who is enrolled). Progress injects it optionally: without it, no course requires an
 * exam. Besides this port, progress only reacts to the `exam.submitted` and `exam.reviewed` events.
 */

/** Required exams of one course and how many of them the person has passed. */
export interface ExamRequirement {
  readonly required: number;
  readonly passed: number;
}

export const NO_EXAM_REQUIREMENT: ExamRequirement = { required: 0, passed: 0 };

export abstract class CompletionRequirements {
  /**
   * Per course (only courses with at least one required exam appear; the others require nothing): how many
   * published exams with `required_for_completion` it has, and how many of those this person passed in this
   * organization (extensions-v2 9.7: a submitted session with `passed`, not voided, not awaiting review). Reads
   * through `tx` when given, so a completion check sees the state its transaction locked.
   */
  abstract examsOf(
    organizationId: string,
    userId: string,
    courseIds: readonly string[],
    tx?: Tx,
  ): Promise<ReadonlyMap<string, ExamRequirement>>;
}
