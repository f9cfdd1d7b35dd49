import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Duels (extensions-v2 section 8): one row per duel with the snapshot of its 5 questions, and one row per scored
 * round. A player's erasure keeps the duel for the other, the erased side null (17.4).
 */
export class Duels1763752000000 implements MigrationInterface {
  name = 'Duels1763752000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS duels (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        origin text NOT NULL CHECK (origin IN ('challenge', 'matchmaking')),
        status text NOT NULL CHECK (status IN
          ('pending', 'ready', 'active', 'finished', 'declined', 'cancelled', 'expired', 'abandoned')),
        course_id uuid NULL REFERENCES courses (id) ON DELETE SET NULL,
        challenger_id uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        opponent_id uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        questions jsonb NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        started_at timestamptz NULL,
        finished_at timestamptz NULL,
        challenger_score integer NOT NULL DEFAULT 0,
        opponent_score integer NOT NULL DEFAULT 0,
        winner text NULL CHECK (winner IN ('challenger', 'opponent')),
        result_reason text NULL CHECK (result_reason IN ('completed', 'forfeit', 'disconnect'))
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS duels_challenger_idx ON duels (organization_id, challenger_id, created_at DESC)`,
    );
    await q.query(
      `CREATE INDEX IF NOT EXISTS duels_opponent_idx ON duels (organization_id, opponent_id, created_at DESC)`,
    );
    // The expiry schedule's scan: pending and ready duels by deadline.
    await q.query(
      `CREATE INDEX IF NOT EXISTS duels_expiry_idx ON duels (expires_at) WHERE status IN ('pending', 'ready')`,
    );
    await q.query(`
      CREATE TABLE IF NOT EXISTS duel_rounds (
        duel_id uuid NOT NULL REFERENCES duels (id) ON DELETE CASCADE,
        round integer NOT NULL CHECK (round BETWEEN 1 AND 5),
        question_id uuid NOT NULL,
        challenger_option_ids uuid[] NOT NULL DEFAULT '{}',
        challenger_correct boolean NOT NULL DEFAULT false,
        challenger_points integer NOT NULL DEFAULT 0,
        challenger_answer_ms integer NULL,
        opponent_option_ids uuid[] NOT NULL DEFAULT '{}',
        opponent_correct boolean NOT NULL DEFAULT false,
        opponent_points integer NOT NULL DEFAULT 0,
        opponent_answer_ms integer NULL,
        scored_at timestamptz NOT NULL,
        PRIMARY KEY (duel_id, round)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS duel_rounds`);
    await q.query(`DROP TABLE IF EXISTS duels`);
  }
}
