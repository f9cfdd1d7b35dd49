import { Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { UAParser } from 'ua-parser-js';
import { AuditService } from '@/core/audit/audit.service';
import { SignedTokens } from '@/core/auth/signed-tokens';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { COOKIE, CookieService } from '@/core/http/cookies';
import type { UserEntity } from '@/modules/users/entities/user.entity';
import { UsersService } from '@/modules/users/users.service';
import { type SessionRow, SessionsRepository } from './sessions.repository';

export const ACCESS_TTL_SECONDS = 15 * 60;
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

/** "Firefox 132 on Ubuntu": what a person recognises in their session list, without keeping the raw user agent. */
export function deviceSummary(userAgent: string | undefined): string {
  if (!userAgent) return 'Unknown device';
  const ua = UAParser(userAgent);
  const browser = [ua.browser.name, ua.browser.major].filter(Boolean).join(' ');
  const os = [ua.os.name, ua.os.version?.split('.')[0]].filter(Boolean).join(' ');
  const summary = [browser, os && `on ${os}`].filter(Boolean).join(' ');
  return (summary || userAgent.slice(0, 60)).slice(0, 120);
}

/**
 * Cookie sessions: one per device, a 15-minute access JWT (user, session, token_version) and an opaque refresh
 * token stored as its SHA-256, rotated on every refresh with reuse detection (RFC 9700 4.14.2).
 */
@Injectable()
export class SessionService {
  constructor(
    private readonly sessions: SessionsRepository,
    private readonly users: UsersService,
    private readonly tokens: SignedTokens,
    private readonly cookies: CookieService,
    private readonly crypto: CryptoService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Opens a session for the person and sets its cookies on the response. */
  async open(
    user: UserEntity,
    req: Request,
    res: Response,
    options: { impersonatorId?: string; impersonationTtlSeconds?: number; tx?: Tx } = {},
  ): Promise<SessionRow> {
    const now = this.clock.now();
    const session = await this.sessions.create(
      {
        userId: user.id,
        device: deviceSummary(req.headers['user-agent']),
        ipFingerprint: req.ip ? this.audit.ipFingerprint(req.ip) : null,
        now,
        expiresAt: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
        impersonatorId: options.impersonatorId ?? null,
        impersonationExpiresAt: options.impersonationTtlSeconds
          ? new Date(now.getTime() + options.impersonationTtlSeconds * 1000)
          : null,
      },
      options.tx,
    );
    const refresh = await this.newRefreshToken(session.id, now, options.tx);
    this.setCookies(res, user, session.id, refresh);
    return session;
  }

  /**
   * Rotates the refresh token. A token that was already rotated is reuse: the whole session is revoked. Every
   * failure answers 401 and clears the session cookies.
   */
  async refresh(req: Request, res: Response): Promise<UserEntity> {
    const presented = (req.cookies as Record<string, string> | undefined)?.[COOKIE.refresh];
    if (!presented) this.fail(res);
    const hash = this.crypto.sha256(presented);
    const now = this.clock.now();
    const result = await this.transactions.run(async (tx) => {
      const sessionId = await this.sessions.rotate(hash, now, tx);
      if (!sessionId) return null;
      const session = await this.sessions.findById(sessionId, tx);
      if (!session || !this.isLive(session, now)) return null;
      const user = await this.users.findById(session.user_id, tx);
      if (!user) return null;
      await this.sessions.touch(session.id, now, new Date(now.getTime() + SESSION_TTL_SECONDS * 1000), tx);
      const refresh = await this.newRefreshToken(session.id, now, tx);
      return { user, session, refresh };
    });
    if (!result) {
      const known = await this.sessions.findToken(hash);
      if (known?.rotated_at) {
        const session = await this.sessions.findById(known.session_id);
        if (session && (await this.sessions.revoke(session.id, session.user_id, 'refresh_token_reuse', now))) {
          await this.audit.record({
            action: 'session.refresh_reuse_detected',
            actorId: session.user_id,
            organizationId: null,
            targetType: 'session',
            targetId: session.id,
            ip: req.ip,
          });
        }
      }
      this.fail(res);
    }
    this.setCookies(res, result.user, result.session.id, result.refresh);
    return result.user;
  }

  /** Revokes the session of the refresh cookie (if any) and clears the cookies. Idempotent. */
  async logout(req: Request, res: Response): Promise<void> {
    const presented = (req.cookies as Record<string, string> | undefined)?.[COOKIE.refresh];
    if (presented) {
      const known = await this.sessions.findToken(this.crypto.sha256(presented));
      const session = known ? await this.sessions.findById(known.session_id) : null;
      if (session) await this.sessions.revoke(session.id, session.user_id, 'logout', this.clock.now());
    }
    this.clearCookies(res);
  }

  /** Re-issues this session's cookies (after token_version changed, for instance), rotating its refresh token. */
  async renew(user: UserEntity, sessionId: string, res: Response): Promise<void> {
    const now = this.clock.now();
    await this.transactions.run(async (tx) => {
      await tx.manager.query(`UPDATE refresh_tokens SET rotated_at = $2 WHERE session_id = $1 AND rotated_at IS NULL`, [
        sessionId,
        now,
      ]);
      const refresh = await this.newRefreshToken(sessionId, now, tx);
      this.setCookies(res, user, sessionId, refresh);
    });
  }

  list(userId: string): Promise<SessionRow[]> {
    return this.sessions.listLive(userId, this.clock.now());
  }

  find(sessionId: string): Promise<SessionRow | null> {
    return this.sessions.findById(sessionId);
  }

  revoke(sessionId: string, userId: string, reason: string, tx?: Tx): Promise<boolean> {
    return this.sessions.revoke(sessionId, userId, reason, this.clock.now(), tx);
  }

  revokeOthers(userId: string, keepSessionId: string | null, reason: string, tx?: Tx): Promise<number> {
    return this.sessions.revokeAllExcept(userId, keepSessionId, reason, this.clock.now(), tx);
  }

  isLive(session: SessionRow, now = this.clock.now()): boolean {
    return (
      session.revoked_at === null &&
      session.expires_at.getTime() > now.getTime() &&
      (session.impersonation_expires_at === null || session.impersonation_expires_at.getTime() > now.getTime())
    );
  }

  clearCookies(res: Response): void {
    for (const name of [COOKIE.access, COOKIE.refresh, COOKIE.presence, COOKIE.stepUp]) this.cookies.clear(res, name);
  }

  private fail(res: Response): never {
    this.clearCookies(res);
    throw ApiError.unauthorized('The session has ended. Sign in again.');
  }

  private async newRefreshToken(sessionId: string, now: Date, tx?: Tx): Promise<string> {
    const token = this.crypto.randomToken(32);
    await this.sessions.addRefreshToken(
      sessionId,
      this.crypto.sha256(token),
      now,
      new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
      tx,
    );
    return token;
  }

  private setCookies(res: Response, user: UserEntity, sessionId: string, refreshToken: string): void {
    const { token } = this.tokens.sign(
      'access',
      { sub: user.id, sid: sessionId, tv: user.tokenVersion },
      ACCESS_TTL_SECONDS,
    );
    this.cookies.set(res, COOKIE.access, token, ACCESS_TTL_SECONDS);
    this.cookies.set(res, COOKIE.refresh, refreshToken, SESSION_TTL_SECONDS);
    this.cookies.set(res, COOKIE.presence, '1', SESSION_TTL_SECONDS);
  }
}
