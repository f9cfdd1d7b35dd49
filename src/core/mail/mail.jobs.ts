import { defineJob } from '@/core/queue/job-definition';

/**
 * What a message is (extensions-v2 2.7): `transactional` (codes, invitations, security notices, report or export
 * ready, guardian consent, erasure notices, support replies...), `notification` (the five email categories of the
 * notification preferences) or `announcement`. The suppression list treats them differently (22.3).
 */
export type MailKind = 'transactional' | 'notification' | 'announcement';

export interface SendMailPayload {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Names the template, for logs (never the content). */
  template: string;
  /** Absent on messages queued before kinds existed: they were all transactional. */
  kind?: MailKind;
  /** The notification category of a `notification` email. */
  category?: string | null;
  /** Extra headers (List-Unsubscribe and List-Unsubscribe-Post of RFC 8058 on notification and announcement mail). */
  headers?: Record<string, string>;
}

/** Sensitive: messages carry codes and links, so the stored payload is encrypted and erased once sent. */
export const SEND_MAIL = defineJob<SendMailPayload>({
  name: 'mail.send',
  queue: 'mail',
  attempts: 8,
  backoffMs: 5_000,
  sensitive: true,
});
