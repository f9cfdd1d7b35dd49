import type { Request, Response } from 'express';
import passport from 'passport';
import { COOKIE, cookieOf } from '@/core/http/cookies';
import type { Credential } from './credential';
import { OAUTH_ACCESS_TOKEN, PERSONAL_TOKEN } from './token-format';

/** Passport strategy names; each credential kind is one strategy registered by the module that owns it. */
export const STRATEGY = {
  cookieSession: 'cookie-session',
  personalToken: 'personal-token',
  oauthToken: 'oauth-token',
} as const;
export type StrategyName = (typeof STRATEGY)[keyof typeof STRATEGY];

/** Bearer token prefixes and the strategy that owns each. */
export const BEARER_PREFIXES: readonly [string, StrategyName][] = [
  [PERSONAL_TOKEN.prefix, STRATEGY.personalToken],
  [OAUTH_ACCESS_TOKEN.prefix, STRATEGY.oauthToken],
];

/** Whether a module registered this strategy (an area not yet built leaves its credential unaccepted). */
export function strategyRegistered(name: StrategyName): boolean {
  return (passport as unknown as { _strategy(name: string): unknown })._strategy(name) !== undefined;
}

/** Runs one passport strategy without sessions; resolves the Credential it validated, or null. */
export function authenticateWith(name: StrategyName, req: Request, res: Response): Promise<Credential | null> {
  return new Promise((resolve, reject) => {
    const handler = passport.authenticate(name, { session: false }, (err: unknown, user: Credential | false) => {
      if (err) reject(err instanceof Error ? err : new Error('Credential strategy failed'));
      else resolve(user || null);
    }) as (req: Request, res: Response, next: (err?: unknown) => void) => void;
    handler(req, res, (err?: unknown) =>
      err ? reject(err instanceof Error ? err : new Error('Credential strategy failed')) : resolve(null),
    );
  });
}

/**
 * The browser session of a request on a public operation (the OAuth authorization page, which must know whether
 * someone is signed in without requiring it), or null: no cookie, or one that does not authenticate.
 */
export async function optionalCookieSession(req: Request, res: Response): Promise<Credential | null> {
  if (!cookieOf(req, COOKIE.access) || !strategyRegistered(STRATEGY.cookieSession)) return null;
  try {
    const credential = await authenticateWith(STRATEGY.cookieSession, req, res);
    return credential?.kind === 'session' ? credential : null;
  } catch {
    return null;
  }
}
