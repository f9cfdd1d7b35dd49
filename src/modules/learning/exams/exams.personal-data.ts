import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * A person's exam sessions, with their answers and proctoring events (extensions-v2 17.4: deleted on erasure).
 * The export holds what the person did and what was decided about it; not the exam's correct answers (the drawn
 * questions stay out: they are the exam's content, not the person's data) nor who reviewed it.
 */
@Injectable()
@PersonalData({
  area: 'exams',
  key: 'sessions',
  tables: ['exam_sessions', 'exam_session_questions', 'exam_answers', 'exam_proctoring_events'],
})
export class ExamSessionsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const sessions = await db.query<Record<string, unknown>[]>(
      `SELECT s.id, s.organization_id, s.exam_id, s.course_id, s.attempt, s.status, s.submitted_by, s.started_at,
         s.deadline_at, s.submitted_at, s.score, s.passed, s.violations, s.flags, s.review_status, s.review_reason,
         s.counts_as_attempt,
         coalesce((SELECT jsonb_agg(jsonb_build_object('question_id', a.question_id, 'option_ids', a.option_ids,
             'seq', a.seq, 'saved_at', a.saved_at) ORDER BY a.saved_at)
           FROM exam_answers a WHERE a.session_id = s.id), '[]'::jsonb) AS answers,
         coalesce((SELECT jsonb_agg(jsonb_build_object('type', e.type, 'occurred_at', e.occurred_at,
             'received_at', e.received_at, 'detail', e.detail, 'counted', e.counted) ORDER BY e.received_at, e.ordinal)
           FROM exam_proctoring_events e WHERE e.session_id = s.id), '[]'::jsonb) AS proctoring_events
       FROM exam_sessions s WHERE s.user_id = $1 ORDER BY s.started_at`,
      [userId],
    );
    return sessions;
  }

  /** Deleted: the snapshot, answers and events go with each session (ON DELETE CASCADE). */
  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM exam_sessions WHERE user_id = $1`, [userId]);
  }
}

/**
 * What a person did as staff: exam windows they opened and sessions they reviewed. Both records belong to the
 * organization and stay; on erasure only the person's id is removed from them.
 */
@Injectable()
@PersonalData({ area: 'exams', key: 'staff_actions', tables: ['exam_windows'] })
export class ExamStaffPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const windows = await db.query<Record<string, unknown>[]>(
      `SELECT 'exam_window' AS kind, id, organization_id, exam_id, cohort_id, opens_at, closes_at, created_at
       FROM exam_windows WHERE created_by = $1 ORDER BY created_at`,
      [userId],
    );
    // Another person's session is theirs: only the decision and when it was made.
    const reviews = await db.query<Record<string, unknown>[]>(
      `SELECT 'exam_review' AS kind, organization_id, exam_id,
         CASE review_status WHEN 'accepted' THEN 'accept' ELSE 'void' END AS decision, reviewed_at
       FROM exam_sessions WHERE reviewed_by = $1 ORDER BY reviewed_at`,
      [userId],
    );
    return [...windows, ...reviews];
  }

  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`UPDATE exam_windows SET created_by = NULL WHERE created_by = $1`, [userId]);
    await tx.manager.query(`UPDATE exam_sessions SET reviewed_by = NULL WHERE reviewed_by = $1`, [userId]);
  }
}
