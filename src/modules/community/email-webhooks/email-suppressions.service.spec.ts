import type { MailKind } from '@/core/mail/mail.jobs';
import type { SuppressionReason } from './email-events';
import { stops } from './email-suppressions.service';

describe('what a suppression stops (extensions-v2 22.3)', () => {
  const kinds: MailKind[] = ['transactional', 'notification', 'announcement'];
  const table: Record<SuppressionReason, MailKind[]> = {
    hard_bounce: ['transactional', 'notification', 'announcement'],
    manual: ['transactional', 'notification', 'announcement'],
    complaint: ['notification', 'announcement'],
  };

  it.each(Object.entries(table))('%s stops %p', (reason, stopped) => {
    expect(kinds.filter((kind) => stops(reason as SuppressionReason, kind))).toEqual(stopped);
  });
});
