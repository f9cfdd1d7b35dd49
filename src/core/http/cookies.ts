import { Inject, Injectable } from '@nestjs/common';
import type { Response } from 'express';
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

/** Where each cookie is sent. The refresh token only travels to the auth endpoints that use it. */
export const COOKIE_PATH: Record<string, string> = {
  [COOKIE.refresh]: '/api/v1/auth',
  [COOKIE.twoFactor]: '/api/v1/auth',
  [COOKIE.oauthState]: '/api/v1/auth',
  [COOKIE.ssoState]: '/api/v1/auth',
};

/** Sets and clears cookies with the attributes every session cookie shares: HttpOnly, SameSite=Lax, Secure per setting. */
@Injectable()
export class CookieService {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  set(res: Response, name: string, value: string, maxAgeSeconds: number): void {
    res.cookie(name, value, {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.cookieSecure,
      path: COOKIE_PATH[name] ?? '/',
      maxAge: maxAgeSeconds * 1000,
    });
  }

  /** Expires the cookie at once (Max-Age=0) on the path it was set on. */
  clear(res: Response, name: string): void {
    res.cookie(name, '', {
      httpOnly: true,
      sameSite: 'lax',
      secure: this.config.cookieSecure,
      path: COOKIE_PATH[name] ?? '/',
      maxAge: 0,
    });
  }
}
