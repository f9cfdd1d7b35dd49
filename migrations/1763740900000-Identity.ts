import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Accounts, email codes, cookie sessions with rotating refresh tokens, two-factor, consents. */
export class Identity1763740900000 implements MigrationInterface {
  name = 'Identity1763740900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email text NOT NULL CHECK (email = lower(email)),
        username text NOT NULL,
        name text NULL CHECK (char_length(name) BETWEEN 1 AND 255),
        headline text NULL CHECK (char_length(headline) <= 160),
        bio text NULL CHECK (char_length(bio) <= 500),
        location text NULL CHECK (char_length(location) <= 120),
        avatar_url text NULL CHECK (char_length(avatar_url) <= 512),
        locale text NOT NULL DEFAULT 'es' CHECK (locale IN ('es', 'en')),
        public_profile boolean NOT NULL DEFAULT false,
        platform_roles text[] NOT NULL DEFAULT '{}',
        token_version integer NOT NULL DEFAULT 0,
        last_organization_id uuid NULL,
        age_bracket text NULL CHECK (age_bracket IN ('adult', 'under_18')),
        avatar jsonb NULL,
        two_factor_secret text NULL,
        two_factor_enabled_at timestamptz NULL,
        two_factor_last_step bigint NULL,
        onboarding_completed_at timestamptz NULL,
        first_steps jsonb NOT NULL DEFAULT '{}'::jsonb,
        first_steps_hidden boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_uq ON users (email)`);
    await q.query(`CREATE UNIQUE INDEX users_username_uq ON users (username)`);

    await q.query(`
      CREATE TABLE recovery_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        code_hash text NOT NULL,
        used_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX recovery_codes_user_idx ON recovery_codes (user_id) WHERE used_at IS NULL`);

    // One live code per purpose and subject: issuing a new one replaces (voids) the previous.
    await q.query(`
      CREATE TABLE email_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        purpose text NOT NULL CHECK (purpose IN ('sign_in', 'step_up', 'email_change', 'invitation')),
        subject text NOT NULL,
        code_hash text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX email_codes_purpose_subject_uq ON email_codes (purpose, subject)`);
    await q.query(`CREATE INDEX email_codes_expires_idx ON email_codes (expires_at)`);

    await q.query(`
      CREATE TABLE sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        device text NOT NULL,
        ip_fingerprint text NULL,
        created_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL,
        revoked_reason text NULL,
        impersonator_id uuid NULL REFERENCES users (id) ON DELETE CASCADE,
        impersonation_expires_at timestamptz NULL
      )`);
    await q.query(
      `CREATE INDEX sessions_user_live_idx ON sessions (user_id, created_at DESC) WHERE revoked_at IS NULL`,
    );

    // Rotated-out tokens stay (rotated_at set) so that presenting one again is recognised as reuse.
    await q.query(`
      CREATE TABLE refresh_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        session_id uuid NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        token_hash text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        rotated_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX refresh_tokens_hash_uq ON refresh_tokens (token_hash)`);
    await q.query(`CREATE INDEX refresh_tokens_session_idx ON refresh_tokens (session_id)`);

    await q.query(`
      CREATE TABLE auth_challenges (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('two_factor')),
        token_hash text NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        context jsonb NOT NULL DEFAULT '{}'::jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX auth_challenges_token_uq ON auth_challenges (token_hash)`);

    await q.query(`
      CREATE TABLE consents (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind text NOT NULL,
        terms_version text NOT NULL,
        ip_fingerprint text NULL,
        granted_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX consents_user_kind_idx ON consents (user_id, kind, granted_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'consents',
      'auth_challenges',
      'refresh_tokens',
      'sessions',
      'email_codes',
      'recovery_codes',
      'users',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
  }
}
