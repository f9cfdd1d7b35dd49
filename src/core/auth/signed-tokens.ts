import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import jwt from 'jsonwebtoken';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';

/** What each signed token is for; each purpose has its own key, so one can never stand in for another. */
export type TokenPurpose = 'access' | 'step_up';

export interface SignedClaims {
  [claim: string]: unknown;
  iat: number;
  exp: number;
}

/**
 * Short-lived HS256 tokens (JWT via jsonwebtoken) with a key derived per purpose from AUTH_SECRET. Issue and
 * expiry times come from the Clock, so tests move time instead of sleeping.
 */
@Injectable()
export class SignedTokens {
  private readonly keys = new Map<TokenPurpose, KeyObject>();
  readonly issuer: string;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.issuer = config.baseUrl;
  }

  /** The purpose's key as a KeyObject, built once (jsonwebtoken would rebuild one from raw bytes on every call). */
  keyObject(purpose: TokenPurpose): KeyObject {
    let key = this.keys.get(purpose);
    if (!key) {
      key = createSecretKey(
        Buffer.from(hkdfSync('sha256', this.config.authSecret, 'learning-platform', `jwt:${purpose}`, 32)),
      );
      this.keys.set(purpose, key);
    }
    return key;
  }

  sign(purpose: TokenPurpose, claims: Record<string, unknown>, ttlSeconds: number): { token: string; expiresAt: Date } {
    const iat = this.clock.nowSeconds();
    const exp = iat + ttlSeconds;
    const token = jwt.sign({ ...claims, iat, exp }, this.keyObject(purpose), {
      algorithm: 'HS256',
      issuer: this.issuer,
      audience: purpose,
    });
    return { token, expiresAt: new Date(exp * 1000) };
  }

  /** The claims when the signature, issuer, audience and expiry (by the Clock) hold; otherwise null. */
  verify(purpose: TokenPurpose, token: string): SignedClaims | null {
    try {
      const claims = jwt.verify(token, this.keyObject(purpose), {
        algorithms: ['HS256'],
        issuer: this.issuer,
        audience: purpose,
        ignoreExpiration: true,
      }) as SignedClaims;
      return this.isCurrent(claims) ? claims : null;
    } catch {
      return null;
    }
  }

  /** Expiry and issue time checked against the Clock (passport-jwt's own check uses the wall clock). */
  isCurrent(claims: { iat?: unknown; exp?: unknown }): boolean {
    const now = this.clock.nowSeconds();
    return (
      typeof claims.exp === 'number' && claims.exp > now && (typeof claims.iat !== 'number' || claims.iat <= now + 60)
    );
  }
}
