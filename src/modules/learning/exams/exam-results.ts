import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import { CompletionRequirements, type ExamRequirement } from '@/modules/learning/progress';
import { ExamSessionsRepository } from './exam-sessions.repository';

/** The exams side of course completion (extensions-v2 9.8), answered for progress through its port. */
@Injectable()
export class ExamResults extends CompletionRequirements {
  constructor(private readonly sessions: ExamSessionsRepository) {
    super();
  }

  async examsOf(
    organizationId: string,
    userId: string,
    courseIds: readonly string[],
    tx?: Tx,
  ): Promise<ReadonlyMap<string, ExamRequirement>> {
    const rows = await this.sessions.requirements(organizationId, userId, courseIds, tx);
    return new Map(rows.map((r) => [r.course_id, { required: r.required, passed: r.passed }]));
  }
}
