import { crc32 } from 'node:zlib';

export const PERSONAL_TOKEN_PREFIX = 'svc_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/**
 * `svc_live_` + 43 characters of randomness (256 bits, base64url) + a 6-character CRC32 checksum (base62), the
 * GitHub-style shape that lets secret scanners recognise a leaked token offline and lets us reject a mistyped
 * one without a database look-up.
 */
export function formatPersonalToken(random: string): string {
  return `${PERSONAL_TOKEN_PREFIX}${random}${base62(crc32(random), 6)}`;
}

export function hasValidChecksum(token: string): boolean {
  if (!token.startsWith(PERSONAL_TOKEN_PREFIX)) return false;
  const body = token.slice(PERSONAL_TOKEN_PREFIX.length);
  if (body.length !== 49) return false;
  const random = body.slice(0, 43);
  return /^[A-Za-z0-9_-]{43}$/.test(random) && base62(crc32(random), 6) === body.slice(43);
}
