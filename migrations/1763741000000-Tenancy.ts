import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Organizations, memberships, institutes and cohorts, invitations, member imports, personal access tokens. */
export class Tenancy1763741000000 implements MigrationInterface {
  name = 'Tenancy1763741000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE institutes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
        city text NULL CHECK (char_length(city) <= 120),
        contact_email text NULL CHECK (char_length(contact_email) <= 254),
        website text NULL CHECK (char_length(website) <= 512),
        created_by_organization_id uuid NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);

    await q.query(`
      CREATE TABLE organizations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
        slug text NOT NULL CHECK (slug ~ '^[a-z0-9-]{3,60}$'),
        locale text NOT NULL DEFAULT 'es' CHECK (locale IN ('es', 'en')),
        logo_url text NULL,
        brand_color text NULL CHECK (brand_color ~ '^#[0-9A-Fa-f]{6}$'),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
        suspended_at timestamptz NULL,
        suspended_reason text NULL,
        plan text NOT NULL DEFAULT 'free',
        member_limit integer NULL CHECK (member_limit > 0),
        legacy_institute_id uuid NULL REFERENCES institutes (id) ON DELETE SET NULL,
        cert_issuer_name text NULL,
        cert_signature_name text NULL,
        cert_signature_title text NULL,
        cert_logo_url text NULL,
        cert_footer_text text NULL,
        cert_accent_color text NULL CHECK (cert_accent_color ~ '^#[0-9A-Fa-f]{6}$'),
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX organizations_slug_uq ON organizations (slug)`);
    await q.query(`ALTER TABLE institutes ADD CONSTRAINT institutes_created_by_org_fk
      FOREIGN KEY (created_by_organization_id) REFERENCES organizations (id) ON DELETE SET NULL`);
    await q.query(`CREATE INDEX institutes_created_by_org_idx ON institutes (created_by_organization_id)`);
    await q.query(`ALTER TABLE users ADD CONSTRAINT users_last_organization_fk
      FOREIGN KEY (last_organization_id) REFERENCES organizations (id) ON DELETE SET NULL`);

    await q.query(`
      CREATE TABLE memberships (
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'teacher', 'student')),
        joined_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, user_id)
      )`);
    await q.query(`CREATE INDEX memberships_user_idx ON memberships (user_id)`);
    await q.query(`CREATE INDEX memberships_org_role_idx ON memberships (organization_id, role, joined_at DESC)`);

    await q.query(`
      CREATE TABLE cohorts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        institute_id uuid NULL REFERENCES institutes (id) ON DELETE SET NULL,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
        starts_on date NULL,
        ends_on date NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (ends_on IS NULL OR starts_on IS NULL OR ends_on >= starts_on)
      )`);
    await q.query(`CREATE INDEX cohorts_org_idx ON cohorts (organization_id, created_at DESC)`);
    await q.query(`CREATE INDEX cohorts_institute_idx ON cohorts (institute_id, organization_id)`);
    // The organization is repeated so tenant queries filter on it directly; the pair must match the cohort's.
    await q.query(`CREATE UNIQUE INDEX cohorts_org_id_uq ON cohorts (organization_id, id)`);
    await q.query(`
      CREATE TABLE cohort_members (
        cohort_id uuid NOT NULL,
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        role text NOT NULL CHECK (role IN ('student', 'teacher')),
        added_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (cohort_id, user_id),
        FOREIGN KEY (organization_id, cohort_id) REFERENCES cohorts (organization_id, id) ON DELETE CASCADE,
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX cohort_members_org_user_idx ON cohort_members (organization_id, user_id)`);

    await q.query(`
      CREATE TABLE invitations (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        email text NOT NULL CHECK (email = lower(email)),
        role text NOT NULL CHECK (role IN ('owner', 'admin', 'teacher', 'student')),
        cohort_id uuid NULL REFERENCES cohorts (id) ON DELETE SET NULL,
        token_hash text NOT NULL,
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'revoked')),
        expires_at timestamptz NOT NULL,
        invited_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        accepted_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        accepted_at timestamptz NULL,
        revoked_at timestamptz NULL,
        import_id uuid NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX invitations_token_uq ON invitations (token_hash)`);
    await q.query(`CREATE INDEX invitations_org_status_idx ON invitations (organization_id, status, created_at DESC)`);
    await q.query(`CREATE INDEX invitations_email_pending_idx ON invitations (email) WHERE status = 'pending'`);

    await q.query(`
      CREATE TABLE member_imports (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'completed', 'failed')),
        total integer NOT NULL DEFAULT 0,
        error text NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz NULL,
        finished_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX member_imports_org_idx ON member_imports (organization_id, created_at DESC)`);
    await q.query(`
      CREATE TABLE member_import_rows (
        import_id uuid NOT NULL REFERENCES member_imports (id) ON DELETE CASCADE,
        row_number integer NOT NULL,
        email text NULL,
        name text NULL,
        role text NULL,
        cohort text NULL,
        outcome text NULL CHECK (outcome IN ('invited', 'added', 'skipped', 'failed')),
        reason text NULL,
        PRIMARY KEY (import_id, row_number)
      )`);
    await q.query(
      `CREATE INDEX member_import_rows_pending_idx ON member_import_rows (import_id, row_number) WHERE outcome IS NULL`,
    );

    await q.query(`
      CREATE TABLE api_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
        prefix text NOT NULL,
        token_hash text NOT NULL,
        access text NOT NULL CHECK (access IN ('read', 'write')),
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        last_used_at timestamptz NULL,
        revoked_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX api_keys_token_uq ON api_keys (token_hash)`);
    await q.query(`CREATE INDEX api_keys_user_idx ON api_keys (user_id, created_at DESC)`);

    // The audit list filters by organization, action and time.
    await q.query(
      `CREATE INDEX audit_log_org_action_time_idx ON audit_log (organization_id, action, created_at DESC, id DESC)`,
    );
    await q.query(`DROP INDEX audit_log_org_action_created_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX audit_log_org_action_created_idx ON audit_log (organization_id, action, created_at DESC)`,
    );
    await q.query(`DROP INDEX audit_log_org_action_time_idx`);
    await q.query(`ALTER TABLE users DROP CONSTRAINT users_last_organization_fk`);
    for (const table of [
      'api_keys',
      'member_import_rows',
      'member_imports',
      'invitations',
      'cohort_members',
      'cohorts',
      'memberships',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
    await q.query(`ALTER TABLE institutes DROP CONSTRAINT institutes_created_by_org_fk`);
    await q.query(`DROP TABLE organizations`);
    await q.query(`DROP TABLE institutes`);
  }
}
