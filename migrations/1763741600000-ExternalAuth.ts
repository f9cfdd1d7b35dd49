import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * External sign-in (Google, Microsoft), institutional SSO (connections, verified domains) and the OAuth 2.1
 * authorization server (clients, pending authorization requests, codes, grants, access and refresh tokens).
 * Secrets are stored only as SHA-256 fingerprints (states, codes, tokens) or encrypted (client secrets of SSO
 * connections, PKCE verifiers of sign-in starts).
 */
export class ExternalAuth1763741600000 implements MigrationInterface {
  name = 'ExternalAuth1763741600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sso_connections (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 120),
        issuer text NOT NULL CHECK (char_length(issuer) BETWEEN 1 AND 512),
        client_id text NOT NULL CHECK (char_length(client_id) BETWEEN 1 AND 512),
        client_secret_encrypted text NOT NULL,
        enabled boolean NOT NULL DEFAULT true,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX sso_connections_org_idx ON sso_connections (organization_id, created_at DESC, id)`);

    await q.query(`
      CREATE TABLE sso_domains (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        domain text NOT NULL CHECK (domain ~ '^[a-z0-9.-]{3,253}$'),
        status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'verified')),
        verification_token text NOT NULL,
        enforced boolean NOT NULL DEFAULT false,
        verified_at timestamptz NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CHECK (NOT enforced OR status = 'verified')
      )`);
    await q.query(`CREATE UNIQUE INDEX sso_domains_org_domain_uq ON sso_domains (organization_id, domain)`);
    // A domain is verified by one organization at most.
    await q.query(`CREATE UNIQUE INDEX sso_domains_verified_uq ON sso_domains (domain) WHERE status = 'verified'`);
    await q.query(`CREATE INDEX sso_domains_org_idx ON sso_domains (organization_id, created_at DESC, id)`);

    await q.query(`
      CREATE TABLE external_identities (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        issuer text NOT NULL,
        subject text NOT NULL,
        provider text NOT NULL CHECK (provider IN ('google', 'microsoft', 'sso')),
        connection_id uuid NULL REFERENCES sso_connections (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX external_identities_issuer_subject_uq ON external_identities (issuer, subject)`);
    await q.query(`CREATE INDEX external_identities_user_idx ON external_identities (user_id)`);
    await q.query(`CREATE INDEX external_identities_connection_idx ON external_identities (connection_id)`);

    await q.query(`
      CREATE TABLE sign_in_states (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        state_hash text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('provider', 'sso')),
        provider text NULL CHECK (provider IN ('google', 'microsoft')),
        connection_id uuid NULL REFERENCES sso_connections (id) ON DELETE CASCADE,
        nonce text NOT NULL,
        code_verifier_encrypted text NOT NULL,
        test boolean NOT NULL DEFAULT false,
        created_by uuid NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL,
        CHECK ((kind = 'provider' AND provider IS NOT NULL) OR (kind = 'sso' AND connection_id IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX sign_in_states_hash_uq ON sign_in_states (state_hash)`);
    await q.query(`CREATE INDEX sign_in_states_expires_idx ON sign_in_states (expires_at)`);
    await q.query(`CREATE INDEX sign_in_states_connection_idx ON sign_in_states (connection_id)`);

    await q.query(`
      CREATE TABLE oauth_clients (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        client_name text NULL CHECK (char_length(client_name) <= 200),
        redirect_uris text[] NOT NULL,
        grant_types text[] NOT NULL,
        response_types text[] NOT NULL,
        token_endpoint_auth_method text NOT NULL CHECK (token_endpoint_auth_method = 'none'),
        scope text NOT NULL,
        client_uri text NULL,
        logo_uri text NULL,
        software_id text NULL,
        software_version text NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX oauth_clients_created_idx ON oauth_clients (created_at)`);

    await q.query(`
      CREATE TABLE oauth_authorization_requests (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        session_id uuid NOT NULL,
        redirect_uri text NOT NULL,
        state text NULL,
        code_challenge text NOT NULL,
        scope text NOT NULL,
        resource text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL
      )`);
    await q.query(`CREATE INDEX oauth_authorization_requests_expires_idx ON oauth_authorization_requests (expires_at)`);
    await q.query(`CREATE INDEX oauth_authorization_requests_client_idx ON oauth_authorization_requests (client_id)`);
    await q.query(`CREATE INDEX oauth_authorization_requests_user_idx ON oauth_authorization_requests (user_id)`);

    await q.query(`
      CREATE TABLE oauth_grants (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        access text NOT NULL CHECK (access IN ('read', 'write')),
        scope text NOT NULL,
        resource text NOT NULL,
        created_at timestamptz NOT NULL,
        revoked_at timestamptz NULL,
        revoked_reason text NULL,
        shared_since timestamptz NULL,
        publishing_enabled boolean NOT NULL DEFAULT false
      )`);
    await q.query(
      `CREATE INDEX oauth_grants_user_live_idx ON oauth_grants (user_id, created_at DESC) WHERE revoked_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX oauth_grants_client_user_org_idx ON oauth_grants (client_id, user_id, organization_id)`,
    );
    await q.query(`CREATE INDEX oauth_grants_org_idx ON oauth_grants (organization_id)`);

    await q.query(`
      CREATE TABLE oauth_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        code_hash text NOT NULL,
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        redirect_uri text NOT NULL,
        code_challenge text NOT NULL,
        scope text NOT NULL,
        resource text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX oauth_codes_hash_uq ON oauth_codes (code_hash)`);
    await q.query(`CREATE INDEX oauth_codes_grant_idx ON oauth_codes (grant_id)`);
    await q.query(`CREATE INDEX oauth_codes_expires_idx ON oauth_codes (expires_at)`);

    await q.query(`
      CREATE TABLE oauth_access_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash text NOT NULL,
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        access text NOT NULL CHECK (access IN ('read', 'write')),
        scope text NOT NULL,
        resource text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX oauth_access_tokens_hash_uq ON oauth_access_tokens (token_hash)`);
    await q.query(`CREATE INDEX oauth_access_tokens_grant_idx ON oauth_access_tokens (grant_id)`);
    await q.query(`CREATE INDEX oauth_access_tokens_expires_idx ON oauth_access_tokens (expires_at)`);

    // parent_id chains each rotation to the token it replaced; presenting a rotated-out token is reuse.
    await q.query(`
      CREATE TABLE oauth_refresh_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token_hash text NOT NULL,
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        parent_id uuid NULL REFERENCES oauth_refresh_tokens (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        rotated_at timestamptz NULL,
        revoked_at timestamptz NULL
      )`);
    await q.query(`CREATE UNIQUE INDEX oauth_refresh_tokens_hash_uq ON oauth_refresh_tokens (token_hash)`);
    await q.query(`CREATE INDEX oauth_refresh_tokens_grant_idx ON oauth_refresh_tokens (grant_id)`);
    await q.query(`CREATE INDEX oauth_refresh_tokens_parent_idx ON oauth_refresh_tokens (parent_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'oauth_refresh_tokens',
      'oauth_access_tokens',
      'oauth_codes',
      'oauth_grants',
      'oauth_authorization_requests',
      'oauth_clients',
      'sign_in_states',
      'external_identities',
      'sso_domains',
      'sso_connections',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
