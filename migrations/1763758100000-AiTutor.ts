import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The AI tutor and its metering (extensions-v2 16.1, 23, 24): the plan's monthly AI limits on organizations, the
 * organization's AI settings, one metered row per provider call, tutor conversations and messages (private to their
 * author, gone with the membership), and AI quiz proposals of the editor.
 */
export class AiTutor1763758100000 implements MigrationInterface {
  name = 'AiTutor1763758100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE organizations
      ADD COLUMN ai_monthly_tokens bigint NULL CHECK (ai_monthly_tokens BETWEEN 1 AND 10000000000),
      ADD COLUMN ai_monthly_requests integer NULL CHECK (ai_monthly_requests BETWEEN 1 AND 100000000)`);

    await q.query(`
      CREATE TABLE organization_ai_settings (
        organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
        tutor_enabled boolean NOT NULL DEFAULT true,
        minors_allowed boolean NOT NULL DEFAULT false,
        per_member_daily_tokens integer NULL CHECK (per_member_daily_tokens BETWEEN 1000 AND 10000000),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    // Kept when a person leaves or is erased (user_id then null): the organization's totals must stay right.
    await q.query(`
      CREATE TABLE ai_usage (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        occurred_at timestamptz NOT NULL,
        organization_id uuid NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        feature text NOT NULL CHECK (feature IN ('tutor', 'quiz_proposal')),
        provider text NOT NULL CHECK (provider IN ('local', 'openai_compatible')),
        model text NOT NULL CHECK (char_length(model) BETWEEN 1 AND 128),
        input_tokens integer NOT NULL CHECK (input_tokens >= 0),
        output_tokens integer NOT NULL CHECK (output_tokens >= 0),
        status text NOT NULL CHECK (status IN ('ok', 'error', 'interrupted')),
        request_id text NULL CHECK (char_length(request_id) <= 128)
      )`);
    // Quotas and the organization's views (month and day sums, by member or feature).
    await q.query(
      `CREATE INDEX ai_usage_org_time_idx ON ai_usage (organization_id, occurred_at) INCLUDE (input_tokens, output_tokens)`,
    );
    // The member's daily quota and the person's own usage.
    await q.query(
      `CREATE INDEX ai_usage_user_time_idx ON ai_usage (user_id, occurred_at) INCLUDE (organization_id, input_tokens, output_tokens)`,
    );
    // The platform view.
    await q.query(`CREATE INDEX ai_usage_time_idx ON ai_usage (occurred_at)`);

    await q.query(`
      CREATE TABLE tutor_conversations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        lesson_id uuid NULL REFERENCES lessons (id) ON DELETE SET NULL,
        title text NULL CHECK (char_length(title) <= 80),
        messages_count integer NOT NULL DEFAULT 0 CHECK (messages_count >= 0),
        answering_until timestamptz NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX tutor_conversations_owner_idx ON tutor_conversations (organization_id, user_id, updated_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX tutor_conversations_course_idx ON tutor_conversations (organization_id, user_id, course_id, updated_at DESC, id DESC)`,
    );
    await q.query(`CREATE INDEX tutor_conversations_user_idx ON tutor_conversations (user_id)`);
    await q.query(`CREATE INDEX tutor_conversations_course_fk_idx ON tutor_conversations (course_id)`);
    await q.query(
      `CREATE INDEX tutor_conversations_lesson_fk_idx ON tutor_conversations (lesson_id) WHERE lesson_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE tutor_messages (
        id uuid PRIMARY KEY,
        conversation_id uuid NOT NULL REFERENCES tutor_conversations (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('user', 'assistant')),
        content text NOT NULL CHECK (char_length(content) <= 100000),
        citations jsonb NOT NULL DEFAULT '[]',
        status text NOT NULL CHECK (status IN ('complete', 'interrupted', 'failed')),
        input_tokens integer NULL,
        output_tokens integer NULL,
        provider text NULL,
        model text NULL,
        finish_reason text NULL CHECK (finish_reason IN ('stop', 'length')),
        created_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX tutor_messages_conversation_idx ON tutor_messages (conversation_id, created_at, id)`);

    await q.query(`
      CREATE TABLE quiz_proposals (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        lesson_id uuid NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
        status text NOT NULL CHECK (status IN ('queued', 'running', 'ready', 'failed')),
        count integer NOT NULL CHECK (count BETWEEN 1 AND 10),
        kinds text[] NOT NULL,
        provider text NULL,
        model text NULL,
        questions jsonb NOT NULL DEFAULT '[]',
        error_code text NULL,
        input_tokens integer NULL,
        output_tokens integer NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        finished_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX quiz_proposals_lesson_idx ON quiz_proposals (lesson_id, created_at DESC, id DESC)`);
    await q.query(`CREATE INDEX quiz_proposals_course_idx ON quiz_proposals (course_id)`);
    await q.query(
      `CREATE INDEX quiz_proposals_creator_idx ON quiz_proposals (created_by) WHERE created_by IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'quiz_proposals',
      'tutor_messages',
      'tutor_conversations',
      'ai_usage',
      'organization_ai_settings',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
    await q.query(`ALTER TABLE organizations DROP COLUMN ai_monthly_requests, DROP COLUMN ai_monthly_tokens`);
  }
}
