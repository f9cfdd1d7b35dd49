import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  formatToken,
  hasValidChecksum,
  OAUTH_ACCESS_TOKEN,
  OAUTH_REFRESH_TOKEN,
  PERSONAL_TOKEN,
  type TokenFormat,
} from './token-format';

const random = (): string => randomBytes(32).toString('base64url');

describe('token format', () => {
  it.each([
    ['personal', PERSONAL_TOKEN, /^svc_live_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/],
    ['OAuth access', OAUTH_ACCESS_TOKEN, /^svc_oat_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/],
    ['OAuth refresh', OAUTH_REFRESH_TOKEN, /^svc_ort_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/],
  ])('a %s token is its prefix, 256 random bits and a checksum', (_kind, format: TokenFormat, shape: RegExp) => {
    const token = formatToken(format, random());
    expect(token).toMatch(shape);
    expect(hasValidChecksum(format, token)).toBe(true);
  });

  it('refuses a changed character, a truncated token and another kind of token', () => {
    for (const format of [PERSONAL_TOKEN, OAUTH_ACCESS_TOKEN]) {
      const token = formatToken(format, random());
      const flipped = token.slice(0, 20) + (token[20] === 'a' ? 'b' : 'a') + token.slice(21);
      expect(hasValidChecksum(format, flipped)).toBe(false);
      expect(hasValidChecksum(format, token.slice(0, -1))).toBe(false);
    }
    const access = formatToken(OAUTH_ACCESS_TOKEN, random());
    expect(hasValidChecksum(OAUTH_REFRESH_TOKEN, access)).toBe(false);
    // Same random part under the other prefix: the checksum covers the prefix, so it still fails.
    expect(hasValidChecksum(OAUTH_REFRESH_TOKEN, access.replace('svc_oat_', 'svc_ort_'))).toBe(false);
    expect(hasValidChecksum(OAUTH_ACCESS_TOKEN, formatToken(PERSONAL_TOKEN, random()))).toBe(false);
  });

  it('personal tokens keep the checksum of the random part only (tokens already issued stay valid)', () => {
    const r = random();
    const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    let n = crc32(r);
    let sum = '';
    for (let i = 0; i < 6; i++) {
      sum = BASE62[n % 62] + sum;
      n = Math.floor(n / 62);
    }
    expect(formatToken(PERSONAL_TOKEN, r)).toBe(`svc_live_${r}${sum}`);
  });
});
