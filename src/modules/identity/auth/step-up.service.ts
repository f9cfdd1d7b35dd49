import { Injectable } from '@nestjs/common';
import { browserSessionId, type Credential } from '@/core/auth/credential';
import { SignedTokens } from '@/core/auth/signed-tokens';
import { STEP_UP_TTL_SECONDS } from '@/core/auth/step-up.guard';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import { COOKIE, type CookieChange, setCookie } from '@/core/http/cookies';
import { MailService } from '@/core/mail/mail.service';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { UsersService } from '@/modules/identity/users';
import { STEP_UP_CODE } from './auth.mails';
import { FAILED_ATTEMPTS_ACCOUNT } from './auth.limits';
import { EmailCodeService } from './email-code.service';
import { TwoFactorService } from './two-factor.service';

export interface StepUpChallenge {
  method: 'totp' | 'email_code';
  expires_at: string;
}

/**
 * Re-confirms the person before a sensitive action: by TOTP when the account has two-factor, else by a 6-digit
 * code emailed to them. Success sets `svc_step_up` (10 minutes) bound to this session.
 */
@Injectable()
export class StepUpService {
  constructor(
    private readonly users: UsersService,
    private readonly twoFactor: TwoFactorService,
    private readonly codes: EmailCodeService,
    private readonly mail: MailService,
    private readonly tokens: SignedTokens,
    private readonly limits: RateLimitService,
    private readonly clock: Clock,
  ) {}

  async request(credential: Credential): Promise<StepUpChallenge> {
    const sessionId = this.sessionOf(credential);
    const user = await this.users.getById(credential.userId);
    if (user.twoFactorEnabledAt) {
      return { method: 'totp', expires_at: this.clock.in(STEP_UP_TTL_SECONDS * 1000).toISOString() };
    }
    const { code, expiresAt } = await this.codes.issue('step_up', sessionId);
    await this.mail.send(
      STEP_UP_CODE,
      { code },
      { to: user.email, locale: this.users.emailLocale(user), organizationId: null },
    );
    return { method: 'email_code', expires_at: expiresAt.toISOString() };
  }

  /** Confirms the person; the answer is the `svc_step_up` cookie, bound to this session. */
  async verify(credential: Credential, code: string): Promise<CookieChange[]> {
    const sessionId = this.sessionOf(credential);
    const user = await this.users.getById(credential.userId);
    const ok = user.twoFactorEnabledAt
      ? await this.twoFactor.checkSecondFactor(user, code)
      : (await this.codes.consume('step_up', sessionId, code)) !== null;
    if (!ok) {
      await this.limits.consume(FAILED_ATTEMPTS_ACCOUNT, user.email);
      throw user.twoFactorEnabledAt
        ? ApiError.badRequest('invalid_totp', 'The code is not valid.')
        : ApiError.badRequest('invalid_otp', 'The code is not valid or has expired.');
    }
    return this.grant(credential);
  }

  /**
   * The `svc_step_up` cookie for this session, once the person is confirmed by a method checked elsewhere (a
   * passkey): the same cookie and lifetime as the other methods.
   */
  grant(credential: Credential): CookieChange[] {
    const { token } = this.tokens.sign('step_up', { sid: this.sessionOf(credential) }, STEP_UP_TTL_SECONDS);
    return [setCookie(COOKIE.stepUp, token, STEP_UP_TTL_SECONDS)];
  }

  /** Tokens cannot confirm sensitive actions: the routes are `@BrowserSessionOnly()`. */
  private sessionOf(credential: Credential): string {
    return browserSessionId(credential);
  }
}
