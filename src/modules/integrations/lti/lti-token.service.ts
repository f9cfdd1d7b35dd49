import type { RateLimitPolicy } from '@/core/rate-limit/rate-limit';
import { Inject, Injectable } from '@nestjs/common';
import { createRemoteJWKSet, customFetch, decodeJwt, importJWK, type JWK, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { ApiError } from '@/core/http/api-error';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { ACCESS_TOKEN_TTL } from './lti-constants';
import { GuardedNet } from '@/core/net/guarded-net';
import { ltiFetch } from './lti-outbound';
import { LtiRepository, type ToolRow } from './lti.repository';
import { LtiServiceError } from './lti-service-errors';
import { LTI_TOKEN_TOOL, ltiServiceBudget } from './lti.limits';

const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const JWKS_CACHE_MS = 5 * 60 * 1000;

export interface ServiceAccess {
  tool: ToolRow;
  scopes: string[];
}

/**
 * A score's access: the token's tool and scopes as last read, and the token's hash, which the score's own statement
 * checks again (live, its tool enabled and not deleted) before it stores anything.
 */
export interface ScoreAccess {
  toolId: string;
  scopes: string[];
  tokenHash: string;
}

/** How long a token's tool and scopes (fixed for its life) are kept for the scores' rate limit and scope check. */
const KNOWN_TOKEN_MS = 60_000;
const KNOWN_TOKENS_MAX = 10_000;

/**
 * The platform's OAuth 2.0 token endpoint for tools (extensions-v3 1.5): client_credentials with a signed client
 * assertion (RFC 7523) verified with the tool's key, and the bearer tokens AGS and NRPS accept.
 */
@Injectable()
export class LtiTokenService {
  /** Tokens seen lately (by hash): their tool and scopes, for `scoreAccess`. */
  private readonly known = new Map<string, { toolId: string; scopes: string[]; until: number }>();

  /** Each tool's JWKS, cached 5 minutes and fetched again on an unknown `kid` (jose's remote key set). */
  private readonly remoteKeys = new Map<string, { url: string; keys: JWTVerifyGetKey }>();

  private readonly serviceBudget: RateLimitPolicy | null;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repo: LtiRepository,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly limits: RateLimitService,
    private readonly net: GuardedNet,
  ) {
    this.serviceBudget = config.lti.servicePerMinute > 0 ? ltiServiceBudget(config.lti.servicePerMinute) : null;
  }

  async token(
    form: Record<string, unknown>,
  ): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number; scope: string }> {
    const param = (name: string): string | undefined => {
      const v = form[name];
      if (v === undefined) return undefined;
      if (typeof v !== 'string') throw new LtiServiceError(400, 'invalid_request', `${name} must appear once.`);
      return v;
    };
    if (param('grant_type') !== 'client_credentials') {
      throw new LtiServiceError(400, 'unsupported_grant_type', 'Only client_credentials is supported.');
    }
    if (param('client_assertion_type') !== ASSERTION_TYPE) {
      throw new LtiServiceError(401, 'invalid_client', `client_assertion_type must be ${ASSERTION_TYPE}.`);
    }
    const assertion = param('client_assertion');
    if (!assertion) throw new LtiServiceError(401, 'invalid_client', 'client_assertion is required.');
    let claimed: string | undefined;
    try {
      claimed = decodeJwt(assertion).iss;
    } catch {
      throw new LtiServiceError(401, 'invalid_client', 'The client assertion is not a JWT.');
    }
    const tool = claimed ? await this.repo.toolByClientId(claimed) : null;
    if (!tool || !tool.enabled) throw new LtiServiceError(401, 'invalid_client', 'Unknown or disabled client.');
    try {
      await this.limits.consume(LTI_TOKEN_TOOL, tool.id);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        throw new LtiServiceError(429, 'invalid_request', 'Too many token requests for this tool.', err.headers ?? {});
      }
      throw err;
    }
    const payload = await this.verifyAssertion(tool, assertion);
    const now = this.clock.now();
    if (typeof payload.exp !== 'number' || payload.exp > this.clock.nowSeconds() + 300 + 5) {
      throw new LtiServiceError(400, 'invalid_grant', 'The assertion must expire within 5 minutes.');
    }
    if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256) {
      throw new LtiServiceError(400, 'invalid_grant', 'The assertion needs a jti.');
    }
    if (!(await this.repo.useOnce(`jti:${tool.id}`, payload.jti, new Date(payload.exp * 1000 + 60_000), now))) {
      throw new LtiServiceError(400, 'invalid_grant', 'The assertion was already used (jti).');
    }
    const asked = (param('scope') ?? '').split(' ').filter(Boolean);
    const granted = [...new Set(asked.filter((s) => tool.scopes.includes(s)))];
    if (granted.length === 0)
      throw new LtiServiceError(400, 'invalid_scope', 'None of the scopes asked is granted to this tool.');
    const token = this.crypto.randomToken(32);
    await this.repo.insertAccessToken(
      this.crypto.sha256(token),
      tool.id,
      granted,
      new Date(now.getTime() + ACCESS_TOKEN_TTL * 1000),
    );
    return { access_token: token, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL, scope: granted.join(' ') };
  }

  /** The tool and scopes of a bearer token (401 `invalid_token` otherwise). */
  async access(authorization: string | undefined): Promise<ServiceAccess> {
    // The token and its tool (enabled, not deleted) in one statement.
    const row = await this.repo.serviceAccess(this.crypto.sha256(bearer(authorization)), this.clock.now());
    if (!row) throw invalidToken();
    const { tool } = row;
    await this.consumeServiceBudget(tool.id);
    return { tool, scopes: row.scopes };
  }

  /**
   * The access of a score (AGS scores, the hot path of a tool): as `access`, but a token seen in the last minute is
   * not read again here, since the score's statement checks it (LtiRepository.recordScore; `tokenRefused` then).
   */
  async scoreAccess(authorization: string | undefined): Promise<ScoreAccess> {
    const tokenHash = this.crypto.sha256(bearer(authorization));
    const nowMs = this.clock.nowMs();
    let known = this.known.get(tokenHash);
    if (!known || known.until <= nowMs || known.until > nowMs + KNOWN_TOKEN_MS) {
      this.known.delete(tokenHash);
      const row = await this.repo.serviceAccess(tokenHash, this.clock.now());
      if (!row) throw invalidToken();
      known = { toolId: row.tool.id, scopes: row.scopes, until: nowMs + KNOWN_TOKEN_MS };
      this.known.set(tokenHash, known);
      if (this.known.size > KNOWN_TOKENS_MAX) this.known.delete(this.known.keys().next().value as string);
    }
    await this.consumeServiceBudget(known.toolId);
    return { toolId: known.toolId, scopes: known.scopes, tokenHash };
  }

  /** The score's statement found the token no longer valid: forgotten here, 401 `invalid_token`. */
  tokenRefused(tokenHash: string): LtiServiceError {
    this.known.delete(tokenHash);
    return invalidToken();
  }

  /** 60 service requests per minute per tool (429 in the standard's form). */
  private async consumeServiceBudget(toolId: string): Promise<void> {
    if (!this.serviceBudget) return;
    try {
      await this.limits.consume(this.serviceBudget, toolId);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        throw new LtiServiceError(429, 'rate_limited', 'Too many service requests for this tool.', err.headers ?? {});
      }
      throw err;
    }
  }

  /** Verifies a JWT the tool signed (client assertion, deep-linking response) with the tool's key. */
  async verifyToolJwt(tool: ToolRow, jwt: string, audience: string[]): Promise<Record<string, unknown>> {
    const { payload } = await jwtVerify(jwt, this.keysOf(tool), {
      algorithms: ['RS256'],
      issuer: tool.client_id,
      audience,
      currentDate: this.clock.now(),
      clockTolerance: 5,
      requiredClaims: ['exp'],
    });
    return payload;
  }

  private async verifyAssertion(tool: ToolRow, assertion: string): Promise<{ exp?: number; jti?: unknown }> {
    try {
      const payload = await this.verifyToolJwt(tool, assertion, [
        `${this.config.baseUrl}/api/v1/lti/token`,
        this.config.baseUrl,
      ]);
      if (payload.sub !== tool.client_id) throw new Error('sub must be the client_id');
      return payload;
    } catch (err) {
      const expired = (err as { code?: string }).code === 'ERR_JWT_EXPIRED';
      if (expired) throw new LtiServiceError(400, 'invalid_grant', 'The client assertion expired.');
      throw new LtiServiceError(401, 'invalid_client', `The client assertion is not valid: ${(err as Error).message}`);
    }
  }

  private keysOf(tool: ToolRow): JWTVerifyGetKey {
    if (tool.public_jwk) {
      // One registered key: used whatever `kid` the JWT names (a registered JWK usually has none).
      const key = importJWK({ ...(tool.public_jwk as JWK), alg: 'RS256' }, 'RS256');
      return () => key;
    }
    const url = tool.jwks_url as string;
    const cached = this.remoteKeys.get(tool.id);
    if (cached && cached.url === url) return cached.keys;
    const keys = createRemoteJWKSet(new URL(url), {
      cacheMaxAge: JWKS_CACHE_MS,
      cooldownDuration: 0,
      [customFetch]: (input: string, init: RequestInit) => ltiFetch(this.net, input, init),
    });
    this.remoteKeys.set(tool.id, { url, keys });
    return keys;
  }
}

/** The bearer token of an Authorization header (401 `invalid_token` without one). */
function bearer(authorization: string | undefined): string {
  const m = /^Bearer ([A-Za-z0-9_-]{20,200})$/.exec(authorization ?? '');
  if (!m) throw new LtiServiceError(401, 'invalid_token', 'A bearer token from the LTI token endpoint is required.');
  return m[1];
}

function invalidToken(): LtiServiceError {
  return new LtiServiceError(401, 'invalid_token', 'The token is invalid or expired.');
}
