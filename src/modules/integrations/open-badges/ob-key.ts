import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

/**
 * The issuer's Ed25519 key pair (extensions-v2 25.5): `OB_SIGNING_KEY` (PKCS#8 PEM), or outside production the
 * one generated into DATA_DIR by the configuration. Its `kid` is the RFC 7638 thumbprint of the public JWK, so a
 * new key gets a new `kid` by itself. Null when Open Badges are off (`OB_ENABLED=false`).
 */
@Injectable()
export class ObKey {
  private readonly privateKey: KeyObject | null;
  private publicJwk: Promise<JWK & { kid: string }> | null = null;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const pem = config.openBadges.enabled ? config.openBadges.signingKeyPem : null;
    this.privateKey = pem ? createPrivateKey(pem) : null;
    if (this.privateKey && this.privateKey.asymmetricKeyType !== 'ed25519') {
      throw new Error('OB_SIGNING_KEY must be an Ed25519 private key (PKCS#8 PEM)');
    }
  }

  get enabled(): boolean {
    return this.privateKey !== null;
  }

  get signingKey(): KeyObject {
    if (!this.privateKey) throw new Error('Open Badges are off');
    return this.privateKey;
  }

  /** The public key as a JWK with `kid`, `alg: EdDSA` and `use: sig`. */
  jwk(): Promise<JWK & { kid: string }> {
    this.publicJwk ??= (async () => {
      const jwk = await exportJWK(createPublicKey(this.signingKey));
      const kid = await calculateJwkThumbprint(jwk, 'sha256');
      return { ...jwk, kid, alg: 'EdDSA', use: 'sig' };
    })();
    return this.publicJwk;
  }
}
