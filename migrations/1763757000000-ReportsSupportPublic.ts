import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Wave-2 issue 17: organization reports (extensions-v2 15), support tickets (19), public contact and demo requests
 * (20), telemetry without personal data (21), the statistics' hourly learning-activity aggregate kept by event
 * subscribers (14), and the stored platform certificate template (16.2).
 */
export class ReportsSupportPublic1763757000000 implements MigrationInterface {
  name = 'ReportsSupportPublic1763757000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE IF NOT EXISTS reports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('progress', 'certificates', 'engagement', 'exams')),
        format text NOT NULL CHECK (format IN ('csv', 'xlsx')),
        lang text NOT NULL CHECK (lang IN ('es', 'en')),
        separator text NOT NULL DEFAULT 'comma' CHECK (separator IN ('comma', 'semicolon')),
        filters jsonb NOT NULL DEFAULT '{}'::jsonb,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed', 'expired')),
        rows integer NULL,
        size_bytes bigint NULL,
        error_code text NULL,
        file_key text NULL,
        requested_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        started_at timestamptz NULL,
        finished_at timestamptz NULL,
        expires_at timestamptz NULL
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS reports_org_created_idx ON reports (organization_id, created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS reports_requested_by_idx ON reports (requested_by)`);
    await q.query(`CREATE INDEX IF NOT EXISTS reports_expiry_idx ON reports (expires_at) WHERE status = 'completed'`);

    await q.query(`CREATE SEQUENCE IF NOT EXISTS support_ticket_number_seq`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS support_tickets (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        number bigint NOT NULL UNIQUE DEFAULT nextval('support_ticket_number_seq'),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        organization_id uuid NULL REFERENCES organizations (id) ON DELETE SET NULL,
        subject text NOT NULL CHECK (char_length(subject) BETWEEN 1 AND 200),
        category text NOT NULL CHECK (category IN ('account', 'access', 'billing', 'content', 'technical', 'other')),
        status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'waiting_on_user', 'closed')),
        priority text NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high')),
        client jsonb NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        closed_at timestamptz NULL,
        last_message_at timestamptz NOT NULL,
        last_staff_reply_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX IF NOT EXISTS support_tickets_user_idx ON support_tickets (user_id, updated_at DESC)`);
    await q.query(`CREATE INDEX IF NOT EXISTS support_tickets_status_idx ON support_tickets (status, updated_at DESC)`);
    await q.query(`
      CREATE TABLE IF NOT EXISTS support_messages (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ticket_id uuid NOT NULL REFERENCES support_tickets (id) ON DELETE CASCADE,
        author_kind text NOT NULL CHECK (author_kind IN ('user', 'staff')),
        author_id uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        body text NOT NULL CHECK (char_length(body) BETWEEN 1 AND 10000),
        internal boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS support_messages_ticket_idx ON support_messages (ticket_id, created_at, id)`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS support_messages_author_idx ON support_messages (author_id)`);

    await q.query(`
      CREATE TABLE IF NOT EXISTS contact_requests (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('contact', 'demo')),
        name text NOT NULL,
        email text NOT NULL,
        topic text NULL,
        organization_name text NULL,
        role text NULL,
        organization_size text NULL,
        country text NULL,
        message text NULL,
        locale text NULL,
        status text NOT NULL DEFAULT 'new' CHECK (status IN ('new', 'handled', 'spam')),
        created_at timestamptz NOT NULL,
        handled_at timestamptz NULL
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS contact_requests_created_idx ON contact_requests (created_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS contact_requests_email_idx ON contact_requests (lower(email))`);

    await q.query(`
      CREATE TABLE IF NOT EXISTS telemetry_vitals (
        id bigserial PRIMARY KEY,
        release text NULL,
        route text NOT NULL,
        metric text NOT NULL CHECK (metric IN ('LCP', 'INP', 'CLS', 'FCP', 'TTFB')),
        value double precision NOT NULL,
        rating text NOT NULL CHECK (rating IN ('good', 'needs-improvement', 'poor')),
        navigation_type text NULL,
        device text NOT NULL,
        browser text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS telemetry_vitals_created_idx ON telemetry_vitals (created_at, route, metric)`,
    );
    await q.query(`
      CREATE TABLE IF NOT EXISTS telemetry_errors (
        id bigserial PRIMARY KEY,
        release text NULL,
        route text NOT NULL,
        fingerprint text NOT NULL,
        message text NOT NULL,
        stack text NULL,
        kind text NOT NULL,
        device text NOT NULL,
        browser text NOT NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS telemetry_errors_created_idx ON telemetry_errors (created_at, fingerprint)`,
    );

    // One row per person, organization and UTC hour with a learning fact: series by any local day, active users
    // per window, without reading the facts themselves.
    await q.query(`
      CREATE TABLE IF NOT EXISTS learning_activity_hourly (
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        hour timestamptz NOT NULL,
        lessons_completed integer NOT NULL DEFAULT 0,
        quizzes_submitted integer NOT NULL DEFAULT 0,
        quizzes_passed integer NOT NULL DEFAULT 0,
        enrollments integer NOT NULL DEFAULT 0,
        completions integer NOT NULL DEFAULT 0,
        exams_submitted integer NOT NULL DEFAULT 0,
        reviews integer NOT NULL DEFAULT 0,
        PRIMARY KEY (organization_id, hour, user_id)
      )`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS learning_activity_hourly_user_idx ON learning_activity_hourly (user_id, hour)`,
    );
    // The facts recorded before the subscriber existed, once (the subscriber adds the later ones).
    await q.query(`
      INSERT INTO learning_activity_hourly (organization_id, user_id, hour, lessons_completed, quizzes_submitted,
        quizzes_passed, enrollments, completions, exams_submitted)
      SELECT organization_id, user_id, hour, sum(l), sum(qs), sum(qp), sum(en), sum(co), sum(ex) FROM (
        SELECT organization_id, user_id, date_trunc('hour', completed_at) AS hour, 1 AS l, 0 AS qs, 0 AS qp, 0 AS en,
          0 AS co, 0 AS ex FROM lesson_completions
        UNION ALL SELECT organization_id, user_id, date_trunc('hour', submitted_at), 0, 1,
          CASE WHEN passed THEN 1 ELSE 0 END, 0, 0, 0 FROM quiz_submissions
        UNION ALL SELECT organization_id, user_id, date_trunc('hour', enrolled_at), 0, 0, 0, 1, 0, 0 FROM enrollments
        UNION ALL SELECT organization_id, user_id, date_trunc('hour', completed_at), 0, 0, 0, 0, 1, 0 FROM enrollments
          WHERE completed_at IS NOT NULL
        UNION ALL SELECT organization_id, user_id, date_trunc('hour', submitted_at), 0, 0, 0, 0, 0, 1 FROM exam_sessions
          WHERE submitted_at IS NOT NULL
      ) f GROUP BY organization_id, user_id, hour
      ON CONFLICT DO NOTHING`);

    await q.query(`
      CREATE TABLE IF NOT EXISTS platform_settings (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        updated_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        updated_at timestamptz NOT NULL
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS platform_settings`);
    await q.query(`DROP TABLE IF EXISTS learning_activity_hourly`);
    await q.query(`DROP TABLE IF EXISTS telemetry_errors`);
    await q.query(`DROP TABLE IF EXISTS telemetry_vitals`);
    await q.query(`DROP TABLE IF EXISTS contact_requests`);
    await q.query(`DROP TABLE IF EXISTS support_messages`);
    await q.query(`DROP TABLE IF EXISTS support_tickets`);
    await q.query(`DROP SEQUENCE IF EXISTS support_ticket_number_seq`);
    await q.query(`DROP TABLE IF EXISTS reports`);
  }
}
