import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * A person's duels and their answers in each round (extensions-v2 17.4: kept for the opponent, the erased side
 * anonymous). The export holds the person's side only: the other player's answers are theirs.
 */
@Injectable()
@PersonalData({ area: 'duels', key: 'duels', tables: ['duels', 'duel_rounds'] })
export class DuelsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    return db.query<Record<string, unknown>[]>(
      `SELECT d.id, d.organization_id, d.origin, d.status, d.course_id,
         CASE WHEN d.challenger_id = $1 THEN 'challenger' ELSE 'opponent' END AS my_role,
         d.created_at, d.started_at, d.finished_at,
         CASE WHEN d.challenger_id = $1 THEN d.challenger_score ELSE d.opponent_score END AS my_score,
         d.winner, d.result_reason,
         coalesce((SELECT jsonb_agg(jsonb_build_object('round', r.round, 'question_id', r.question_id,
             'option_ids', CASE WHEN d.challenger_id = $1 THEN r.challenger_option_ids ELSE r.opponent_option_ids END,
             'points', CASE WHEN d.challenger_id = $1 THEN r.challenger_points ELSE r.opponent_points END,
             'answer_ms', CASE WHEN d.challenger_id = $1 THEN r.challenger_answer_ms ELSE r.opponent_answer_ms END)
             ORDER BY r.round) FROM duel_rounds r WHERE r.duel_id = d.id), '[]'::jsonb) AS rounds
       FROM duels d WHERE d.challenger_id = $1 OR d.opponent_id = $1 ORDER BY d.created_at`,
      [userId],
    );
  }

  /** Kept for the other player with this side anonymous; the person's answers are cleared. */
  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(
      `UPDATE duel_rounds r SET challenger_option_ids = '{}' FROM duels d
       WHERE r.duel_id = d.id AND d.challenger_id = $1`,
      [userId],
    );
    await tx.manager.query(
      `UPDATE duel_rounds r SET opponent_option_ids = '{}' FROM duels d
       WHERE r.duel_id = d.id AND d.opponent_id = $1`,
      [userId],
    );
    await tx.manager.query(`UPDATE duels SET challenger_id = NULL WHERE challenger_id = $1`, [userId]);
    await tx.manager.query(`UPDATE duels SET opponent_id = NULL WHERE opponent_id = $1`, [userId]);
    // Nothing of them can still be played.
    await tx.manager.query(
      `UPDATE duels SET status = 'cancelled' WHERE status = 'pending' AND (challenger_id IS NULL OR opponent_id IS NULL)`,
    );
  }
}
