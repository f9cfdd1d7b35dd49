import { Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { ApiError } from '@/core/http/api-error';
import { SignInService } from '@/modules/auth/sign-in.service';
import type { ChallengeContext } from '@/modules/auth/two-factor.service';
import type { UserEntity } from '@/modules/users/entities/user.entity';

/** A browser-flow failure: the callback answers a redirect to `{WEB_URL}/login?error=<code>`, never a body. */
export class BrowserFlowFailure extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'BrowserFlowFailure';
  }
}

/** Where a browser flow ends: the web app's dashboard, its two-factor step, or its login page with an error code. */
@Injectable()
export class BrowserSignIn {
  constructor(
    private readonly signIn: SignInService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Opens the session (or, on a two-factor account, the challenge) and returns where the browser goes next. */
  async enter(user: UserEntity, req: Request, res: Response, context: ChallengeContext = {}): Promise<string> {
    try {
      await this.signIn.enter(user, req, res, context);
      return this.web('/dashboard');
    } catch (err) {
      // The `svc_2fa` challenge cookie is already on the response.
      if (err instanceof ApiError && err.code === 'two_factor_required') return this.web('/login/two-factor');
      throw err;
    }
  }

  loginError(code: string): string {
    return this.web(`/login?error=${encodeURIComponent(code)}`);
  }

  web(path: string): string {
    return `${this.config.webUrl}${path}`;
  }
}

/** One optional query parameter as a string within `max` characters; repeated or over-long values fail. */
export function queryParam(req: Request, name: string, max: number, failure: string): string | undefined {
  const value: unknown = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > max) throw new BrowserFlowFailure(failure);
  return value;
}

/** The query string exactly as received (openid-client reads code, state and iss from it). */
export function rawQuery(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at);
}
