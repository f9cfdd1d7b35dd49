import { Injectable } from '@nestjs/common';
import { ApiError } from '@/core/http/api-error';
import type { ClientInfo } from '@/core/http/client-info';
import type { CookieChange } from '@/core/http/cookies';
import { type Locale } from '@/core/mail/mail-template';
import { MailService } from '@/core/mail/mail.service';
import { type User, normalizeEmail, UsersService } from '@/modules/identity/users';
import { SIGN_IN_CODE } from './auth.mails';
import { EmailCodeService } from './email-code.service';
import { SessionService } from './session.service';
import { SsoPolicy } from './sso-policy.port';
import { type ChallengeContext, TwoFactorService } from './two-factor.service';

export const SSO_REQUIRED_MESSAGE = 'Your organization requires signing in with its single sign-on.';

/** A person whose session was opened, with the cookies that carry it. */
export interface SignedIn {
  readonly user: User;
  readonly cookies: readonly CookieChange[];
}

/** Where a proven first factor leads: a session, or (two-factor account) the challenge and its cookie. */
export type Entered =
  | { readonly kind: 'session'; readonly user: User; readonly cookies: readonly CookieChange[] }
  | { readonly kind: 'two_factor'; readonly cookies: readonly CookieChange[] };

/**
 * Email-code sign-in. The request answers the same whether or not the account exists (the account is created
 * at the first successful verification); every verification failure is the same 400 `invalid_otp`.
 */
@Injectable()
export class SignInService {
  constructor(
    private readonly users: UsersService,
    private readonly codes: EmailCodeService,
    private readonly mail: MailService,
    private readonly sessions: SessionService,
    private readonly twoFactor: TwoFactorService,
    private readonly sso: SsoPolicy,
  ) {}

  /** Throws 403 `sso_required` when the address's domain enforces SSO (every email-code path asks this). */
  async assertEmailCodeAllowed(email: string): Promise<void> {
    await this.emailCodeAccount(normalizeEmail(email));
  }

  /** `assertEmailCodeAllowed` for an account already read (its address is stored normalized): no look-up by email. */
  async assertAccountMayUseEmailCode(user: Pick<User, 'id' | 'email'>): Promise<void> {
    if (await this.sso.ssoRequired(normalizeEmail(user.email), user.id)) {
      throw ApiError.forbidden(SSO_REQUIRED_MESSAGE, 'sso_required');
    }
  }

  async requestCode(email: string, locale: Locale): Promise<void> {
    const normalized = normalizeEmail(email);
    const user = await this.emailCodeAccount(normalized);
    const { code } = await this.codes.issue('sign_in', normalized, { locale });
    await this.mail.send(
      SIGN_IN_CODE,
      { code },
      { to: normalized, locale: user ? this.users.emailLocale(user) : locale, organizationId: null },
    );
  }

  async verifyCode(email: string, code: string, client: ClientInfo): Promise<SignedIn> {
    const normalized = normalizeEmail(email);
    const existing = await this.emailCodeAccount(normalized);
    const metadata = await this.codes.verify('sign_in', normalized, code, normalized);
    // The account read for the SSO rule serves the sign-in (one look-up); the first verification creates it.
    const user = existing ?? (await this.users.findOrCreate(normalized, metadata.locale === 'en' ? 'en' : 'es')).user;
    return this.signInOrChallenge(user, client);
  }

  /** The account of a normalized address (null: none yet), once the SSO rule allows email codes for it (else 403). */
  private async emailCodeAccount(normalized: string): Promise<User | null> {
    const user = await this.users.findByEmail(normalized);
    if (await this.sso.ssoRequired(normalized, user?.id ?? null)) {
      throw ApiError.forbidden(SSO_REQUIRED_MESSAGE, 'sso_required');
    }
    return user;
  }

  /** Opens a session for a person whose first factor is proven, or, on a two-factor account, starts the challenge. */
  async enter(user: User, client: ClientInfo, context: ChallengeContext = {}): Promise<Entered> {
    const synced = await this.users.syncPlatformRoles(user);
    if (synced.twoFactorEnabledAt) {
      return { kind: 'two_factor', cookies: await this.twoFactor.startChallenge(synced, context) };
    }
    const { cookies } = await this.sessions.open(synced, client);
    return { kind: 'session', user: synced, cookies };
  }

  /**
   * `enter` for API operations: the session, or on a two-factor account 401 `two_factor_required` carrying the
   * challenge cookie.
   */
  async signInOrChallenge(user: User, client: ClientInfo, context: ChallengeContext = {}): Promise<SignedIn> {
    const entered = await this.enter(user, client, context);
    if (entered.kind === 'two_factor') {
      throw new ApiError('two_factor_required', 'Enter the code from your authenticator app.').withCookies(
        entered.cookies,
      );
    }
    return entered;
  }

  /**
   * Opens a session for a person who proved both factors at once (a passkey with user verification): no two-factor
   * challenge follows. The caller has checked the SSO and account rules.
   */
  async enterVerified(user: User, client: ClientInfo): Promise<SignedIn> {
    const synced = await this.users.syncPlatformRoles(user);
    const { cookies } = await this.sessions.open(synced, client);
    return { user: synced, cookies };
  }

  /**
   * Completes a two-factor sign-in with the `svc_2fa` challenge token and a second factor: a TOTP or recovery
   * code, or a check that proves another factor (a passkey) and throws its own error when it fails.
   */
  async completeTwoFactor(
    challengeToken: string | undefined,
    proof: string | ((user: User, challengeId: string) => Promise<void>),
    client: ClientInfo,
  ): Promise<SignedIn & { context: ChallengeContext }> {
    const completed =
      typeof proof === 'string'
        ? await this.twoFactor.completeChallenge(challengeToken, proof)
        : await this.twoFactor.completeChallengeWith(challengeToken, proof);
    const { user, context } = completed;
    const opened = await this.sessions.open(user, client);
    const cookies = [...completed.cookies, ...opened.cookies];
    if (context.organizationId) {
      // The challenge began by joining an organization (accepted invitation): it becomes the active one now.
      await this.users.setLastOrganization(user.id, context.organizationId);
      return { user: { ...user, lastOrganizationId: context.organizationId }, context, cookies };
    }
    return { user, context, cookies };
  }
}
