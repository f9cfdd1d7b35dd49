import { createHmac, hkdfSync } from 'node:crypto';
import type { AppConfig } from '@/config/app-config';
import { CryptoService } from '@/core/crypto/crypto.service';
import {
  listUnsubscribeHeaders,
  UNSUBSCRIBE_TYPES,
  unsubscribeToken,
  unsubscribeUrl,
  verifyUnsubscribeToken,
} from './unsubscribe-token';

const AUTH_SECRET = 'unsubscribe-test-secret-0123456789-abcdef';
const crypto = new CryptoService({ authSecret: AUTH_SECRET, dataEncryptionKey: Buffer.alloc(32, 1) } as AppConfig);
const USER = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** The formula of extensions-v2 13.6, computed here without the code under test. */
function expected(userId: string, type: string): string {
  const key = Buffer.from(hkdfSync('sha256', AUTH_SECRET, 'learning-platform', 'hmac:unsubscribe', 32));
  const mac = createHmac('sha256', key).update(`${userId}:${type}`).digest('hex').slice(0, 32);
  return userId.replace(/-/g, '') + mac;
}

describe('unsubscribe token (extensions-v2 13.6)', () => {
  it('is the 32 hex digits of the user id followed by the first 32 of the keyed hash of "<user_id>:<type>"', () => {
    for (const type of UNSUBSCRIBE_TYPES) {
      const token = unsubscribeToken(crypto, USER, type);
      expect(token).toMatch(/^[a-f0-9]{64}$/);
      expect(token).toBe(expected(USER, type));
    }
  });

  it('does not depend on the case the id is given in', () => {
    expect(unsubscribeToken(crypto, USER.toUpperCase(), 'all')).toBe(unsubscribeToken(crypto, USER, 'all'));
  });

  it('verifies for its person and type only', () => {
    const token = unsubscribeToken(crypto, USER, 'all');
    expect(verifyUnsubscribeToken(crypto, token, 'all')).toBe(USER);
    expect(verifyUnsubscribeToken(crypto, token, 'new_course')).toBeNull();
    const other = unsubscribeToken(crypto, '6ec0bd7f-11c0-43da-975e-2a8ad9ebae0b', 'all');
    // Another person's id with this MAC, and this id with a flipped MAC digit.
    expect(verifyUnsubscribeToken(crypto, other.slice(0, 32) + token.slice(32), 'all')).toBeNull();
    const flipped = token.slice(0, 63) + (token[63] === '0' ? '1' : '0');
    expect(verifyUnsubscribeToken(crypto, flipped, 'all')).toBeNull();
  });

  it('refuses malformed tokens without computing anything', () => {
    for (const bad of [
      '',
      'abc',
      'G'.repeat(64),
      unsubscribeToken(crypto, USER, 'all').toUpperCase(),
      'a'.repeat(65),
    ]) {
      expect(verifyUnsubscribeToken(crypto, bad, 'all')).toBeNull();
    }
  });

  it('builds the RFC 8058 headers on the base URL', () => {
    const token = unsubscribeToken(crypto, USER, 'all');
    expect(unsubscribeUrl('https://api.example.org/', token, 'all')).toBe(
      `https://api.example.org/api/v1/notifications/unsubscribe?token=${token}&type=all`,
    );
    expect(listUnsubscribeHeaders(crypto, 'https://api.example.org', USER, 'all')).toEqual({
      'List-Unsubscribe': `<https://api.example.org/api/v1/notifications/unsubscribe?token=${token}&type=all>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    });
  });
});
