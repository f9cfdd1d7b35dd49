import { type MailKind } from '@/core/mail/mail.jobs';
import { MailSuppression } from '@/core/mail/mail.processor';
import { MailService } from '@/core/mail/mail.service';
import { defineMailTemplate } from '@/core/mail/mail-template';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const PROBE_MAIL = defineMailTemplate<{ n: number }>('probe.kinds', {
  es: ({ n }) => ({ subject: `Prueba ${n}`, heading: 'Prueba', paragraphs: [`Mensaje ${n}`] }),
  en: ({ n }) => ({ subject: `Probe ${n}`, heading: 'Probe', paragraphs: [`Message ${n}`] }),
});

/** Addresses suppressed per kind, and every question asked. */
const suppression = { list: new Map<string, MailKind[]>(), asked: [] as [string, MailKind][] };

class TestSuppression extends MailSuppression {
  isSuppressed(address: string, kind: MailKind): Promise<boolean> {
    suppression.asked.push([address, kind]);
    return Promise.resolve(suppression.list.get(address)?.includes(kind) ?? false);
  }
}

/**
 * Mail kinds (extensions-v2 2.7) through the real SMTP sink: headers reach the message, the reserved `.invalid`
 * domain of erased accounts is never mailed, and the suppression list is asked per kind before sending.
 */
describe('mail kinds, headers and suppression', () => {
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    // Stands in for the suppression list of the email-webhooks area (extensions-v2 22.3; its own suite tests it
    // through this same processor), to ask any kind for any address.
    t = await createTestApp({ overrides: [{ provide: MailSuppression, useValue: new TestSuppression() }] });
  });
  afterAll(() => t.close());

  async function send(
    to: string,
    options: { kind?: MailKind; category?: string; headers?: Record<string, string> } = {},
  ): Promise<{ id: string; n: number }> {
    const number = ++n;
    const id = await t.app
      .get(MailService)
      .send(PROBE_MAIL, { n: number }, { to, locale: 'en', organizationId: null, ...options });
    return { id, n: number };
  }

  async function jobDone(id: string): Promise<void> {
    await waitUntil(
      async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [id]))[0]?.status === 'completed',
      { what: `mail job ${id}` },
    );
  }

  it('a message with headers carries them (RFC 8058 one-click unsubscribe)', async () => {
    const to = t.nextEmail('headers');
    const unsubscribe = 'https://api.test/api/v1/notifications/unsubscribe?token=abc';
    await send(to, {
      kind: 'notification',
      category: 'streak_reminders',
      headers: {
        'List-Unsubscribe': `<${unsubscribe}>`,
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
    const mail = await t.mail.waitForTo(to);
    expect(mail.subject).toMatch(/^Probe \d+$/);
    expect(mail.headers['list-unsubscribe']).toBe(`<${unsubscribe}>`);
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(suppression.asked).toContainEqual([to, 'notification']);
  });

  it('a transactional message has no list headers, and kind defaults to transactional', async () => {
    const to = t.nextEmail('plain');
    suppression.asked.length = 0;
    await send(to);
    const mail = await t.mail.waitForTo(to);
    expect(mail.headers).not.toHaveProperty('list-unsubscribe');
    expect(suppression.asked).toEqual([[to, 'transactional']]);
  });

  it('never sends to the reserved .invalid domain (any case, trailing dot); the job completes; nobody is asked', async () => {
    suppression.asked.length = 0;
    const before = t.mail.count();
    const erased = ['erased-1@erased.invalid', 'Erased-2@ERASED.Invalid', 'x@invalid', 'erased-3@a.b.invalid.'];
    for (const to of erased) {
      const { id } = await send(to, { kind: 'transactional' });
      await jobDone(id);
    }
    // A message queued after them arrives: the queue ran, and only it was delivered.
    const control = t.nextEmail('control');
    const { id } = await send(control);
    await jobDone(id);
    await t.mail.waitForTo(control);
    const delivered = t.mail.messages.slice(before);
    expect(delivered.flatMap((m) => m.envelopeTo)).toEqual([control.toLowerCase()]);
    expect(suppression.asked).toEqual([[control, 'transactional']]);
  });

  it('asks the suppression list per kind: a suppressed kind is skipped, the others still go', async () => {
    const to = t.nextEmail('suppressed');
    suppression.list.set(to, ['notification', 'announcement']);
    const before = t.mail.count();
    const notification = await send(to, { kind: 'notification', category: 'weekly_summary' });
    const announcement = await send(to, { kind: 'announcement' });
    await jobDone(notification.id);
    await jobDone(announcement.id);
    const transactional = await send(to, { kind: 'transactional' });
    const mail = await t.mail.waitForTo(to, { after: before });
    expect(mail.subject).toBe(`Probe ${transactional.n}`);
    await jobDone(transactional.id);
    expect(t.mail.messages.slice(before).filter((m) => m.to.includes(to.toLowerCase()))).toHaveLength(1);
    expect(suppression.asked).toEqual(
      expect.arrayContaining([
        [to, 'notification'],
        [to, 'announcement'],
        [to, 'transactional'],
      ]),
    );
  });

  it('a suppressed message is erased from the outbox like a sent one (its payload is sensitive)', async () => {
    const to = t.nextEmail('erased-payload');
    suppression.list.set(to, ['notification']);
    const { id } = await send(to, { kind: 'notification' });
    await jobDone(id);
    const [row] = await t.db.query(`SELECT payload FROM jobs WHERE id = $1`, [id]);
    expect(row.payload).toBeNull();
  });
});
