import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { bearerCredential, type Credential } from '@/core/auth/credential';
import { TenancyResolver } from '@/core/auth/tenancy';
import { formatToken, hasValidChecksum, OAUTH_ACCESS_TOKEN, OAUTH_REFRESH_TOKEN } from '@/core/auth/token-format';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { type ConnectedApplications, type IntegrationDto, UsersService } from '@/modules/identity/users';
import { SCOPE } from './client-registration';
import { OAuthError, singleParam } from './oauth-errors';
import { type GrantRow, OAuthRepository } from './oauth.repository';
import { ACCESS_TOKEN_TTL_SECONDS, OAuthServer, REFRESH_TOKEN_TTL_SECONDS } from './oauth-server';

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const INVALID_GRANT = (why: string): OAuthError => new OAuthError('invalid_grant', why);

/**
 * The token endpoint (authorization code with PKCE; refresh with rotation and reuse detection), revocation
 * (RFC 7009) and the check of presented `svc_oat_` tokens.
 */
@Injectable()
export class TokenService implements ConnectedApplications {
  private readonly logger = new Logger('OAuthTokens');

  constructor(
    private readonly repo: OAuthRepository,
    private readonly server: OAuthServer,
    private readonly users: UsersService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditService,
    @Inject(TenancyResolver) private readonly tenancy: TenancyResolver,
  ) {}

  async token(body: unknown): Promise<TokenResponse> {
    const grantType = singleParam(body, 'grant_type');
    const clientId = singleParam(body, 'client_id');
    if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
    if (!clientId)
      throw new OAuthError('invalid_client', 'client_id is required (public clients identify themselves).', 401);
    const client = await this.repo.findClient(clientId);
    if (!client) throw new OAuthError('invalid_client', 'Unknown client.', 401);
    this.checkResource(singleParam(body, 'resource'));
    const scope = singleParam(body, 'scope');
    if (scope !== undefined && scope.split(' ').some((s) => s !== SCOPE)) {
      throw new OAuthError('invalid_scope', `The only scope is "${SCOPE}".`);
    }
    if (!client.grant_types.includes(grantType) && ['authorization_code', 'refresh_token'].includes(grantType)) {
      throw new OAuthError('unauthorized_client', `This client did not register the ${grantType} grant.`);
    }
    const withRefresh = client.grant_types.includes('refresh_token');
    if (grantType === 'authorization_code') return this.exchangeCode(body, client.id, withRefresh);
    if (grantType === 'refresh_token') return this.refresh(body, client.id);
    throw new OAuthError('unsupported_grant_type', 'Use authorization_code or refresh_token.');
  }

  /** RFC 6749 4.1.3 with RFC 7636: a code works once, within 60 s, for its client, redirect URI and verifier. */
  private async exchangeCode(body: unknown, clientId: string, withRefresh: boolean): Promise<TokenResponse> {
    const code = singleParam(body, 'code');
    const redirectUri = singleParam(body, 'redirect_uri');
    const verifier = singleParam(body, 'code_verifier');
    if (!code || !redirectUri || !verifier) {
      throw new OAuthError('invalid_request', 'code, redirect_uri and code_verifier are required.');
    }
    const now = this.clock.now();
    const outcome = await this.transactions.run(async (tx) => {
      const row = await this.repo.claimCode(this.crypto.sha256(code), now, tx);
      if (!row) return { error: INVALID_GRANT('The code is not valid.') };
      if (row.used_at) {
        // A code presented twice was intercepted or replayed: what it produced is revoked (RFC 9700 4.5.3.1).
        await this.repo.revokeGrant(row.grant_id, 'code_reused', now, tx);
        return {
          error: INVALID_GRANT('The code was already used; the tokens it produced are revoked.'),
          reuse: { organizationId: row.organization_id, grantId: row.grant_id },
        };
      }
      if (row.expires_at.getTime() <= now.getTime()) return { error: INVALID_GRANT('The code has expired.') };
      if (row.client_id !== clientId) return { error: INVALID_GRANT('The code was issued to another client.') };
      if (row.redirect_uri !== redirectUri)
        return { error: INVALID_GRANT('redirect_uri does not match the authorization request.') };
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (!VERIFIER.test(verifier) || !this.crypto.safeEqual(challenge, row.code_challenge)) {
        return { error: INVALID_GRANT('The code_verifier does not match the code_challenge.') };
      }
      const grant = await this.repo.findGrant(row.organization_id, row.grant_id, tx);
      if (!grant || grant.revoked_at) return { error: INVALID_GRANT('The authorization was revoked.') };
      return { tokens: await this.issue(grant, null, now, tx, withRefresh) };
    });
    if (outcome.reuse) {
      await this.recordRevocation(outcome.reuse, 'oauth.code_reused');
    }
    if (outcome.error) throw outcome.error;
    return outcome.tokens;
  }

