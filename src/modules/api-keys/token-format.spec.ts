import { randomBytes } from 'node:crypto';
import { formatPersonalToken, hasValidChecksum } from './token-format';

describe('personal token format', () => {
  it('is svc_live_ + 43 random characters + a 6-character checksum', () => {
    const token = formatPersonalToken(randomBytes(32).toString('base64url'));
    expect(token).toMatch(/^svc_live_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/);
    expect(hasValidChecksum(token)).toBe(true);
  });

  it('rejects a changed character, a truncated token and other prefixes', () => {
    const token = formatPersonalToken(randomBytes(32).toString('base64url'));
    const flipped = token.slice(0, 20) + (token[20] === 'a' ? 'b' : 'a') + token.slice(21);
    expect(hasValidChecksum(flipped)).toBe(false);
    expect(hasValidChecksum(token.slice(0, -1))).toBe(false);
    expect(hasValidChecksum(token.replace('svc_live_', 'svc_oat_'))).toBe(false);
  });
});
