import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { ClientInfo } from '@/core/http/client-info';
import type { CookieChange } from '@/core/http/cookies';
import type { BrowserFlowFailureCode } from '@/core/http/side-channel-codes';
import { SignInService, type ChallengeContext } from '@/modules/identity/auth';
import type { User } from '@/modules/identity/users';

/** A browser-flow failure: the callback answers a redirect to `{WEB_URL}/login?error=<code>`, never a body. */
export class BrowserFlowFailure extends Error {
  constructor(readonly code: BrowserFlowFailureCode) {
    super(code);
    this.name = 'BrowserFlowFailure';
  }
}

/** Where the browser goes next, and the cookies it takes along (the session, or the two-factor challenge). */
export interface BrowserExit {
  readonly location: string;
  readonly cookies: readonly CookieChange[];
}

/** Where a browser flow ends: the web app's dashboard, its two-factor step, or its login page with an error code. */
@Injectable()
export class BrowserSignIn {
  constructor(
    private readonly signIn: SignInService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Opens the session (or, on a two-factor account, the challenge) and says where the browser goes next. */
  async enter(user: User, client: ClientInfo, context: ChallengeContext = {}): Promise<BrowserExit> {
    const entered = await this.signIn.enter(user, client, context);
    const location = this.web(entered.kind === 'session' ? '/dashboard' : '/login/two-factor');
    return { location, cookies: entered.cookies };
  }

  loginError(code: BrowserFlowFailureCode): string {
    return this.web(`/login?error=${encodeURIComponent(code)}`);
  }

  web(path: string): string {
    return `${this.config.webUrl}${path}`;
  }
}

/** One optional query parameter as a string within `max` characters; repeated or over-long values fail. */
export function queryParam(
  query: Record<string, unknown>,
  name: string,
  max: number,
  failure: BrowserFlowFailureCode,
): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) throw new BrowserFlowFailure(failure);
  return value;
}
