import { crc32 } from 'node:zlib';

export const ACCESS_TOKEN_PREFIX = 'svc_oat_';
export const REFRESH_TOKEN_PREFIX = 'svc_ort_';
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
 * `<prefix>` + 43 characters of randomness (256 bits, base64url) + a 6-character CRC32 checksum of both: the
 * shape of the personal tokens, so secret scanners recognise a leaked OAuth token and a mistyped one is refused
 * without a database look-up. Access and refresh tokens have different prefixes and never stand in for each other.
 */
export function formatToken(prefix: string, random: string): string {
  return `${prefix}${random}${base62(crc32(`${prefix}${random}`), 6)}`;
}

export function hasValidChecksum(prefix: string, token: string): boolean {
  if (!token.startsWith(prefix)) return false;
  const body = token.slice(prefix.length);
  if (body.length !== 49) return false;
  const random = body.slice(0, 43);
  return /^[A-Za-z0-9_-]{43}$/.test(random) && base62(crc32(`${prefix}${random}`), 6) === body.slice(43);
}
