import { defineJob } from '@/core/queue/job-definition';

export interface SendMailPayload {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Names the template, for logs (never the content). */
  template: string;
}

/** Sensitive: messages carry codes and links, so the stored payload is encrypted and erased once sent. */
export const SEND_MAIL = defineJob<SendMailPayload>({
  name: 'mail.send',
  queue: 'mail',
  attempts: 8,
  backoffMs: 5_000,
  sensitive: true,
});
