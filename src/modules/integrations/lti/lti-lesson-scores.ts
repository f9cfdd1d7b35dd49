import { Injectable } from '@nestjs/common';
import { type LessonScore, LessonScores } from '@/modules/learning/progress';
import { LtiRepository } from './lti.repository';

/**
 * The progress area's `LessonScores` port (extensions-v3 1.6): a tool's latest score on a lesson's line item, as
 * `scoreGiven / scoreMaximum` in 0..100, for the learner's progress and the teacher's student view.
 */
@Injectable()
export class LtiLessonScores extends LessonScores {
  constructor(private readonly repo: LtiRepository) {
    super();
  }

  async scoresOf(
    organizationId: string,
    userId: string,
    courseIds: readonly string[],
  ): Promise<ReadonlyMap<string, readonly LessonScore[]>> {
    const out = new Map<string, LessonScore[]>();
    for (const row of await this.repo.lessonScores(organizationId, userId, courseIds)) {
      const list = out.get(row.course_id) ?? [];
      list.push({
        lesson_id: row.lesson_id,
        lesson_title: row.lesson_title,
        score: Number(row.score),
        updated_at: row.updated_at,
      });
      out.set(row.course_id, list);
    }
    return out;
  }
}
