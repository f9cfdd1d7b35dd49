import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * LTI 1.3 Advantage as the platform (extensions-v3 section 1): the platform's signing keys, the registered tools,
 * each organization's deployment of them, lessons that launch a tool, LTI contexts (organization and course),
 * single-use nonces, launches, service tokens, line items and results, dynamic registrations.
 */
export class Lti1795905889664 implements MigrationInterface {
  name = 'Lti1795905889664';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE lti_platform_keys (
        kid text PRIMARY KEY,
        public_jwk jsonb NOT NULL,
        private_key_sealed text NOT NULL,
        created_at timestamptz NOT NULL,
        retired_at timestamptz NULL
      )`);
    await q.query(`
      CREATE TABLE lti_tools (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
        description text NULL CHECK (char_length(description) <= 500),
        client_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
        initiate_login_url text NOT NULL,
        redirect_uris text[] NOT NULL,
        target_link_uri text NOT NULL,
        deep_linking_url text NULL,
        jwks_url text NULL,
        public_jwk jsonb NULL,
        scopes text[] NOT NULL DEFAULT '{}',
        custom jsonb NOT NULL DEFAULT '{}',
        enabled boolean NOT NULL DEFAULT true,
        registered_by text NOT NULL CHECK (registered_by IN ('manual', 'dynamic')),
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        deleted_at timestamptz NULL,
        CHECK ((jwks_url IS NULL) <> (public_jwk IS NULL))
      )`);
    await q.query(`CREATE INDEX lti_tools_created_by_idx ON lti_tools (created_by) WHERE created_by IS NOT NULL`);
    await q.query(`
      CREATE TABLE lti_deployments (
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        tool_id uuid NOT NULL REFERENCES lti_tools (id) ON DELETE CASCADE,
        deployment_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
        enabled boolean NOT NULL DEFAULT true,
        send_name boolean NOT NULL DEFAULT false,
        send_email boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, tool_id)
      )`);
    await q.query(`CREATE INDEX lti_deployments_tool_idx ON lti_deployments (tool_id, organization_id)`);
    await q.query(`
      CREATE TABLE lti_lesson_links (
        lesson_id uuid PRIMARY KEY REFERENCES lessons (id) ON DELETE CASCADE,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        tool_id uuid NOT NULL REFERENCES lti_tools (id) ON DELETE CASCADE,
        url text NULL,
        custom jsonb NOT NULL DEFAULT '{}',
        score_maximum numeric NULL CHECK (score_maximum BETWEEN 1 AND 1000),
        label text NULL CHECK (char_length(label) <= 120)
      )`);
    await q.query(`CREATE INDEX lti_lesson_links_course_idx ON lti_lesson_links (course_id, tool_id)`);
    await q.query(`CREATE INDEX lti_lesson_links_tool_idx ON lti_lesson_links (tool_id)`);
    await q.query(`
      CREATE TABLE lti_contexts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        UNIQUE (organization_id, course_id)
      )`);
    await q.query(`CREATE INDEX lti_contexts_course_idx ON lti_contexts (course_id)`);
    await q.query(`
      CREATE TABLE lti_used_nonces (
        kind text NOT NULL,
        value text NOT NULL,
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (kind, value)
      )`);
    await q.query(`CREATE INDEX lti_used_nonces_expires_idx ON lti_used_nonces (expires_at)`);
    await q.query(`
      CREATE TABLE lti_launches (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tool_id uuid NOT NULL REFERENCES lti_tools (id) ON DELETE CASCADE,
        organization_id uuid NULL REFERENCES organizations (id) ON DELETE CASCADE,
        lesson_id uuid NULL REFERENCES lessons (id) ON DELETE SET NULL,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        message_type text NOT NULL,
        at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX lti_launches_org_at_idx ON lti_launches (organization_id, at)`);
    await q.query(`CREATE INDEX lti_launches_user_idx ON lti_launches (user_id)`);
    await q.query(`CREATE INDEX lti_launches_at_idx ON lti_launches (at)`);
    await q.query(`
      CREATE TABLE lti_access_tokens (
        token_hash text PRIMARY KEY,
        tool_id uuid NOT NULL REFERENCES lti_tools (id) ON DELETE CASCADE,
        scopes text[] NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX lti_access_tokens_expires_idx ON lti_access_tokens (expires_at)`);
    await q.query(`
      CREATE TABLE lti_line_items (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tool_id uuid NOT NULL REFERENCES lti_tools (id) ON DELETE CASCADE,
        context_id uuid NOT NULL REFERENCES lti_contexts (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL,
        lesson_id uuid NULL REFERENCES lessons (id) ON DELETE CASCADE,
        resource_link_id text NULL,
        label text NOT NULL CHECK (char_length(label) BETWEEN 1 AND 120),
        score_maximum numeric NOT NULL CHECK (score_maximum > 0),
        resource_id text NULL,
        tag text NULL,
        start_date_time timestamptz NULL,
        end_date_time timestamptz NULL,
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX lti_line_items_context_idx ON lti_line_items (context_id, tool_id, created_at, id)`);
    await q.query(
      `CREATE UNIQUE INDEX lti_line_items_lesson_uq ON lti_line_items (context_id, lesson_id) WHERE lesson_id IS NOT NULL`,
    );
    await q.query(`CREATE INDEX lti_line_items_lesson_idx ON lti_line_items (lesson_id) WHERE lesson_id IS NOT NULL`);
    await q.query(`
      CREATE TABLE lti_results (
        line_item_id uuid NOT NULL REFERENCES lti_line_items (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        score_given numeric NULL,
        score_maximum numeric NULL,
        comment text NULL CHECK (char_length(comment) <= 1000),
        activity_progress text NOT NULL,
        grading_progress text NOT NULL,
        timestamp timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (line_item_id, user_id)
      )`);
    await q.query(`CREATE INDEX lti_results_user_idx ON lti_results (user_id)`);
    await q.query(`CREATE INDEX lti_results_org_idx ON lti_results (organization_id, updated_at)`);
    await q.query(`
      CREATE TABLE lti_registrations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash text NOT NULL UNIQUE,
        initiation_url text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        tool_id uuid NULL REFERENCES lti_tools (id) ON DELETE SET NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL
      )`);
    // The `lti_results` report type (extensions-v3 1.6).
    await q.query(`ALTER TABLE reports DROP CONSTRAINT IF EXISTS reports_type_check`);
    await q.query(
      `ALTER TABLE reports ADD CONSTRAINT reports_type_check
       CHECK (type IN ('progress', 'certificates', 'engagement', 'exams', 'lti_results'))`,
    );
    await q.query(
      `CREATE INDEX lti_registrations_created_by_idx ON lti_registrations (created_by) WHERE created_by IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM reports WHERE type = 'lti_results'`);
    await q.query(`ALTER TABLE reports DROP CONSTRAINT IF EXISTS reports_type_check`);
    await q.query(
      `ALTER TABLE reports ADD CONSTRAINT reports_type_check CHECK (type IN ('progress', 'certificates', 'engagement', 'exams'))`,
    );
    for (const table of [
      'lti_registrations',
      'lti_results',
      'lti_line_items',
      'lti_access_tokens',
      'lti_launches',
      'lti_used_nonces',
      'lti_contexts',
      'lti_lesson_links',
      'lti_deployments',
      'lti_tools',
      'lti_platform_keys',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