  /** Rotation: each refresh token works once; presenting a rotated-out one revokes the whole grant (RFC 9700 4.14.2). */
  private async refresh(body: unknown, clientId: string): Promise<TokenResponse> {
    const token = singleParam(body, 'refresh_token');
    if (!token) throw new OAuthError('invalid_request', 'refresh_token is required.');
    if (!hasValidChecksum(OAUTH_REFRESH_TOKEN, token)) throw INVALID_GRANT('The refresh token is not valid.');
    const now = this.clock.now();
    const outcome = await this.transactions.run(async (tx) => {
      const row = await this.repo.lockRefreshToken(this.crypto.sha256(token), tx);
      if (!row) return { error: INVALID_GRANT('The refresh token is not valid.') };
      const grant = await this.repo.findGrant(row.organization_id, row.grant_id, tx);
      if (!grant || grant.client_id !== clientId) return { error: INVALID_GRANT('The refresh token is not valid.') };
      if (row.rotated_at && !grant.revoked_at) {
        await this.repo.revokeGrant(grant.id, 'refresh_token_reused', now, tx);
        return {
          error: INVALID_GRANT('The refresh token was already used; the authorization is revoked.'),
          reuse: { organizationId: grant.organization_id, grantId: grant.id },
        };
      }
      if (row.revoked_at || row.rotated_at || grant.revoked_at)
        return { error: INVALID_GRANT('The authorization was revoked.') };
      if (row.expires_at.getTime() <= now.getTime()) return { error: INVALID_GRANT('The refresh token has expired.') };
      await this.repo.markRotated(row.id, now, tx);
      return { tokens: await this.issue(grant, row.id, now, tx, true) };
    });
    if (outcome.reuse) await this.recordRevocation(outcome.reuse, 'oauth.refresh_token_reused');
    if (outcome.error) throw outcome.error;
    return outcome.tokens;
  }

