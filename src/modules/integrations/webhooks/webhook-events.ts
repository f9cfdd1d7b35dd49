import type { DomainEvent, EventName } from '@/core/events/event-catalog';

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
 * The webhook type and thin `data` of a domain event (ids, enums, numbers and times; never a name or an email).
 * Both exam events become `exam.graded`: a session graded (by the learner or at the deadline) and a review that
 * accepted or voided it (`flagged` is then false: the review settled the flag; a voided session has `score` null
 * and `passed` false).
 */
export function webhookOf(event: DomainEvent<SourceEvent>): { type: WebhookEventType; data: WebhookData } {
  const e = event as DomainEvent;
  switch (e.name) {
    case 'enrollment.created': {
      const p = (e as DomainEvent<'enrollment.created'>).payload;
      return {
        type: 'enrollment.created',
        data: { user_id: p.user_id, course_id: p.course_id, enrolled_at: p.enrolled_at },
      };
    }
    case 'course.completed': {
      const p = (e as DomainEvent<'course.completed'>).payload;
      return {
        type: 'course.completed',
        data: { user_id: p.user_id, course_id: p.course_id, completed_at: p.completed_at },
      };
    }
    case 'certificate.issued': {
      const p = (e as DomainEvent<'certificate.issued'>).payload;
      return {
        type: 'certificate.issued',
        data: {
          certificate_id: p.certificate_id,
          code: p.code,
          type: p.type,
          user_id: p.user_id,
          course_id: p.course_id,
          path_id: p.path_id,
          issued_at: p.issued_at,
        },
      };
    }
    case 'certificate.revoked': {
      const p = (e as DomainEvent<'certificate.revoked'>).payload;
      return {
        type: 'certificate.revoked',
        data: { certificate_id: p.certificate_id, code: p.code, revoked_at: p.revoked_at },
      };
    }
    case 'certificate.reissued': {
      const p = (e as DomainEvent<'certificate.reissued'>).payload;
      return {
        type: 'certificate.reissued',
        data: {
          certificate_id: p.certificate_id,
          code: p.code,
          replaced_certificate_id: p.replaced_certificate_id,
          replaced_code: p.replaced_code,
        },
      };
    }
    case 'program.completed': {
      const p = (e as DomainEvent<'program.completed'>).payload;
      return {
        type: 'program.completed',
        data: { user_id: p.user_id, path_id: p.path_id, completed_at: p.completed_at },
      };
    }
    case 'exam.submitted': {
      const p = (e as DomainEvent<'exam.submitted'>).payload;
      return {
        type: 'exam.graded',
        data: {
          session_id: p.session_id,
          exam_id: p.exam_id,
          user_id: p.user_id,
          score: p.score,
          passed: p.passed,
          flagged: p.flagged,
        },
      };
    }
    case 'exam.reviewed': {
      const p = (e as DomainEvent<'exam.reviewed'>).payload;
      return {
        type: 'exam.graded',
        data: {
          session_id: p.session_id,
          exam_id: p.exam_id,
          user_id: p.user_id,
          score: p.score,
          passed: p.passed,
          flagged: false,
        },
      };
    }
    case 'member.joined': {
      const p = (e as DomainEvent<'member.joined'>).payload;
      return { type: 'member.joined', data: { user_id: p.user_id, role: p.role } };
    }
    case 'member.left': {
      const p = (e as DomainEvent<'member.left'>).payload;
      return { type: 'member.left', data: { user_id: p.user_id } };
    }
    case 'member.suspended':
    case 'member.reactivated': {
      const p = (e as DomainEvent<'member.suspended'>).payload;
      return { type: e.name, data: { user_id: p.user_id } };
    }
    case 'member.role_changed': {
      const p = (e as DomainEvent<'member.role_changed'>).payload;
      return { type: 'member.role_changed', data: { user_id: p.user_id, from: p.from, to: p.to } };
    }
    default:
      throw new Error(`Event ${e.name} has no webhook`);
  }
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
