import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import {
  type EraseContext,
  type ExportedRow,
  PersonalData,
  type PersonalDataHandler,
} from '@/core/privacy/personal-data';

/**
 * A person's flashcards (extensions-v2 17.4: deleted on erasure): personal decks with their cards, the states of
 * every card they studied (course cards too), the review log and the settings. Course decks are the course's
 * content, not the person's: exported only as the states and reviews of their cards.
 */
@Injectable()
@PersonalData({
  area: 'flashcards',
  key: 'flashcards',
  tables: ['flashcard_decks', 'flashcards', 'flashcard_states', 'flashcard_reviews', 'flashcard_settings'],
})
export class FlashcardsPersonalData implements PersonalDataHandler {
  async export(userId: string, db: EntityManager): Promise<ExportedRow[]> {
    const decks = await db.query<ExportedRow[]>(
      `SELECT 'deck' AS kind, d.id, d.organization_id, d.title, d.description, d.created_at, d.updated_at,
         coalesce((SELECT jsonb_agg(jsonb_build_object('id', f.id, 'position', f.position, 'front_md', f.front_md,
             'back_md', f.back_md, 'created_at', f.created_at, 'updated_at', f.updated_at) ORDER BY f.position, f.id)
           FROM flashcards f WHERE f.deck_id = d.id), '[]'::jsonb) AS cards
       FROM flashcard_decks d WHERE d.kind = 'personal' AND d.user_id = $1 ORDER BY d.created_at`,
      [userId],
    );
    const states = await db.query<ExportedRow[]>(
      `SELECT 'card_state' AS kind, organization_id, card_id, scheduler, reviews, lapses, first_reviewed_at,
         last_reviewed_at, due_on, due_at, sm2, fsrs
       FROM flashcard_states WHERE user_id = $1 ORDER BY organization_id, first_reviewed_at`,
      [userId],
    );
    const reviews = await db.query<ExportedRow[]>(
      `SELECT 'review' AS kind, id, organization_id, card_id, deck_id, grade, scheduler, reviewed_at, duration_ms,
         state_before, state_after
       FROM flashcard_reviews WHERE user_id = $1 ORDER BY reviewed_at, id`,
      [userId],
    );
    const settings = await db.query<ExportedRow[]>(
      `SELECT 'settings' AS kind, scheduler, desired_retention::float8 AS desired_retention, new_cards_per_day, updated_at
       FROM flashcard_settings WHERE user_id = $1`,
      [userId],
    );
    return [...settings, ...decks, ...states, ...reviews];
  }

  /** Deleted: personal decks with their cards (and everyone's states of them), states, reviews, settings. */
  async erase({ userId, tx }: EraseContext): Promise<void> {
    await tx.manager.query(`DELETE FROM flashcard_reviews WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM flashcard_states WHERE user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM flashcard_decks WHERE kind = 'personal' AND user_id = $1`, [userId]);
    await tx.manager.query(`DELETE FROM flashcard_settings WHERE user_id = $1`, [userId]);
  }
}
