import type { DomainEvent, EventName, EventPayload } from '@/core/events/event-catalog';

/** The event types an endpoint subscribes to (extensions-v2 25.3). `webhook.test` is sent by the test route. */
export const WEBHOOK_EVENT_TYPES = [
  'enrollment.created',
  'course.completed',
  'certificate.issued',
  'certificate.revoked',
  'certificate.reissued',
  'program.completed',
  'exam.graded',
  'member.joined',
  'member.left',
  'member.role_changed',
  'member.suspended',
  'member.reactivated',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The domain events (26.1) that become outbound webhooks. */
export const SOURCE_EVENTS = [
  'enrollment.created',
  'course.completed',
  'certificate.issued',
  'certificate.revoked',
  'certificate.reissued',
  'program.completed',
  'exam.submitted',
  'exam.reviewed',
  'member.joined',
  'member.left',
  'member.role_changed',
  'member.suspended',
  'member.reactivated',
] as const satisfies readonly EventName[];
export type SourceEvent = (typeof SOURCE_EVENTS)[number];

export type WebhookData = Record<string, string | number | boolean | null>;

/**
 * How a source event becomes a webhook: its type, the payload fields it carries (picked from the catalog's payload,
 * so a field the catalog does not define fails to compile) and any constant fields.
 */
interface WebhookMapping<N extends SourceEvent> {
  readonly type: WebhookEventType;
  readonly fields: readonly (keyof EventPayload<N> & string)[];
  readonly constant?: WebhookData;
}

/**
 * The webhook type and thin `data` of each source event (ids, enums, numbers and times; never a name or an email).
 * Both exam events become `exam.graded`: a session graded (by the learner or at the deadline) and a review that
 * accepted or voided it (`flagged` is then false: the review settled the flag; a voided session has `score` null
 * and `passed` false).
 */
const WEBHOOK_OF: { readonly [N in SourceEvent]: WebhookMapping<N> } = {
  'enrollment.created': { type: 'enrollment.created', fields: ['user_id', 'course_id', 'enrolled_at'] },
  'course.completed': { type: 'course.completed', fields: ['user_id', 'course_id', 'completed_at'] },
  'certificate.issued': {
    type: 'certificate.issued',
    fields: ['certificate_id', 'code', 'type', 'user_id', 'course_id', 'path_id', 'issued_at'],
  },
  'certificate.revoked': { type: 'certificate.revoked', fields: ['certificate_id', 'code', 'revoked_at'] },
  'certificate.reissued': {
    type: 'certificate.reissued',
    fields: ['certificate_id', 'code', 'replaced_certificate_id', 'replaced_code'],
  },
  'program.completed': { type: 'program.completed', fields: ['user_id', 'path_id', 'completed_at'] },
  'exam.submitted': {
    type: 'exam.graded',
    fields: ['session_id', 'exam_id', 'user_id', 'score', 'passed', 'flagged'],
  },
  'exam.reviewed': {
    type: 'exam.graded',
    fields: ['session_id', 'exam_id', 'user_id', 'score', 'passed'],
    constant: { flagged: false },
  },
  'member.joined': { type: 'member.joined', fields: ['user_id', 'role'] },
  'member.left': { type: 'member.left', fields: ['user_id'] },
  'member.suspended': { type: 'member.suspended', fields: ['user_id'] },
  'member.reactivated': { type: 'member.reactivated', fields: ['user_id'] },
  'member.role_changed': { type: 'member.role_changed', fields: ['user_id', 'from', 'to'] },
};

export function webhookOf(event: DomainEvent<SourceEvent>): { type: WebhookEventType; data: WebhookData } {
  const mapping = WEBHOOK_OF[event.name] as WebhookMapping<SourceEvent> | undefined;
  if (!mapping) throw new Error(`Event ${event.name} has no webhook`);
  const payload = event.payload as unknown as Record<string, string | number | boolean | null>;
  const data: WebhookData = {};
  for (const field of mapping.fields) data[field] = payload[field];
  return { type: mapping.type, data: { ...data, ...mapping.constant } };
}

/** The attempts of a delivery: at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (8 in all). */
export const RETRY_DELAYS_MS = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length;
/** Delay before attempt `n + 1` after attempt `n` failed (n from 1), or null after the last. */
export function nextAttemptDelay(attempt: number): number | null {
  return attempt < MAX_ATTEMPTS ? RETRY_DELAYS_MS[attempt] : null;
}

export const ENDPOINT_LIMIT = 10;
/** The previous secret still signs for 24 h after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** An endpoint whose deliveries have all failed for 5 days is disabled. */
export const FAILING_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
export const DELIVERY_RETENTION_MS = 30 * 24 * 3_600_000;
export const DELIVERY_TIMEOUT_MS = 10_000;
export const USER_AGENT = 'LearningPlatform-Webhooks/1';
