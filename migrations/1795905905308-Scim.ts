import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 27 (SCIM 2.0, extensions-v3 section 2). The identity provider's tokens per organization (hashed), the last
 * SCIM requests per organization (no bodies), the directory's view of each member it provisions (userName,
 * externalId, names and the enterprise attributes, kept per membership) and of each cohort (externalId), and
 * the membership suspension SCIM's `active: false` sets (a suspended membership no longer opens the organization).
 */
export class Scim1795905905308 implements MigrationInterface {
  name = 'Scim1795905905308';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE memberships ADD COLUMN suspended_at timestamptz NULL`);
    await q.query(`
      CREATE TABLE scim_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        description text NOT NULL CHECK (char_length(description) BETWEEN 1 AND 200),
        default_role text NOT NULL CHECK (default_role IN ('student', 'teacher')),
        token_hash text NOT NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NULL,
        revoked_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX scim_tokens_hash_uq ON scim_tokens (token_hash)`);
    await q.query(`CREATE INDEX scim_tokens_org_live_idx ON scim_tokens (organization_id, created_at DESC)
      WHERE revoked_at IS NULL`);
    await q.query(`CREATE INDEX scim_tokens_created_by_idx ON scim_tokens (created_by) WHERE created_by IS NOT NULL`);
    // No foreign key to organizations: its KEY SHARE lock would make every log line wait for a membership change
    // holding the organization's row lock (FOR UPDATE), and the log is written after the answer, outside it.
    await q.query(`
      CREATE TABLE scim_activity (
        id bigserial PRIMARY KEY,
        organization_id uuid NOT NULL,
        token_id uuid NULL,
        at timestamptz NOT NULL,
        method text NOT NULL,
        path text NOT NULL,
        status int NOT NULL,
        detail text NULL
      )`);
    await q.query(`CREATE INDEX scim_activity_org_idx ON scim_activity (organization_id, id DESC)`);
    await q.query(`
      CREATE TABLE scim_members (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        user_name text NOT NULL CHECK (user_name = lower(user_name)),
        external_id text NULL,
        given_name text NULL,
        family_name text NULL,
        display_name text NULL,
        directory jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX scim_members_user_name_uq ON scim_members (organization_id, user_name)`);
    await q.query(`CREATE INDEX scim_members_external_idx ON scim_members (organization_id, external_id)
      WHERE external_id IS NOT NULL`);
    await q.query(`CREATE INDEX scim_members_user_idx ON scim_members (user_id)`);
    await q.query(`
      CREATE TABLE scim_groups (
        organization_id uuid NOT NULL,
        cohort_id uuid NOT NULL,
        external_id text NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, cohort_id),
        FOREIGN KEY (organization_id, cohort_id) REFERENCES cohorts (organization_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX scim_groups_external_idx ON scim_groups (organization_id, external_id)
      WHERE external_id IS NOT NULL`);
    // displayName filters and the uniqueness check (case-insensitive).
    await q.query(`CREATE INDEX cohorts_org_lower_name_idx ON cohorts (organization_id, lower(name))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX cohorts_org_lower_name_idx`);
    await q.query(`DROP TABLE scim_groups`);
    await q.query(`DROP TABLE scim_members`);
    await q.query(`DROP TABLE scim_activity`);
    await q.query(`DROP TABLE scim_tokens`);
    await q.query(`ALTER TABLE memberships DROP COLUMN suspended_at`);
  }
}
