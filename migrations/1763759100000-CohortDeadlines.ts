import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Cohort deadlines and the personal calendar feed (extensions-v2 25.2): at most one deadline per cohort and course;
 * one feed address per person, its token stored as SHA-256 only.
 */
export class CohortDeadlines1763759100000 implements MigrationInterface {
  name = 'CohortDeadlines1763759100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS cohort_deadlines (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        cohort_id uuid NOT NULL,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 120),
        due_at timestamptz NOT NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        FOREIGN KEY (organization_id, cohort_id) REFERENCES cohorts (organization_id, id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS cohort_deadlines_course_uq ON cohort_deadlines (cohort_id, course_id)`,
    );
    await q.query(
      `CREATE INDEX IF NOT EXISTS cohort_deadlines_org_due_idx ON cohort_deadlines (organization_id, cohort_id, due_at)`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS cohort_deadlines_course_idx ON cohort_deadlines (course_id)`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS cohort_deadlines_created_by_idx ON cohort_deadlines (created_by) WHERE created_by IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE IF NOT EXISTS calendar_feeds (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL,
        last_fetched_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX IF NOT EXISTS calendar_feeds_token_uq ON calendar_feeds (token_hash)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS calendar_feeds`);
    await q.query(`DROP TABLE IF EXISTS cohort_deadlines`);
  }
}
