import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';

const CIPHER = 'aes-256-gcm';
const CIPHER_VERSION = 'v1';

/**
 * Every secret the service generates or keeps goes through here: random tokens, digit codes, SHA-256
 * fingerprints, keyed hashes (HMAC-SHA256 with a key derived per purpose from AUTH_SECRET) and
 * AES-256-GCM encryption at rest with DATA_ENCRYPTION_KEY.
 */
@Injectable()
export class CryptoService {
  /** HMAC keys by purpose, as KeyObjects: an HMAC under a raw Buffer key imports it again each time (~6x the cost). */
  private readonly hmacKeys = new Map<string, KeyObject>();

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** `bytes` of randomness as base64url (32 bytes = 256 bits = 43 characters). */
  randomToken(bytes = 32): string {
    return randomBytes(bytes).toString('base64url');
  }

  /** A string of `length` decimal digits drawn uniformly. */
  randomDigits(length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += String(randomInt(0, 10));
    return out;
  }

  /** A string of `length` characters drawn uniformly from `alphabet`. */
  randomFromAlphabet(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[randomInt(0, alphabet.length)];
    return out;
  }

  /** Hex SHA-256: the stored fingerprint of a high-entropy secret (refresh tokens, personal tokens). */
  sha256(value: string | Buffer): string {
    return createHash('sha256').update(value).digest('hex');
  }

  /**
   * Hex HMAC-SHA256 under a key derived for `purpose`. For low-entropy values (email codes, IP addresses)
   * whose plain hash could be reversed by enumeration.
   */
  keyedHash(purpose: string, value: string): string {
    return createHmac('sha256', this.hmacKey(purpose)).update(value).digest('hex');
  }

  /** Constant-time comparison of two strings (false on different lengths, without early exit on content). */
  safeEqual(a: string, b: string): boolean {
    const ab = Buffer.from(a);
    const bb = Buffer.from(b);
    if (ab.length !== bb.length) {
      timingSafeEqual(ab, ab);
      return false;
    }
    return timingSafeEqual(ab, bb);
  }

  /** AES-256-GCM with a random 96-bit IV; the result is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv(CIPHER, this.config.dataEncryptionKey, iv);
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [CIPHER_VERSION, iv.toString('base64url'), tag.toString('base64url'), ct.toString('base64url')].join('.');
  }

  decrypt(sealed: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== CIPHER_VERSION || !iv || !tag || ct === undefined) throw new Error('Unrecognized ciphertext');
    const decipher = createDecipheriv(CIPHER, this.config.dataEncryptionKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }

  private hmacKey(purpose: string): KeyObject {
    let key = this.hmacKeys.get(purpose);
    if (!key) {
      key = createSecretKey(
        Buffer.from(hkdfSync('sha256', this.config.authSecret, 'learning-platform', `hmac:${purpose}`, 32)),
      );
      this.hmacKeys.set(purpose, key);
    }
    return key;
  }
}
