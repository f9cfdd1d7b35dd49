import { crc32 } from 'node:zlib';

/**
 * The shape of the service's opaque bearer tokens: `<prefix>` + 43 characters of randomness (256 bits, base64url)
 * + a 6-character CRC32 checksum (base62). The GitHub-style shape lets secret scanners recognise a leaked token
 * offline and lets us refuse a mistyped one without a database look-up. Each kind has its own prefix, so one kind
 * never stands in for another.
 */
export interface TokenFormat {
  readonly prefix: string;
  /**
   * Whether the checksum covers the prefix too. Personal tokens were issued with a checksum of the random part
   * only and must keep validating; the OAuth tokens' checksum covers both.
   */
  readonly checksumCoversPrefix: boolean;
}

export const PERSONAL_TOKEN: TokenFormat = { prefix: 'svc_live_', checksumCoversPrefix: false };
export const OAUTH_ACCESS_TOKEN: TokenFormat = { prefix: 'svc_oat_', checksumCoversPrefix: true };
/** A SCIM token of an organization's identity provider (extensions-v3 2.1). */
export const SCIM_TOKEN: TokenFormat = { prefix: 'svc_scim_', checksumCoversPrefix: true };
export const OAUTH_REFRESH_TOKEN: TokenFormat = { prefix: 'svc_ort_', checksumCoversPrefix: true };

const RANDOM = /^[A-Za-z0-9_-]{43}$/;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function base62(n: number, width: number): string {
  let out = '';
  for (let i = 0; i < width; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function checksum(format: TokenFormat, random: string): string {
  return base62(crc32(format.checksumCoversPrefix ? `${format.prefix}${random}` : random), 6);
}

/** The token for 43 characters of base64url randomness (`CryptoService.randomToken(32)`). */
export function formatToken(format: TokenFormat, random: string): string {
  return `${format.prefix}${random}${checksum(format, random)}`;
}

export function hasValidChecksum(format: TokenFormat, token: string): boolean {
  if (!token.startsWith(format.prefix)) return false;
  const body = token.slice(format.prefix.length);
  if (body.length !== 49) return false;
  const random = body.slice(0, 43);
  return RANDOM.test(random) && checksum(format, random) === body.slice(43);
}
