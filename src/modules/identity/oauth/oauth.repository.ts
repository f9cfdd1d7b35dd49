import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import { SharedCache } from '@/core/cache/cache';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import type { Tx } from '@/core/database/transaction';
import { isUuid } from '@/core/http/uuid';
import type { ClientMetadata } from './client-registration';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface ClientRow extends Omit<ClientMetadata, 'token_endpoint_auth_method'> {
  id: string;
  token_endpoint_auth_method: 'none';
  created_at: Date;
}

export interface AuthorizationRequestRow {
  id: string;
  client_id: string;
  user_id: string;
  session_id: string;
  redirect_uri: string;
  state: string | null;
  code_challenge: string;
  scope: string;
  resource: string;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface GrantRow {
  id: string;
  user_id: string;
  client_id: string;
  organization_id: string;
  access: 'read' | 'write';
  scope: string;
  resource: string;
  created_at: Date;
  revoked_at: Date | null;
  shared_since: Date | null;
  publishing_enabled: boolean;
}

export interface CodeRow {
  id: string;
  grant_id: string;
  /** The grant's organization. */
  organization_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: string;
  resource: string;
  expires_at: Date;
  used_at: Date | null;
}

export interface AccessTokenRow {
  id: string;
  grant_id: string;
  user_id: string;
  organization_id: string;
  access: 'read' | 'write';
  scope: string;
  resource: string;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface RefreshTokenRow {
  id: string;
  grant_id: string;
  /** The grant's organization. */
  organization_id: string;
  expires_at: Date;
  rotated_at: Date | null;
  revoked_at: Date | null;
}

const CLIENT_COLUMNS =
  'id, client_name, redirect_uris, grant_types, response_types, token_endpoint_auth_method, scope, client_uri, logo_uri, software_id, software_version, created_at';
const REQUEST_COLUMNS =
  'id, client_id, user_id, session_id, redirect_uri, state, code_challenge, scope, resource, created_at, expires_at, used_at';
const GRANT_COLUMNS =
  'id, user_id, client_id, organization_id, access, scope, resource, created_at, revoked_at, shared_since, publishing_enabled';
const ACCESS_COLUMNS = 'id, grant_id, user_id, organization_id, access, scope, resource, expires_at, revoked_at';
const REFRESH_COLUMNS = 'id, grant_id, organization_id, expires_at, rotated_at, revoked_at';

/**
 * Storage of the authorization server. Codes and tokens are kept only as SHA-256 fingerprints; access tokens are
 * read through a cache that every instance drops at once when a token or its grant is revoked.
 */
@Injectable()
export class OAuthRepository {
  private readonly accessByHash: SharedCache<AccessTokenRow>;

  constructor(
    private readonly dataSource: DataSource,
    bus: InvalidationBus,
  ) {
    this.accessByHash = new SharedCache<AccessTokenRow>('oauth_access_token', bus, { max: 50_000, ttlMs: 60_000 });
  }

  // Clients.
  async insertClient(meta: ClientMetadata, now: Date): Promise<ClientRow> {
    const rows = await this.dataSource.query<ClientRow[]>(
      `INSERT INTO oauth_clients (client_name, redirect_uris, grant_types, response_types, token_endpoint_auth_method,
         scope, client_uri, logo_uri, software_id, software_version, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${CLIENT_COLUMNS}`,
      [
        meta.client_name,
        meta.redirect_uris,
        meta.grant_types,
        meta.response_types,
        meta.token_endpoint_auth_method,
        meta.scope,
        meta.client_uri,
        meta.logo_uri,
        meta.software_id,
        meta.software_version,
        now,
      ],
    );
    return rows[0];
  }

  async findClient(id: string): Promise<ClientRow | null> {
    if (!isUuid(id)) return null;
    const rows = await this.dataSource.query<ClientRow[]>(`SELECT ${CLIENT_COLUMNS} FROM oauth_clients WHERE id = $1`, [
      id,
    ]);
    return rows[0] ?? null;
  }

