import { Injectable } from '@nestjs/common';
import { UAParser } from 'ua-parser-js';
import { AuditService } from '@/core/audit/audit.service';
import { SignedTokens } from '@/core/auth/signed-tokens';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import type { ClientInfo } from '@/core/http/client-info';
import { clearCookie, COOKIE, type CookieChange, setCookie } from '@/core/http/cookies';
import { type User, UsersService } from '@/modules/identity/users';
import { type SessionRow, SessionsRepository } from './sessions.repository';

export const ACCESS_TTL_SECONDS = 15 * 60;
export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

/** The summaries of the user agents seen lately: parsing one was a tenth of a sign-in's CPU, and browsers repeat. */
const SUMMARIES = new Map<string, string>();
const SUMMARIES_LIMIT = 1_000;

/** "Firefox 132 on Ubuntu": what a person recognises in their session list, without keeping the raw user agent. */
export function deviceSummary(userAgent: string | undefined): string {
  if (!userAgent) return 'Unknown device';
  let summary = SUMMARIES.get(userAgent);
  if (summary === undefined) {
    summary = summarize(userAgent);
    if (SUMMARIES.size >= SUMMARIES_LIMIT) SUMMARIES.clear();
    SUMMARIES.set(userAgent, summary);
  }
  return summary;
}

function summarize(userAgent: string): string {
  const ua = UAParser(userAgent);
  const browser = [ua.browser.name, ua.browser.major].filter(Boolean).join(' ');
  const os = [ua.os.name, ua.os.version?.split('.')[0]].filter(Boolean).join(' ');
  const summary = [browser, os && `on ${os}`].filter(Boolean).join(' ');
  return (summary || userAgent.slice(0, 60)).slice(0, 120);
}

/** The cookies that end a browser session. */
const ENDED: readonly CookieChange[] = [COOKIE.access, COOKIE.refresh, COOKIE.presence, COOKIE.stepUp].map((name) =>
  clearCookie(name),
);

/** A session just opened or renewed, and the cookies that carry it to the browser. */
export interface SessionCookies<T> {
  readonly value: T;
  readonly cookies: readonly CookieChange[];
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
    private readonly crypto: CryptoService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
  ) {}

  /** Opens a session for the person; the answer carries its cookies. */
  async open(
    user: User,
    client: ClientInfo,
    options: { impersonatorId?: string; impersonationTtlSeconds?: number; tx?: Tx } = {},
  ): Promise<SessionCookies<SessionRow>> {
    const now = this.clock.now();
    const refresh = this.crypto.randomToken(32);
    const session = await this.sessions.createWithRefreshToken(
      {
        userId: user.id,
        device: deviceSummary(client.userAgent),
        ipFingerprint: client.ip ? this.audit.ipFingerprint(client.ip) : null,
        now,
        expiresAt: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
        impersonatorId: options.impersonatorId ?? null,
        impersonationExpiresAt: options.impersonationTtlSeconds
          ? new Date(now.getTime() + options.impersonationTtlSeconds * 1000)
          : null,
      },
      {
        tokenHash: this.crypto.sha256(refresh),
        expiresAt: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
      },
      options.tx,
    );
    return { value: session, cookies: this.sessionCookies(user, session.id, refresh) };
  }

  /**
   * Rotates the refresh token (the `refresh_token` cookie's value). A token that was already rotated is reuse: the
   * whole session is revoked. Every failure is a 401 that clears the session cookies.
   */
  async refresh(presented: string | undefined, client: ClientInfo): Promise<SessionCookies<User>> {
    if (!presented) this.fail();
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
            ip: client.ip,
          });
        }
      }
      this.fail();
    }
    return { value: result.user, cookies: this.sessionCookies(result.user, result.session.id, result.refresh) };
  }

  /** Revokes the session of the refresh token (if any); answers the cookies to clear. Idempotent. */
  async logout(presented: string | undefined): Promise<readonly CookieChange[]> {
    if (presented) {
      const known = await this.sessions.findToken(this.crypto.sha256(presented));
      const session = known ? await this.sessions.findById(known.session_id) : null;
      if (session) await this.sessions.revoke(session.id, session.user_id, 'logout', this.clock.now());
    }
    return ENDED;
  }

  /** Re-issues this session's cookies (after token_version changed, for instance), rotating its refresh token. */
  async renew(user: User, sessionId: string): Promise<readonly CookieChange[]> {
    const now = this.clock.now();
    return this.transactions.run(async (tx) => {
      await this.sessions.rotateAll(sessionId, now, tx);
      const refresh = await this.newRefreshToken(sessionId, now, tx);
      return this.sessionCookies(user, sessionId, refresh);
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

  /** The cookie changes that end the browser's session (sign-out, a revoked current session). */
  endedCookies(): readonly CookieChange[] {
    return ENDED;
  }

  private fail(): never {
    throw ApiError.unauthorized('The session has ended. Sign in again.').withCookies(ENDED);
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

  private sessionCookies(user: User, sessionId: string, refreshToken: string): CookieChange[] {
    const { token } = this.tokens.sign(
      'access',
      { sub: user.id, sid: sessionId, tv: user.tokenVersion },
      ACCESS_TTL_SECONDS,
    );
    return [
      setCookie(COOKIE.access, token, ACCESS_TTL_SECONDS),
      setCookie(COOKIE.refresh, refreshToken, SESSION_TTL_SECONDS),
      setCookie(COOKIE.presence, '1', SESSION_TTL_SECONDS),
    ];
  }
}
