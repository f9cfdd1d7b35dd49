import { randomBytes } from 'node:crypto';
import { ACCESS_TOKEN_PREFIX, formatToken, hasValidChecksum, REFRESH_TOKEN_PREFIX } from './token-format';

describe('OAuth token format', () => {
  const random = (): string => randomBytes(32).toString('base64url');

  it('is the prefix, 256 random bits and a checksum', () => {
    const token = formatToken(ACCESS_TOKEN_PREFIX, random());
    expect(token).toMatch(/^svc_oat_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/);
    expect(hasValidChecksum(ACCESS_TOKEN_PREFIX, token)).toBe(true);
  });

  it('an access token is not a refresh token, and a changed character fails', () => {
    const r = random();
    const access = formatToken(ACCESS_TOKEN_PREFIX, r);
    expect(hasValidChecksum(REFRESH_TOKEN_PREFIX, access)).toBe(false);
    expect(hasValidChecksum(REFRESH_TOKEN_PREFIX, access.replace(ACCESS_TOKEN_PREFIX, REFRESH_TOKEN_PREFIX))).toBe(
      false,
    );
    const flipped = access.slice(0, 20) + (access[20] === 'a' ? 'b' : 'a') + access.slice(21);
    expect(hasValidChecksum(ACCESS_TOKEN_PREFIX, flipped)).toBe(false);
    expect(hasValidChecksum(ACCESS_TOKEN_PREFIX, access.slice(0, -1))).toBe(false);
  });
});
