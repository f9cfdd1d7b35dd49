import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * A person's games (extensions-v2 17.4: deleted on erasure), each with the answers given. The questions' correct
 * options stay out: they are the course's quiz content, not the person's data.
 */
@Injectable()
@PersonalData({ area: 'games', key: 'games', tables: ['games', 'game_questions'] })
export class GamesPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query<ExportedRow[]>(
      `SELECT g.id, g.organization_id, g.mode, g.course_id, g.status, g.score, g.lives, g.questions_answered,
         g.correct_answers, g.started_at, g.ends_at, g.finished_at, g.end_reason,
         coalesce((SELECT jsonb_agg(jsonb_build_object('number', q.number, 'question_id', q.question_id,
             'prompt', q.question ->> 'prompt', 'option_ids', q.option_ids, 'wager', q.wager, 'correct', q.correct,
             'timed_out', q.timed_out, 'points_delta', q.points_delta, 'served_at', q.served_at,
             'answered_at', q.answered_at) ORDER BY q.number)
           FROM game_questions q WHERE q.game_id = g.id AND q.answered_at IS NOT NULL), '[]'::jsonb) AS answers
       FROM games g WHERE g.user_id = $1 ORDER BY g.started_at`,
      [userId],
    );
  }

  /** Deleted, with their questions (ON DELETE CASCADE). */
  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM games WHERE user_id = $1`, [userId]);
  }
}
