import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { exportJWK, exportPKCS8, generateKeyPair, type JWK } from 'jose';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { AuditService } from '@/core/audit/audit.service';
import { RETIRED_KEY_GRACE_MS } from './lti-constants';
import { LtiRepository, type PlatformKeyRow } from './lti.repository';

type SigningKey = { kid: string; key: KeyObject };

/**
 * How long an instance signs with the active key it read before reading it again. The instance that rotates switches
 * at once; the others within this time, while the previous key is still published (7 days), so nothing they sign
 * fails to verify.
 */
const ACTIVE_KEY_CACHE_MS = 30_000;

/**
 * The platform's RS256 signing keys (extensions-v3 1.1): RSA 2048, created at first use, the private half sealed
 * with AES-256-GCM under DATA_ENCRYPTION_KEY. Rotation retires the active key; the JWKS keeps a retired key's
 * public half for 7 days so what it signed still verifies.
 */
@Injectable()
export class LtiKeysService {
  /** Imported private keys by kid (importing a PKCS#8 key costs more than signing with it). */
  private readonly imported = new Map<string, KeyObject>();
  /** The active key and when it was read (a launch signs without a statement for ACTIVE_KEY_CACHE_MS). */
  private active: { key: Promise<SigningKey>; readAt: number } | null = null;

  constructor(
    private readonly repo: LtiRepository,
    private readonly transactions: TransactionRunner,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  async jwks(): Promise<{ keys: JWK[] }> {
    await this.signingKey();
    const rows = await this.repo.publishedKeys(new Date(this.clock.nowMs() - RETIRED_KEY_GRACE_MS));
    return { keys: rows.map((r) => ({ ...(r.public_jwk as JWK), kid: r.kid, alg: 'RS256', use: 'sig' })) };
  }

  /**
   * Signs `claims` as a JWT (JWS compact, RS256) with the active key (its `kid` in the header); `iat` and `exp` from
   * the Clock. Node's own RSA signature on the thread pool, with the KeyObject imported once per key: the same token
   * jose's SignJWT makes, without its WebCrypto round (algorithm normalization, key checks, copies) per launch.
   */
  async sign(claims: Record<string, unknown>, ttlSeconds: number): Promise<string> {
    const { kid, key } = await this.signingKey();
    const iat = this.clock.nowSeconds();
    const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid, typ: 'JWT' })).toString('base64url');
    const payload = Buffer.from(JSON.stringify({ ...claims, iat, exp: iat + ttlSeconds })).toString('base64url');
    const input = `${header}.${payload}`;
    const signature = await new Promise<Buffer>((resolve, reject) =>
      sign('sha256', Buffer.from(input), key, (err, sig) => (err ? reject(err) : resolve(sig))),
    );
    return `${input}.${signature.toString('base64url')}`;
  }

  async rotate(actorId: string, ip?: string): Promise<{ kid: string }> {
    const kid = await this.transactions.run(async (tx) => {
      await this.repo.lockKeys(tx);
      const now = this.clock.now();
      await this.repo.retireActiveKeys(now, tx);
      const row = await this.newKey(now);
      await this.repo.insertKey(row, tx);
      await this.audit.record(
        {
          action: 'lti_key.rotated',
          actorId,
          organizationId: null,
          targetType: 'lti_key',
          targetId: null,
          ip,
          metadata: { kid: row.kid },
        },
        tx,
      );
      return row.kid;
    });
    this.active = null;
    return { kid };
  }

  private signingKey(): Promise<SigningKey> {
    const now = this.clock.nowMs();
    if (!this.active || now - this.active.readAt >= ACTIVE_KEY_CACHE_MS || now < this.active.readAt) {
      const key = this.readSigningKey();
      this.active = { key, readAt: now };
      key.catch(() => {
        if (this.active?.key === key) this.active = null;
      });
    }
    return this.active.key;
  }

  private async readSigningKey(): Promise<SigningKey> {
    let row = await this.repo.activeKey();
    if (!row) {
      row = await this.transactions.run(async (tx) => {
        await this.repo.lockKeys(tx);
        const existing = await this.repo.activeKey(tx);
        if (existing) return existing;
        const created = await this.newKey(this.clock.now());
        await this.repo.insertKey(created, tx);
        return { ...created, retired_at: null };
      });
    }
    return { kid: row.kid, key: this.privateKey(row) };
  }

  private privateKey(row: PlatformKeyRow): KeyObject {
    let key = this.imported.get(row.kid);
    if (!key) {
      key = createPrivateKey(this.crypto.decrypt(row.private_key_sealed));
      this.imported.set(row.kid, key);
    }
    return key;
  }

  private async newKey(now: Date): Promise<Omit<PlatformKeyRow, 'retired_at'>> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const jwk = await exportJWK(publicKey);
    return {
      kid: this.crypto.randomToken(16),
      public_jwk: { kty: jwk.kty, n: jwk.n, e: jwk.e },
      private_key_sealed: this.crypto.encrypt(await exportPKCS8(privateKey)),
      created_at: now,
    };
  }
}