  /** An access token, and a refresh token when the client registered the refresh_token grant. */
  private async issue(
    grant: GrantRow,
    parentId: string | null,
    now: Date,
    tx: Tx,
    withRefresh: boolean,
  ): Promise<TokenResponse> {
    const accessToken = formatToken(OAUTH_ACCESS_TOKEN, this.crypto.randomToken(32));
    await this.repo.insertAccessToken(
      {
        token_hash: this.crypto.sha256(accessToken),
        grant_id: grant.id,
        user_id: grant.user_id,
        organization_id: grant.organization_id,
        access: grant.access,
        scope: grant.scope,
        resource: grant.resource,
        created_at: now,
        expires_at: new Date(now.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000),
      },
      tx,
    );
    const response: TokenResponse = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      scope: grant.scope,
    };
    if (!withRefresh) return response;
    const refreshToken = formatToken(OAUTH_REFRESH_TOKEN, this.crypto.randomToken(32));
    await this.repo.insertRefreshToken(
      {
        token_hash: this.crypto.sha256(refreshToken),
        grant_id: grant.id,
        organization_id: grant.organization_id,
        parent_id: parentId,
        created_at: now,
        expires_at: new Date(now.getTime() + REFRESH_TOKEN_TTL_SECONDS * 1000),
      },
      tx,
    );
    return { ...response, refresh_token: refreshToken };
  }

  /**
   * RFC 7009: an access token is revoked alone; a refresh token takes its whole grant with it. Unknown tokens,
   * and tokens of another client, change nothing and answer the same.
   */
  async revoke(body: unknown): Promise<void> {
    const token = singleParam(body, 'token');
    const clientId = singleParam(body, 'client_id');
    singleParam(body, 'token_type_hint');
    if (!token) throw new OAuthError('invalid_request', 'token is required.');
    const now = this.clock.now();
    const hash = this.crypto.sha256(token);
    if (hasValidChecksum(OAUTH_ACCESS_TOKEN, token)) {
      const row = await this.repo.findAccessToken(hash);
      const grant = row ? await this.repo.findGrant(row.organization_id, row.grant_id) : null;
      if (row && grant && (!clientId || grant.client_id === clientId)) await this.repo.revokeAccessToken(hash, now);
      return;
    }
    if (hasValidChecksum(OAUTH_REFRESH_TOKEN, token)) {
      const row = await this.repo.findRefreshToken(hash);
      const grant = row ? await this.repo.findGrant(row.organization_id, row.grant_id) : null;
      if (grant && !grant.revoked_at && (!clientId || grant.client_id === clientId)) {
        await this.transactions.run((tx) => this.repo.revokeGrant(grant.id, 'revoked_by_client', now, tx));
      }
    }
  }

  /** The credential of a presented access token, or null when it is malformed, unknown, revoked or expired. */
  async authenticate(token: string): Promise<Credential | null> {
    if (!hasValidChecksum(OAUTH_ACCESS_TOKEN, token)) return null;
    const row = await this.repo.findAccessToken(this.crypto.sha256(token));
    if (!row || row.revoked_at || row.expires_at.getTime() <= this.clock.nowMs()) return null;
    // RFC 8707: the token was issued for this API only.
    if (row.resource !== this.server.resource) return null;
    const user = await this.users.findById(row.user_id);
    if (!user) return null;
    // A suspended membership (the directory deactivated the person) refuses the token from the next request.
    if (!(await this.tenancy.membership(row.organization_id, row.user_id))) return null;
    return bearerCredential(
      'oauth_token',
      { id: row.id, userId: row.user_id, organizationId: row.organization_id, access: row.access },
      user,
    );
  }

  /**
   * A person who leaves an organization loses the tools they connected to it (grants and their tokens), in the
   * removal's transaction, so re-joining later never revives them.
   */
  revokeAllFor(organizationId: string, userId: string, tx: Tx): Promise<number> {
    return this.repo.revokeGrantsFor(organizationId, userId, this.clock.now(), tx);
  }

  /** The person's live grants, as integrations (`GET /me/integrations`). */
  async listIntegrations(userId: string): Promise<IntegrationDto[]> {
    return (await this.repo.listLiveGrants(userId)).map((grant) => ({
      id: grant.id,
      kind: 'oauth_client',
      name: grant.client_name ?? 'Application',
      shared_since: grant.shared_since?.toISOString() ?? null,
      publishing_enabled: grant.publishing_enabled,
      created_at: grant.created_at.toISOString(),
    }));
  }

  /** Revokes one of this person's grants (an integration) at once; false when there is none. */
  async revokeIntegration(userId: string, grantId: string, ip?: string): Promise<boolean> {
    const now = this.clock.now();
    const grant = await this.transactions.run(async (tx) => {
      const revoked = await this.repo.revokeGrant(grantId, 'revoked_by_user', now, tx, userId);
      if (revoked) {
        await this.audit.record(
          {
            action: 'oauth.grant_revoked',
            actorId: userId,
            organizationId: revoked.organization_id,
            targetType: 'oauth_grant',
            targetId: revoked.id,
            ip,
          },
          tx,
        );
      }
      return revoked;
    });
    return grant !== null;
  }

  private checkResource(resource: string | undefined): void {
    if (resource !== undefined && resource !== this.server.resource) {
      throw new OAuthError('invalid_target', `The only resource is ${this.server.resource}.`);
    }
  }

  private async recordRevocation(reuse: { organizationId: string; grantId: string }, action: string): Promise<void> {
    const grant = await this.repo.findGrant(reuse.organizationId, reuse.grantId);
    if (!grant) return;
    this.logger.warn({ grant: grant.id, action }, 'OAuth token reuse: grant revoked');
    await this.audit.record({
      action,
      actorId: null,
      organizationId: grant.organization_id,
      targetType: 'oauth_grant',
      targetId: grant.id,
    });
  }
}
