import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * extensions-v3 6.5 and 6.6.
 * - A change of scheduler reschedules a person's cards in a background job: `rescheduling` is true until it is
 *   done, `reschedule_generation` tells a job whether a newer change superseded it.
 * - A game stores the questions it served, not the whole draw: `question_order` keeps the draw (lesson and question
 *   ids, in order), and a `game_questions` row with the question's snapshot is written when it is served.
 */
export class FlashcardReschedulingGameServing1795906293831 implements MigrationInterface {
  name = 'FlashcardReschedulingGameServing1795906293831';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE flashcard_settings
      ADD COLUMN rescheduling boolean NOT NULL DEFAULT false,
      ADD COLUMN reschedule_generation integer NOT NULL DEFAULT 0`);
    await q.query(`ALTER TABLE games ADD COLUMN question_order jsonb NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE games DROP COLUMN question_order`);
    await q.query(`ALTER TABLE flashcard_settings DROP COLUMN rescheduling, DROP COLUMN reschedule_generation`);
  }
}