  // Pending authorization requests (between the consent page and the decision).
  async insertRequest(values: Omit<AuthorizationRequestRow, 'id' | 'used_at'>): Promise<string> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `INSERT INTO oauth_authorization_requests (client_id, user_id, session_id, redirect_uri, state, code_challenge,
         scope, resource, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        values.client_id,
        values.user_id,
        values.session_id,
        values.redirect_uri,
        values.state,
        values.code_challenge,
        values.scope,
        values.resource,
        values.created_at,
        values.expires_at,
      ],
    );
    await this.dataSource.query(
      `DELETE FROM oauth_authorization_requests WHERE id IN (
         SELECT id FROM oauth_authorization_requests WHERE expires_at < $1 LIMIT 100)`,
      [new Date(values.created_at.getTime() - 24 * 60 * 60 * 1000)],
    );
    return rows[0].id;
  }

  async findRequest(id: string, userId: string): Promise<AuthorizationRequestRow | null> {
    if (!isUuid(id)) return null;
    const rows = await this.dataSource.query<AuthorizationRequestRow[]>(
      `SELECT ${REQUEST_COLUMNS} FROM oauth_authorization_requests WHERE id = $1 AND user_id = $2`,
      [id, userId],
    );
    return rows[0] ?? null;
  }

  /** Marks the request decided; null when it was already decided or has expired. */
  async consumeRequest(id: string, userId: string, now: Date, tx: Tx): Promise<AuthorizationRequestRow | null> {
    const [rows] = await tx.manager.query<[AuthorizationRequestRow[], number]>(
      `UPDATE oauth_authorization_requests SET used_at = $3
       WHERE id = $1 AND user_id = $2 AND used_at IS NULL AND expires_at > $3 RETURNING ${REQUEST_COLUMNS}`,
      [id, userId, now],
    );
    return rows[0] ?? null;
  }

  // Grants.
  async insertGrant(
    values: Pick<
      GrantRow,
      'user_id' | 'client_id' | 'organization_id' | 'access' | 'scope' | 'resource' | 'created_at'
    >,
    tx: Tx,
  ): Promise<GrantRow> {
    const rows = await tx.manager.query<GrantRow[]>(
      `INSERT INTO oauth_grants (user_id, client_id, organization_id, access, scope, resource, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${GRANT_COLUMNS}`,
      [
        values.user_id,
        values.client_id,
        values.organization_id,
        values.access,
        values.scope,
        values.resource,
        values.created_at,
      ],
    );
    return rows[0];
  }

  async findGrant(organizationId: string, id: string, tx?: Tx): Promise<GrantRow | null> {
    const rows = await db(this.dataSource, tx).query<GrantRow[]>(
      `SELECT ${GRANT_COLUMNS} FROM oauth_grants WHERE id = $1 AND ${orgEq(2)}`,
      [id, organizationId],
    );
    return rows[0] ?? null;
  }

  /** Live grants of these (user, client, organization), to be replaced by a new consent. */
  async liveGrantIds(userId: string, clientId: string, organizationId: string, tx: Tx): Promise<string[]> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `SELECT id FROM oauth_grants
       WHERE user_id = $1 AND client_id = $2 AND ${orgEq(3)} AND revoked_at IS NULL`,
      [userId, clientId, organizationId],
    );
    return rows.map((r) => r.id);
  }

  async listLiveGrants(userId: string): Promise<(GrantRow & { client_name: string | null })[]> {
    return this.dataSource.query(
      `${tenancyExempt('person-across-organizations')} SELECT ${GRANT_COLUMNS.split(', ')
        .map((c) => `g.${c}`)
        .join(', ')}, c.client_name
       FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
       WHERE g.user_id = $1 AND g.revoked_at IS NULL ORDER BY g.created_at DESC`,
      [userId],
    );
  }

  /**
   * Revokes a grant with every code, access and refresh token it produced, in the caller's transaction; the
   * access-token cache is dropped everywhere once it commits. `userId` restricts it to that person's grants.
   */
  /** Revokes every live grant of this person in this organization (they left it), with its tokens. */
  async revokeGrantsFor(organizationId: string, userId: string, now: Date, tx: Tx): Promise<number> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `SELECT id FROM oauth_grants WHERE ${orgEq(1)} AND user_id = $2 AND revoked_at IS NULL`,
      [organizationId, userId],
    );
    for (const { id } of rows) await this.revokeGrant(id, 'member_left', now, tx);
    return rows.length;
  }

  async revokeGrant(grantId: string, reason: string, now: Date, tx: Tx, userId?: string): Promise<GrantRow | null> {
    const [grants] = await tx.manager.query<[GrantRow[], number]>(
      `${tenancyExempt('sign-in-lookup')} UPDATE oauth_grants SET revoked_at = $2, revoked_reason = $3
       WHERE id = $1 AND revoked_at IS NULL ${userId ? 'AND user_id = $4' : ''} RETURNING ${GRANT_COLUMNS}`,
      userId ? [grantId, now, reason, userId] : [grantId, now, reason],
    );
    const grant = grants[0] ?? null;
    if (!grant) return null;
    await tx.manager.query(
      `${tenancyExempt('sign-in-lookup')} UPDATE oauth_codes SET used_at = COALESCE(used_at, $2) WHERE grant_id = $1`,
      [grantId, now],
    );
    await tx.manager.query(
      `${tenancyExempt('sign-in-lookup')} UPDATE oauth_refresh_tokens SET revoked_at = $2 WHERE grant_id = $1 AND revoked_at IS NULL`,
      [grantId, now],
    );
    const [tokens] = await tx.manager.query<[{ token_hash: string }[], number]>(
      `${tenancyExempt('sign-in-lookup')} UPDATE oauth_access_tokens SET revoked_at = $2 WHERE grant_id = $1 AND revoked_at IS NULL RETURNING token_hash`,
      [grantId, now],
    );
    for (const { token_hash } of tokens) await this.accessByHash.invalidate(token_hash, tx);
    return grant;
  }

  // Authorization codes.
  async insertCode(
    values: Omit<CodeRow, 'id' | 'used_at'> & { code_hash: string; created_at: Date },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO oauth_codes (code_hash, grant_id, organization_id, client_id, redirect_uri, code_challenge, scope,
         resource, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        values.code_hash,
        values.grant_id,
        values.organization_id,
        values.client_id,
        values.redirect_uri,
        values.code_challenge,
        values.scope,
        values.resource,
        values.created_at,
        values.expires_at,
      ],
    );
  }

  /** The code, locked for this transaction, and marked used whatever happens next (a code is presented once). */
  async claimCode(codeHash: string, now: Date, tx: Tx): Promise<CodeRow | null> {
    const rows = await tx.manager.query<CodeRow[]>(
      `${tenancyExempt('sign-in-lookup')} SELECT id, grant_id, organization_id, client_id, redirect_uri, code_challenge, scope, resource, expires_at,
         used_at
       FROM oauth_codes WHERE code_hash = $1 FOR UPDATE`,
      [codeHash],
    );
    const code = rows[0];
    if (!code) return null;
    if (!code.used_at)
      await tx.manager.query(`${tenancyExempt('sign-in-lookup')} UPDATE oauth_codes SET used_at = $2 WHERE id = $1`, [
        code.id,
        now,
      ]);
    return code;
  }

  // Access tokens.
  async insertAccessToken(
    values: Omit<AccessTokenRow, 'id' | 'revoked_at'> & { token_hash: string; created_at: Date },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO oauth_access_tokens (token_hash, grant_id, user_id, organization_id, access, scope, resource,
         created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        values.token_hash,
        values.grant_id,
        values.user_id,
        values.organization_id,
        values.access,
        values.scope,
        values.resource,
        values.created_at,
        values.expires_at,
      ],
    );
  }

  findAccessToken(tokenHash: string): Promise<AccessTokenRow | null> {
    return this.accessByHash.getOrLoad(tokenHash, async () => {
      const rows = await this.dataSource.query<AccessTokenRow[]>(
        `${tenancyExempt('sign-in-lookup')} SELECT ${ACCESS_COLUMNS} FROM oauth_access_tokens WHERE token_hash = $1`,
        [tokenHash],
      );
      return rows[0] ?? null;
    });
  }

  async revokeAccessToken(tokenHash: string, now: Date): Promise<void> {
    await this.dataSource.query(
      `${tenancyExempt('sign-in-lookup')} UPDATE oauth_access_tokens SET revoked_at = $2 WHERE token_hash = $1 AND revoked_at IS NULL`,
      [tokenHash, now],
    );
    await this.accessByHash.invalidate(tokenHash);
  }

  // Refresh tokens.
  async insertRefreshToken(
    values: {
      token_hash: string;
      grant_id: string;
      organization_id: string;
      parent_id: string | null;
      created_at: Date;
      expires_at: Date;
    },
    tx: Tx,
  ): Promise<void> {
    await tx.manager.query(
      `INSERT INTO oauth_refresh_tokens (token_hash, grant_id, organization_id, parent_id, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [
        values.token_hash,
        values.grant_id,
        values.organization_id,
        values.parent_id,
        values.created_at,
        values.expires_at,
      ],
    );
  }

  /** The refresh token locked for this transaction, so that of parallel refreshes exactly one rotates it. */
  async lockRefreshToken(tokenHash: string, tx: Tx): Promise<RefreshTokenRow | null> {
    const rows = await tx.manager.query<RefreshTokenRow[]>(
      `${tenancyExempt('sign-in-lookup')} SELECT ${REFRESH_COLUMNS} FROM oauth_refresh_tokens WHERE token_hash = $1 FOR UPDATE`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRow | null> {
    const rows = await this.dataSource.query<RefreshTokenRow[]>(
      `${tenancyExempt('sign-in-lookup')} SELECT ${REFRESH_COLUMNS} FROM oauth_refresh_tokens WHERE token_hash = $1`,
      [tokenHash],
    );
    return rows[0] ?? null;
  }

  async markRotated(id: string, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('sign-in-lookup')} UPDATE oauth_refresh_tokens SET rotated_at = $2 WHERE id = $1`,
      [id, now],
    );
  }
}
