import { TypeOrmModule } from '@nestjs/typeorm';
import { UserEntity } from '@/modules/identity/users/testing';
import {
  NotificationPipeline,
  NotificationsRealtime,
  NotificationsRepository,
  FcmProvider,
  NativePushProvider,
  WebPushSender,
} from '@/modules/community/notifications/testing';
import { NotificationsService } from '@/modules/community/notifications';
import { PEOPLE } from '../../support/integration-neighbours';
import { clockAt, createIntegration, type Integration, insertUser } from '../../support/integration';

/**
 * Quiet hours (extensions-v2 13.2) through the notification pipeline on the real database: the notification email
 * is queued in the outbox to go out at the end of the person's quiet hours, in their zone, or at once outside them.
 */
describe('Notification quiet hours (integration)', () => {
  let it_: Integration;
  let pipeline: NotificationPipeline;
  let service: NotificationsService;
  let n = 0;

  beforeAll(async () => {
    it_ = await createIntegration({
      imports: [TypeOrmModule.forFeature([UserEntity])],
      providers: [
        ...PEOPLE,
        NotificationsRepository,
        NotificationsService,
        NotificationsRealtime,
        NotificationPipeline,
        WebPushSender,
        { provide: NativePushProvider, useClass: FcmProvider },
      ],
    });
    pipeline = it_.get(NotificationPipeline);
    service = it_.get(NotificationsService);
  });

  afterAll(async () => {
    await it_?.close();
  });

  /** Notifies a course completion (an email category) now and answers when its email is due to go out. */
  async function mailDueAt(userId: string): Promise<Date> {
    const row = await it_.tx((tx) =>
      pipeline.notify(
        {
          userId,
          organizationId: null,
          category: 'course_complete',
          sourceKey: `test:${++n}`,
          path: '/courses/x',
          data: {},
          content: { category: 'course_complete', course_title: 'Algebra' },
        },
        tx,
      ),
    );
    expect(row).not.toBeNull();
    const [job] = await it_.db.query<{ run_after: Date }[]>(`SELECT run_after FROM jobs WHERE dedupe_key = $1`, [
      `notification-mail:${row!.id}`,
    ]);
    return job.run_after;
  }

  async function person(timeZone: string, quiet?: { start: string; end: string }): Promise<string> {
    const { id } = await insertUser(it_.db, { timeZone });
    if (quiet) await service.updatePreferences(id, { quiet_hours: { enabled: true, ...quiet } });
    return id;
  }

  it('inside a window across midnight the email waits for its end, next morning in the person’s zone', async () => {
    const id = await person('Europe/Madrid', { start: '22:00', end: '07:00' });
    // 22:30Z is 23:30 in Madrid (UTC+1): the window ends at 07:00 Madrid, 06:00Z.
    clockAt(it_.clock, '2026-11-29T22:30:00Z');
    expect((await mailDueAt(id)).toISOString()).toBe('2026-11-30T06:00:00.000Z');
    // 04:00Z is 05:00 in Madrid, the same night's window: also 06:00Z.
    clockAt(it_.clock, '2026-11-30T04:00:00Z');
    expect((await mailDueAt(id)).toISOString()).toBe('2026-11-30T06:00:00.000Z');
  });

  it('outside the window, or with quiet hours off, the email goes at once', async () => {
    const quiet = await person('Europe/Madrid', { start: '22:00', end: '07:00' });
    const off = await person('Europe/Madrid');
    clockAt(it_.clock, '2026-11-29T12:00:00Z');
    const before = it_.clock.nowMs();
    for (const id of [quiet, off]) {
      const due = (await mailDueAt(id)).getTime();
      expect(due).toBeGreaterThanOrEqual(before);
      expect(due).toBeLessThanOrEqual(it_.clock.nowMs());
    }
    // 22:30Z is inside Madrid's window, but not for someone whose evening is in New York (17:30 there).
    const ny = await person('America/New_York', { start: '22:00', end: '07:00' });
    clockAt(it_.clock, '2026-11-29T22:30:00Z');
    const start = it_.clock.nowMs();
    expect((await mailDueAt(ny)).getTime()).toBeLessThanOrEqual(it_.clock.nowMs());
    expect((await mailDueAt(ny)).getTime()).toBeGreaterThanOrEqual(start);
  });

  it('a same-day window (13:00-15:00 in Tokyo) holds the email until 15:00 local', async () => {
    const id = await person('Asia/Tokyo', { start: '13:00', end: '15:00' });
    // 05:00Z is 14:00 in Tokyo (UTC+9): due at 15:00 Tokyo, 06:00Z.
    clockAt(it_.clock, '2026-11-29T05:00:00Z');
    expect((await mailDueAt(id)).toISOString()).toBe('2026-11-29T06:00:00.000Z');
  });

  it('a window ending in a spring-forward gap ends at the first instant after the gap', async () => {
    // New York skips 02:00-03:00 on 2027-03-14; a window until 02:30 ends at 03:00 EDT, 07:00Z.
    const id = await person('America/New_York', { start: '22:00', end: '02:30' });
    clockAt(it_.clock, '2027-03-14T05:00:00Z'); // 00:00 EST
    expect((await mailDueAt(id)).toISOString()).toBe('2027-03-14T07:00:00.000Z');
  });
});
