import { createHash } from 'node:crypto';
import { UAParser } from 'ua-parser-js';

/**
 * The privacy rules of telemetry (extensions-v2 21): routes normalized, error texts scrubbed, the user agent reduced
 * to a device class and a browser family with its major version, then forgotten.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const ALLOWED_ROUTE = /^\/[A-Za-z0-9/_:.-]*$/;

/**
 * A route as stored: query and fragment removed, email addresses `:email`, UUIDs `:id`, runs of 4 or more digits
 * `:n`; null (the event is dropped) when the result is longer than 200 characters or holds anything but
 * `^/[A-Za-z0-9/_:.-]*$`.
 */
export function normalizeRoute(route: string): string | null {
  let r = route.split(/[?#]/)[0];
  r = r
    .replace(EMAIL, ':email')
    .replace(UUID, ':id')
    .replace(/\d{4,}/g, ':n');
  if (r.length === 0 || r.length > 200 || !ALLOWED_ROUTE.test(r)) return null;
  return r;
}

/** `svc_live_`, `svc_oat_`, `svc_ort_` tokens and JWT-shaped strings. */
const TOKENS = /\bsvc_(?:live|oat|ort)_[A-Za-z0-9_-]+|\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/** URLs: their query strings (and fragments) go. */
const URL_QUERY = /(\b[a-z][a-z0-9+.-]*:\/\/[^\s?#"'<>]*)[?#][^\s"'<>]*/gi;

/** IPv4 addresses (not in the spec's list; a client address is personal data too). */
const IPV4 = /\b(?:\d{1,3}\.){3}\d{1,3}\b/g;

/**
 * Error text as stored: emails `[email]`, tokens `[token]`, runs of 6+ digits `[n]`, URL query strings removed;
 * also IPv4 addresses `[ip]`.
 */
export function scrub(text: string): string {
  return text
    .replace(URL_QUERY, '$1')
    .replace(TOKENS, '[token]')
    .replace(EMAIL, '[email]')
    .replace(IPV4, '[ip]')
    .replace(/\d{6,}/g, '[n]');
}

/**
 * SHA-256 of the scrubbed message with numbers removed and the first three stack frames without line and column
 * numbers: the same error from another line of the same release, or another user's data, groups together.
 */
export function fingerprint(message: string, stack: string | null): string {
  const frames = (stack ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('at ') || l.includes('@'))
    .slice(0, 3)
    .map((l) => l.replace(/:\d+(:\d+)?(\)?)$/, '$2'));
  return createHash('sha256').update(message.replace(/\d+/g, '')).update('\n').update(frames.join('\n')).digest('hex');
}

export interface ClientClass {
  device: 'mobile' | 'tablet' | 'desktop';
  browser: string;
}

/** The device class and browser family with its major version; the user agent itself is not kept. */
export function classify(userAgent: string | undefined): ClientClass {
  const ua = UAParser(userAgent ?? '');
  const type = ua.device.type;
  const device = type === 'mobile' || type === 'wearable' ? 'mobile' : type === 'tablet' ? 'tablet' : 'desktop';
  const name = (ua.browser.name ?? 'other').slice(0, 40);
  const major = ua.browser.major ? ` ${ua.browser.major.slice(0, 8)}` : '';
  return { device, browser: `${name}${major}` };
}
