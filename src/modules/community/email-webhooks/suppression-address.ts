import { isEmail } from 'class-validator';

/** The purpose of the keyed hash an address is stored under (CryptoService.keyedHash). */
export const SUPPRESSION_HASH_PURPOSE = 'email-suppression';

/** Longest address accepted from the provider or an admin (RFC 5321 path limit). */
export const ADDRESS_MAX = 254;

/** The form an address is hashed in: trimmed and lower-cased, so `Ana@Example.org` and `ana@example.org` match. */
export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

/**
 * An address as a provider may write it (`ana@example.org`, or `Ana <ana@example.org>`), normalized; null when it is
 * not an address.
 */
export function parseRecipient(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 2 * ADDRESS_MAX) return null;
  const angle = /<([^<>]*)>\s*$/.exec(value);
  const address = normalizeAddress(angle ? angle[1] : value);
  return address.length <= ADDRESS_MAX && isEmail(address) ? address : null;
}

/**
 * The address shown to admins instead of the address itself: the first character of the local part, three
 * asterisks, and the domain (`a***@example.org`).
 */
export function maskAddress(address: string): string {
  const normalized = normalizeAddress(address);
  const at = normalized.lastIndexOf('@');
  if (at < 0) return '***';
  const local = normalized.slice(0, at);
  return `${local.slice(0, 1)}***${normalized.slice(at)}`;
}
