import { createParamDecorator, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

/** The cookie names of the contract; never renamed. */
export const COOKIE = {
  access: 'access_token',
  refresh: 'refresh_token',
  presence: 'svc_session',
  twoFactor: 'svc_2fa',
  stepUp: 'svc_step_up',
  oauthState: 'svc_oauth_state',
  ssoState: 'svc_sso_state',
} as const;
export type CookieName = (typeof COOKIE)[keyof typeof COOKIE];

/** Where each cookie is sent. The refresh token only travels to the auth endpoints that use it. */
export const COOKIE_PATH: Partial<Record<CookieName, string>> = {
  [COOKIE.refresh]: '/api/v1/auth',
  [COOKIE.twoFactor]: '/api/v1/auth',
  [COOKIE.oauthState]: '/api/v1/auth',
  [COOKIE.ssoState]: '/api/v1/auth',
};

/**
 * A cookie a service decides to set (`value`) or clear (`value: null`). Services return these (or attach them to
 * an `ApiError`) and never touch the response; the controller, or the exception filter for an error, writes them.
 */
export interface CookieChange {
  readonly name: CookieName;
  readonly value: string | null;
  readonly maxAgeSeconds: number;
}

export function setCookie(name: CookieName, value: string, maxAgeSeconds: number): CookieChange {
  return { name, value, maxAgeSeconds };
}

export function clearCookie(name: CookieName): CookieChange {
  return { name, value: null, maxAgeSeconds: 0 };
}

/**
 * The one cookie writer: every session cookie is HttpOnly and SameSite=Lax, Secure per setting, on its path. A
 * cleared cookie expires at once (Max-Age=0) on the path it was set on.
 */
export function writeCookies(res: Response, changes: readonly CookieChange[], secure: boolean): void {
  for (const change of changes) {
    res.cookie(change.name, change.value ?? '', {
      httpOnly: true,
      sameSite: 'lax',
      secure,
      path: COOKIE_PATH[change.name] ?? '/',
      maxAge: change.maxAgeSeconds * 1000,
    });
  }
}

/** Applies the cookie changes a service returned to the controller's response. */
@Injectable()
export class CookieService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  apply(res: Response, changes: readonly CookieChange[]): void {
    writeCookies(res, changes, this.config.cookieSecure);
  }

  /** Ends a browser flow: its cookies, then a 302 to `location` that no cache keeps. */
  redirect(res: Response, exit: { readonly location: string; readonly cookies: readonly CookieChange[] }): void {
    this.apply(res, exit.cookies);
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(302, exit.location);
  }
}

/** The value of one of the contract's cookies on the request, if present. */
export function cookieOf(req: Request, name: CookieName): string | undefined {
  const value = (req.cookies as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** Controller parameter: the value of the named cookie (`@CookieValue(COOKIE.refresh) token?: string`). */
export const CookieValue = createParamDecorator((name: CookieName, ctx: ExecutionContext): string | undefined =>
  cookieOf(ctx.switchToHttp().getRequest<Request>(), name),
);
