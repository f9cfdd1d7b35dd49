import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Engagement (extensions-v2 3 and 5): the append-only XP ledger (unique per organization, person and source, so a
 * redelivered event awards nothing), running totals, per-day activity counters, the person's streak with its
 * frozen days, goals, daily rewards, claimed missions, chosen titles, challenges; and `badge_awards.code` (5.2).
 * Everything that belongs to a person in an organization references the membership (leaving removes it, 3.2).
 */
export class Gamification1763750000000 implements MigrationInterface {
  name = 'Gamification1763750000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE badge_awards ADD COLUMN IF NOT EXISTS code text NULL`);
    await q.query(`ALTER TABLE badge_awards ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'program'`);
    await q.query(
      `UPDATE badge_awards SET code = 'program-' || path_id::text WHERE code IS NULL AND path_id IS NOT NULL`,
    );
    await q.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS badge_awards_code_uq ON badge_awards (organization_id, user_id, code)`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS badge_awards_user_idx ON badge_awards (user_id)`);

    await q.query(`
      CREATE TABLE xp_ledger (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        source text NOT NULL CHECK (source IN ('lesson', 'quiz_pass', 'course', 'program', 'capstone', 'exam_pass',
          'review', 'game', 'duel', 'daily_reward', 'mission', 'challenge')),
        source_id text NOT NULL CHECK (char_length(source_id) <= 120),
        amount integer NOT NULL CHECK (amount > 0),
        local_date date NOT NULL,
        occurred_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL,
        UNIQUE (organization_id, user_id, source, source_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX xp_ledger_period_idx ON xp_ledger (organization_id, created_at) INCLUDE (user_id, amount)`,
    );
    await q.query(`CREATE INDEX xp_ledger_member_idx ON xp_ledger (organization_id, user_id, created_at DESC)`);
    await q.query(`CREATE INDEX xp_ledger_day_idx ON xp_ledger (organization_id, user_id, local_date, source)`);
    await q.query(`CREATE INDEX xp_ledger_user_idx ON xp_ledger (user_id)`);

    await q.query(`
      CREATE TABLE xp_totals (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        xp bigint NOT NULL DEFAULT 0 CHECK (xp >= 0),
        level integer NOT NULL DEFAULT 1,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX xp_totals_rank_idx ON xp_totals (organization_id, xp DESC, user_id)`);
    await q.query(`CREATE INDEX xp_totals_user_idx ON xp_totals (user_id)`);

    await q.query(`
      CREATE TABLE activity_days (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        local_date date NOT NULL,
        xp integer NOT NULL DEFAULT 0,
        xp_learning integer NOT NULL DEFAULT 0,
        lessons_completed integer NOT NULL DEFAULT 0,
        quiz_submissions integer NOT NULL DEFAULT 0,
        reviews integer NOT NULL DEFAULT 0,
        exams_submitted integer NOT NULL DEFAULT 0,
        games_finished integer NOT NULL DEFAULT 0,
        duels_finished integer NOT NULL DEFAULT 0,
        duels_won integer NOT NULL DEFAULT 0,
        active boolean NOT NULL DEFAULT false,
        PRIMARY KEY (user_id, local_date, organization_id)
      )`);
    await q.query(`CREATE INDEX activity_days_org_idx ON activity_days (organization_id, user_id, local_date)`);

    // Counted facts with their instant, for challenges (5.6): lessons (with their course), every flashcard review
    // (the ledger caps them) and duel wins.
    await q.query(`
      CREATE TABLE engagement_facts (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        kind text NOT NULL CHECK (kind IN ('lesson', 'review', 'duel_win')),
        subject_id uuid NOT NULL,
        course_id uuid NULL,
        occurred_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id, kind, subject_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX engagement_facts_time_idx ON engagement_facts (organization_id, kind, occurred_at)`);
    await q.query(`CREATE INDEX engagement_facts_user_idx ON engagement_facts (user_id)`);

    await q.query(`
      CREATE TABLE streaks (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        run_count integer NOT NULL DEFAULT 0,
        run_last date NULL,
        longest integer NOT NULL DEFAULT 0,
        freezes integer NOT NULL DEFAULT 0 CHECK (freezes BETWEEN 0 AND 2),
        first_active_on date NULL,
        last_active_on date NULL,
        evaluated_through date NULL,
        grants_through date NULL,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`
      CREATE TABLE streak_frozen_days (
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        local_date date NOT NULL,
        PRIMARY KEY (user_id, local_date)
      )`);

    await q.query(`
      CREATE TABLE goals (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        daily_xp integer NULL CHECK (daily_xp BETWEEN 10 AND 1000),
        weekly_lessons integer NULL CHECK (weekly_lessons BETWEEN 1 AND 50),
        updated_at timestamptz NOT NULL
      )`);

    await q.query(`
      CREATE TABLE daily_reward_claims (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        local_date date NOT NULL,
        consecutive_days integer NOT NULL CHECK (consecutive_days >= 1),
        amount integer NOT NULL,
        claimed_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id, local_date),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX daily_reward_claims_user_idx ON daily_reward_claims (user_id)`);

    await q.query(`
      CREATE TABLE mission_claims (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        mission_id text NOT NULL CHECK (char_length(mission_id) <= 64),
        reward_xp integer NOT NULL,
        claimed_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id, mission_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX mission_claims_user_idx ON mission_claims (user_id)`);

    await q.query(`
      CREATE TABLE member_titles (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        code text NOT NULL,
        chosen_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX member_titles_user_idx ON member_titles (user_id)`);

    await q.query(`
      CREATE TABLE challenges (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        cohort_id uuid NULL,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 120),
        description_md text NOT NULL DEFAULT '' CHECK (char_length(description_md) <= 2000),
        metric text NOT NULL CHECK (metric IN ('xp', 'lessons_completed', 'flashcard_reviews', 'duels_won')),
        course_id uuid NULL REFERENCES courses (id) ON DELETE SET NULL,
        starts_at timestamptz NOT NULL,
        ends_at timestamptz NOT NULL CHECK (ends_at > starts_at),
        finished_at timestamptz NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        FOREIGN KEY (organization_id, cohort_id) REFERENCES cohorts (organization_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX challenges_org_idx ON challenges (organization_id, starts_at DESC)`);
    await q.query(`CREATE INDEX challenges_due_idx ON challenges (ends_at) WHERE finished_at IS NULL`);
    await q.query(`CREATE INDEX challenges_created_by_idx ON challenges (created_by)`);
    await q.query(`
      CREATE TABLE challenge_participants (
        challenge_id uuid NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        joined_at timestamptz NOT NULL,
        PRIMARY KEY (challenge_id, user_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX challenge_participants_user_idx ON challenge_participants (user_id)`);
    // Frozen standings of a finished challenge: an erased person keeps an anonymous entry (17.4).
    await q.query(`
      CREATE TABLE challenge_results (
        challenge_id uuid NOT NULL REFERENCES challenges (id) ON DELETE CASCADE,
        position integer NOT NULL,
        user_id uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        rank integer NOT NULL,
        value integer NOT NULL,
        PRIMARY KEY (challenge_id, position)
      )`);
    await q.query(`CREATE INDEX challenge_results_user_idx ON challenge_results (user_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'challenge_results',
      'challenge_participants',
      'challenges',
      'member_titles',
      'mission_claims',
      'daily_reward_claims',
      'goals',
      'streak_frozen_days',
      'streaks',
      'activity_days',
      'engagement_facts',
      'xp_totals',
      'xp_ledger',
    ])
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    await q.query(`DROP INDEX IF EXISTS badge_awards_code_uq`);
    await q.query(`DROP INDEX IF EXISTS badge_awards_user_idx`);
    await q.query(`ALTER TABLE badge_awards DROP COLUMN IF EXISTS kind`);
    await q.query(`ALTER TABLE badge_awards DROP COLUMN IF EXISTS code`);
  }
}
