import { Strategy as JwtStrategy } from 'passport-jwt';

type VerifyCallback = (err: Error | null, payload?: unknown) => void;
type JwtVerifierFn = (token: string, key: unknown, options: unknown, callback: VerifyCallback) => void;

/**
 * Remembers access tokens passport-jwt has already verified (issue 20: `GET /auth/me` spent a fifth of its own CPU
 * time in jsonwebtoken re-decoding and re-HMACing the same cookie on every request).
 *
 * passport-jwt still verifies every token the first time it is seen, through its own `JwtVerifier`; only a token
 * whose exact bytes already passed — same key object, same verification options (algorithm, issuer, audience;
 * expiry is ignored there and checked by the strategy against the Clock on every request) — is answered from
 * memory. The verdict for identical bytes under an identical key and options cannot change, so nothing is
 * accepted that would not be: failures are never remembered, and the session, the account and the token version
 * are still checked on every request (`CookieSessionStrategy.validate`). Bounded: the oldest entries go first.
 */
export class VerifiedTokenMemo {
  private readonly verified = new Map<string, unknown>();

  constructor(
    private readonly key: unknown,
    private readonly maxEntries = 10_000,
  ) {}

  /** Wraps passport-jwt's verifier for `options` (the strategy's own `_verifOpts`); other strategies pass through. */
  install(options: unknown): void {
    const holder = JwtStrategy as unknown as { JwtVerifier: JwtVerifierFn };
    const inner = holder.JwtVerifier;
    const wrapped: JwtVerifierFn = (token, key, opts, callback) => {
      if (key !== this.key || opts !== options) return inner(token, key, opts, callback);
      if (this.verified.has(token)) return callback(null, this.verified.get(token));
      inner(token, key, opts, (err, payload) => {
        if (!err && payload && typeof payload === 'object') this.remember(token, Object.freeze(payload));
        callback(err, payload);
      });
    };
    holder.JwtVerifier = wrapped;
  }

  get size(): number {
    return this.verified.size;
  }

  private remember(token: string, payload: unknown): void {
    if (this.verified.size >= this.maxEntries) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, payload);
  }
}
