import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { type Credential, sessionCredential } from '@/core/auth/credential';
import { SignedTokens } from '@/core/auth/signed-tokens';
import { STRATEGY } from '@/core/auth/strategies';
import { Clock } from '@/core/clock/clock';
import { COOKIE } from '@/core/http/cookies';
import { UsersService } from '@/modules/identity/users';
import { SessionsRepository } from './sessions.repository';
import { VerifiedTokenMemo } from './verified-tokens';

interface AccessClaims {
  sub: string;
  sid: string;
  tv: number;
  iat: number;
  exp: number;
}

const fromCookie = (req: Request): string | null =>
  (req.cookies as Record<string, string> | undefined)?.[COOKIE.access] ?? null;

/**
 * The `access_token` cookie: passport-jwt checks the signature, issuer and audience; expiry is checked here
 * against the Clock, then the session must be live and the token's `token_version` current (raising it ends
 * every other access token at once).
 */
@Injectable()
export class CookieSessionStrategy extends PassportStrategy(Strategy, STRATEGY.cookieSession) {
  constructor(
    private readonly tokens: SignedTokens,
    private readonly sessions: SessionsRepository,
    private readonly users: UsersService,
    private readonly clock: Clock,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromExtractors([fromCookie]),
      // passport-jwt hands the key to jsonwebtoken, which accepts a KeyObject; its typings only list strings/Buffers.
      secretOrKey: tokens.keyObject('access') as unknown as Buffer,
      algorithms: ['HS256'],
      issuer: tokens.issuer,
      audience: 'access',
      ignoreExpiration: true,
    });
    // A token's signature, issuer and audience are checked by passport-jwt once, not on every request.
    new VerifiedTokenMemo(tokens.keyObject('access')).install((this as unknown as { _verifOpts: unknown })._verifOpts);
  }

  async validate(claims: AccessClaims): Promise<Credential | false> {
    if (!this.tokens.isCurrent(claims) || typeof claims.sid !== 'string' || typeof claims.sub !== 'string')
      return false;
    // Both reads are served from caches that every instance invalidates on change.
    const [session, user] = await Promise.all([this.sessions.findById(claims.sid), this.users.findById(claims.sub)]);
    const now = this.clock.nowMs();
    if (
      !session ||
      !user ||
      session.user_id !== user.id ||
      user.tokenVersion !== claims.tv ||
      session.revoked_at !== null ||
      session.expires_at.getTime() <= now ||
      (session.impersonation_expires_at !== null && session.impersonation_expires_at.getTime() <= now)
    ) {
      return false;
    }
    return sessionCredential({ id: session.id, impersonatorId: session.impersonator_id }, user);
  }
}
