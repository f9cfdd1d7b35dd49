import { parseRecipient } from './suppression-address';

/** Why an address is on the suppression list (extensions-v2 22.3). */
export type SuppressionReason = 'hard_bounce' | 'complaint' | 'manual';
export const SUPPRESSION_REASONS: readonly SuppressionReason[] = ['hard_bounce', 'complaint', 'manual'];

/** Resend sends at most 50 recipients per message; anything beyond is not a real event. */
const MAX_RECIPIENTS = 50;
/** Stored event types are bounded (the provider's are short; an unknown one is only logged). */
const TYPE_MAX = 100;

/** An event as received: a JSON object with a string `type` (extensions-v2 22.1 step 4). */
export interface EmailEvent {
  type: string;
  data?: unknown;
}

/** Why a body is not an event: the route answers 422 and records nothing. */
export type EventParseError = 'not_json' | 'no_type';

export function parseEmailEvent(body: Buffer): EmailEvent | EventParseError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    return 'not_json';
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return 'no_type';
  const { type, data } = parsed as Record<string, unknown>;
  if (typeof type !== 'string' || type.length === 0) return 'no_type';
  return { type, data };
}

/** The event type as stored beside its id: bounded, without control characters (PostgreSQL refuses NUL). */
export function storedType(type: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
  return type.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, TYPE_MAX) || '(none)';
}

/** What an event does (extensions-v2 22.2). */
export type EmailEventEffect =
  | { outcome: 'processed'; reason: 'hard_bounce' | 'complaint'; addresses: string[] }
  | { outcome: 'ignored'; why: 'soft_bounce' | 'unknown_bounce_type' | 'no_recipient' | 'not_applicable' };

const HARD = new Set(['permanent', 'hard']);
const SOFT = new Set(['transient', 'soft', 'undetermined']);

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** The distinct valid recipients of `data.to` (a string or an array of strings). */
export function recipientsOf(data: unknown): string[] {
  const to = field(data, 'to');
  const list = Array.isArray(to) ? to.slice(0, MAX_RECIPIENTS) : [to];
  return [...new Set(list.map(parseRecipient).filter((a): a is string => a !== null))];
}

/**
 * The Resend payload `{type, created_at, data: {email_id?, to, bounce?: {type?, subType?, message?}}}`:
 * `email.bounced` with a bounce type absent, `Permanent` or `hard` (any case) suppresses each recipient as a hard
 * bounce; `Transient`, `soft` or `Undetermined` is only counted. An unknown bounce type is not taken for a hard one
 * (suppressing on a guess would silence a working address). `email.complained` suppresses each recipient as a
 * complaint. Every other type (sent, delivered, delayed, opened, clicked, unknown) changes nothing.
 */
export function classifyEmailEvent(event: EmailEvent): EmailEventEffect {
  let reason: 'hard_bounce' | 'complaint';
  if (event.type === 'email.bounced') {
    const bounceType = field(field(event.data, 'bounce'), 'type');
    if (
      bounceType === undefined ||
      bounceType === null ||
      (typeof bounceType === 'string' && HARD.has(bounceType.toLowerCase()))
    ) {
      reason = 'hard_bounce';
    } else if (typeof bounceType === 'string' && SOFT.has(bounceType.toLowerCase())) {
      return { outcome: 'ignored', why: 'soft_bounce' };
    } else {
      return { outcome: 'ignored', why: 'unknown_bounce_type' };
    }
  } else if (event.type === 'email.complained') {
    reason = 'complaint';
  } else {
    return { outcome: 'ignored', why: 'not_applicable' };
  }
  const addresses = recipientsOf(event.data);
  if (addresses.length === 0) return { outcome: 'ignored', why: 'no_recipient' };
  return { outcome: 'processed', reason, addresses };
}
