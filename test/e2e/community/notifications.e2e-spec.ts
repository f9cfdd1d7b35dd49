import { randomUUID } from 'node:crypto';
import { Global, Module } from '@nestjs/common';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import type { EventName, EventPayload } from '@/core/events/event-catalog';
import { unsubscribeToken } from '@/core/mail/unsubscribe-token';
import { EngagementDigest, type WeeklySummary } from '@/core/ports/engagement-digest';
import { NotificationJobs, NotificationSubscribers } from '@/modules/community/notifications/testing';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { backgroundIdle, waitUntil } from '../../support/wait';

type Row = Record<string, unknown> & { id: string };

const LIST = '/api/v1/notifications';
const PREFS = '/api/v1/me/notification-preferences';
const UNSUB = '/api/v1/notifications/unsubscribe';
const MINUTE = 60_000;

/** The engagement area's port, as the tests want it (the real one is the gamification area's). */
const digest = {
  streakDue: new Set<string>(),
  summaries: new Map<string, WeeklySummary>(),
  weeksAsked: [] as string[],
  async needingStreakReminder(userIds: readonly string[]): Promise<string[]> {
    return userIds.filter((id) => this.streakDue.has(id));
  },
  async weeklySummary(userId: string, week: string): Promise<WeeklySummary | null> {
    this.weeksAsked.push(week);
    return this.summaries.get(userId) ?? null;
  },
};

@Global()
@Module({ providers: [{ provide: EngagementDigest, useValue: digest }], exports: [EngagementDigest] })
class DigestTestModule {}

/**
 * Notifications (extensions-v2 13): the pipeline from domain events (idempotent per event and person), the inbox,
 * preferences and quiet hours, notification email with RFC 8058 one-click unsubscribe, scheduled categories.
 */
describe('notifications', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let owner: SignedIn;
  let ann: SignedIn; // student of A and B
  let bob: SignedIn; // student of A

  async function publish<N extends EventName>(name: N, payload: EventPayload<N>, org: string | null): Promise<string> {
    return t.app
      .get(TransactionRunner)
      .run((tx) => t.app.get(DomainEvents).publish(tx, name, payload, { organizationId: org, actorId: null }));
  }

  async function rowsOf(userId: string, source?: string): Promise<Row[]> {
    return t.db.query(
      `SELECT * FROM notifications WHERE user_id = $1 AND ($2::text IS NULL OR source_key = $2) ORDER BY created_at`,
      [userId, source ?? null],
    );
  }

  async function waitRow(userId: string, source: string): Promise<Row> {
    return waitUntil(async () => (await rowsOf(userId, source))[0], { what: `notification of ${source}` });
  }

  async function course(title: string, visibility: 'public' | 'restricted' = 'public'): Promise<string> {
    const [{ id }] = await t.db.query(
      `INSERT INTO courses (slug, title, language, level, status, visibility)
       VALUES ($1, $2, 'es', 'beginner', 'published', $3) RETURNING id`,
      [`c-${Math.random().toString(36).slice(2, 10)}`, title, visibility],
    );
    return id;
  }

  beforeAll(async () => {
    t = await createTestApp({
      imports: [DigestTestModule],
      overrides: [{ provide: EngagementDigest, useValue: digest }],
    });
    owner = await adult(t);
    ann = await adult(t);
    bob = await adult(t);
    orgA = await createOrganization(t, owner, 'Org A');
    orgB = await createOrganization(t, owner, 'Org B');
    await addMember(t, orgA, ann.user.id, 'student');
    await addMember(t, orgB, ann.user.id, 'student');
    await addMember(t, orgA, bob.user.id, 'student');
  });

  afterAll(async () => {
    await t?.close();
  });

  describe('pipeline and inbox', () => {
    it('course.completed becomes an in-app notification in the person’s language, and an email with RFC 8058 headers', async () => {
      const courseId = await course('Álgebra');
      const sent = t.mail.count();
      const eventId = await publish(
        'course.completed',
        { user_id: ann.user.id, course_id: courseId, completed_at: new Date().toISOString() },
        orgA,
      );
      const row = await waitRow(ann.user.id, eventId);
      expect(row).toMatchObject({
        category: 'course_complete',
        organization_id: orgA,
        title: 'Curso completado',
        body: 'Has completado «Álgebra». ¡Enhorabuena!',
        url: `http://web.test/courses/${courseId}`,
        data: { course_id: courseId },
        in_app: true,
        read_at: null,
      });
      const mail = await t.mail.waitForTo(ann.email, { after: sent });
      expect(mail.subject).toBe('Curso completado');
      const token = unsubscribeToken(t.app.get(CryptoService), ann.user.id, 'course_complete');
      expect(mail.headers['list-unsubscribe']).toBe(`<${t.baseUrl}${UNSUB}?token=${token}&type=course_complete>`);
      expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
      expect(mail.text).toContain(`${UNSUB}?token=${token}&type=course_complete`);
    });

    it('a redelivered event creates nothing twice (unique per source event and person)', async () => {
      const eventId = await publish(
        'badge.awarded',
        { user_id: bob.user.id, code: 'first_steps', kind: 'system' },
        orgA,
      );
      await waitRow(bob.user.id, eventId);
      const [stored] = await t.db.query(`SELECT * FROM domain_events WHERE id = $1`, [eventId]);
      const event = { ...stored, payload: stored.payload, occurred_at: new Date(stored.occurred_at) };
      await t.app
        .get(TransactionRunner)
        .run((tx) =>
          t.app
            .get(NotificationSubscribers)
            .badgeAwarded(event, { tx, attempt: 2, subscriber: 'notifications.badge_earned' }),
        );
      expect(await rowsOf(bob.user.id, eventId)).toHaveLength(1);
      const jobs = await t.db.query(`SELECT count(*)::int AS n FROM jobs WHERE dedupe_key LIKE $1`, [
        `%${(await rowsOf(bob.user.id, eventId))[0].id}%`,
      ]);
      expect(jobs[0].n).toBe(0); // badge_earned: email off by default, no push subscription
    });

    it('every category of 13.1 is produced by its event', async () => {
      const ids = {
        duel: '11111111-1111-4111-8111-111111111111',
        post: '22222222-2222-4222-8222-222222222222',
        session: '33333333-3333-4333-8333-333333333333',
        exam: '44444444-4444-4444-8444-444444444444',
        ticket: '55555555-5555-4555-8555-555555555555',
        report: '66666666-6666-4666-8666-666666666666',
      };
      const courseId = await course('Geometría');
      const e = {
        challenged: await publish(
          'duel.challenged',
          { duel_id: ids.duel, challenger_id: bob.user.id, opponent_id: ann.user.id },
          orgA,
        ),
        declined: await publish(
          'duel.answered',
          { duel_id: ids.duel, challenger_id: bob.user.id, opponent_id: ann.user.id, answer: 'declined' },
          orgA,
        ),
        comment: await publish(
          'comment.created',
          { comment_id: ids.ticket, post_id: ids.post, author_id: bob.user.id, post_author_id: ann.user.id },
          orgA,
        ),
        ownComment: await publish(
          'comment.created',
          { comment_id: ids.report, post_id: ids.post, author_id: ann.user.id, post_author_id: ann.user.id },
          orgA,
        ),
        removed: await publish(
          'moderation.decided',
          { item_type: 'post', item_id: ids.post, action: 'remove', author_id: ann.user.id, warn_author: false },
          orgA,
        ),
        approved: await publish(
          'moderation.decided',
          { item_type: 'post', item_id: ids.post, action: 'approve', author_id: ann.user.id, warn_author: false },
          orgA,
        ),
        reviewed: await publish(
          'exam.reviewed',
          {
            session_id: ids.session,
            exam_id: ids.exam,
            course_id: courseId,
            user_id: ann.user.id,
            decision: 'accept',
            allow_retake: false,
            score: 80,
            passed: true,
          },
          orgA,
        ),
        byLearner: await publish(
          'exam.submitted',
          {
            session_id: ids.session,
            exam_id: ids.exam,
            course_id: courseId,
            user_id: ann.user.id,
            score: 80,
            passed: true,
            flagged: false,
            submitted_by: 'learner',
          },
          orgA,
        ),
        deadline: await publish(
          'exam.submitted',
          {
            session_id: ids.session,
            exam_id: ids.exam,
            course_id: courseId,
            user_id: ann.user.id,
            score: 10,
            passed: false,
            flagged: false,
            submitted_by: 'deadline',
          },
          orgA,
        ),
        support: await publish('support.replied', { ticket_id: ids.ticket, user_id: ann.user.id }, null),
        report: await publish(
          'report.finished',
          { report_id: ids.report, status: 'failed', requested_by: ann.user.id },
          orgA,
        ),
      };
      const duel = await waitRow(ann.user.id, e.challenged);
      expect(duel).toMatchObject({ category: 'duels', title: 'Te han retado a un duelo', data: { duel_id: ids.duel } });
      expect(await waitRow(bob.user.id, e.declined)).toMatchObject({ category: 'duels', title: 'Reto rechazado' });
      expect(await waitRow(ann.user.id, e.comment)).toMatchObject({ category: 'social', data: { post_id: ids.post } });
      expect(await waitRow(ann.user.id, e.removed)).toMatchObject({ category: 'social', title: 'Contenido retirado' });
      expect(await waitRow(ann.user.id, e.reviewed)).toMatchObject({
        category: 'exams',
        body: 'Tu examen ha sido revisado: aprobado.',
      });
      expect(await waitRow(ann.user.id, e.deadline)).toMatchObject({
        category: 'exams',
        title: 'Examen cerrado',
        data: { session_id: ids.session },
      });
      expect(await waitRow(ann.user.id, e.support)).toMatchObject({
        category: 'support',
        organization_id: null,
        data: { ticket_id: ids.ticket },
      });
      expect(await waitRow(ann.user.id, e.report)).toMatchObject({
        category: 'reports',
        title: 'Informe fallido',
        url: `http://web.test/organizations/${orgA}/reports/${ids.report}`,
      });
      // Deliveries of the events that notify nobody are done, with nothing created.
      await waitUntil(async () => {
        const [{ pending }] = await t.db.query(
          `SELECT count(*)::int AS pending FROM domain_event_deliveries WHERE event_id = ANY($1) AND status <> 'done'`,
          [[e.ownComment, e.approved, e.byLearner]],
        );
        return pending === 0;
      });
      for (const source of [e.ownComment, e.approved, e.byLearner])
        expect(await rowsOf(ann.user.id, source)).toHaveLength(0);
    });

    it('lists most recent first with unread and category filters and paging; counts unread; marks read', async () => {
      // The events above notify more than the rows waited for (a first lesson's badge, for one): their deliveries
      // finish first, so no notification arrives between the counts below.
      await backgroundIdle(t, "the deliveries of ann's notifications");
      const all = (await ann.agent.get(LIST).query({ limit: 200 }).expect(200)).body;
      expect(all.total).toBeGreaterThanOrEqual(8);
      const times = all.items.map((n: { created_at: string }) => n.created_at);
      expect([...times].sort().reverse()).toEqual(times);
      const page = (await ann.agent.get(LIST).query({ limit: 2, offset: 1 }).expect(200)).body;
      expect(page).toMatchObject({ total: all.total, limit: 2, offset: 1 });
      expect(page.items.map((n: { id: string }) => n.id)).toEqual(
        all.items.slice(1, 3).map((n: { id: string }) => n.id),
      );
      expect(Object.keys(all.items[0]).sort()).toEqual(
        ['body', 'category', 'created_at', 'data', 'id', 'organization_id', 'read_at', 'title', 'url'].sort(),
      );

      const unread0 = (await ann.agent.get(`${LIST}/unread-count`).expect(200)).body.unread;
      expect(unread0).toBe(all.total);
      const target = all.items[0].id;
      await ann.agent.post(`${LIST}/${target}/read`).expect(204);
      await ann.agent.post(`${LIST}/${target}/read`).expect(204); // idempotent
      expect((await ann.agent.get(`${LIST}/unread-count`).expect(200)).body.unread).toBe(unread0 - 1);
      const unread = (await ann.agent.get(LIST).query({ unread: true, limit: 200 }).expect(200)).body;
      expect(unread.total).toBe(unread0 - 1);
      expect(unread.items.some((n: { id: string }) => n.id === target)).toBe(false);
      const read = (await ann.agent.get(LIST).query({ unread: false }).expect(200)).body;
      expect(read.items.map((n: { id: string }) => n.id)).toEqual([target]);
      expect(read.items[0].read_at).toMatch(/Z$/);

      const duels = (await ann.agent.get(LIST).query({ category: 'duels' }).expect(200)).body;
      expect(duels.items.every((n: { category: string }) => n.category === 'duels')).toBe(true);
      await ann.agent.get(LIST).query({ category: 'nope' }).expect(422);
      await ann.agent.get(LIST).query({ unread: 'maybe' }).expect(422);
      await ann.agent.get(LIST).query({ limit: 201 }).expect(422);
      await ann.agent.get(LIST).query({ limit: 0 }).expect(422);
    });

    it('another person’s notification is 404 to read and delete; a non-uuid id is 404', async () => {
      const mine = (await ann.agent.get(LIST).expect(200)).body.items[0].id;
      await bob.agent.post(`${LIST}/${mine}/read`).expect(404);
      await bob.agent.delete(`${LIST}/${mine}`).expect(404);
      await bob.agent.post(`${LIST}/not-a-uuid/read`).expect(404);
      const [row] = await t.db.query(`SELECT read_at FROM notifications WHERE id = $1`, [mine]);
      expect(row).toBeDefined();
    });

    it('read-all (optionally per category) answers how many changed; delete removes one (404 twice)', async () => {
      const before = (await ann.agent.get(`${LIST}/unread-count`).expect(200)).body.unread;
      const social = (await ann.agent.get(LIST).query({ category: 'social', unread: true }).expect(200)).body.total;
      expect(social).toBeGreaterThan(0);
      expect((await ann.agent.post(`${LIST}/read-all`).send({ category: 'social' }).expect(200)).body).toEqual({
        updated: social,
      });
      expect((await ann.agent.get(`${LIST}/unread-count`).expect(200)).body.unread).toBe(before - social);
      await ann.agent.post(`${LIST}/read-all`).send({ category: 'x' }).expect(422);
      expect((await ann.agent.post(`${LIST}/read-all`).send({}).expect(200)).body).toEqual({
        updated: before - social,
      });
      expect((await ann.agent.get(`${LIST}/unread-count`).expect(200)).body.unread).toBe(0);
      const id = (await ann.agent.get(LIST).expect(200)).body.items[0].id;
      await ann.agent.delete(`${LIST}/${id}`).expect(204);
      await ann.agent.delete(`${LIST}/${id}`).expect(404);
    });

    it('a bearer token sees its organization’s notifications and those of none, never another organization’s', async () => {
      const eB = await publish('badge.awarded', { user_id: ann.user.id, code: 'in_b', kind: 'system' }, orgB);
      const eA = await publish('badge.awarded', { user_id: ann.user.id, code: 'in_a', kind: 'system' }, orgA);
      const eNone = await publish('support.replied', { ticket_id: randomUUID(), user_id: ann.user.id }, null);
      const bRow = await waitRow(ann.user.id, eB);
      const aRow = await waitRow(ann.user.id, eA);
      const noneRow = await waitRow(ann.user.id, eNone);
      const tokenA = await personalToken(t, ann, orgA, 'write');
      const viaA = (await bearer(t, tokenA).get(LIST).query({ limit: 200 }).expect(200)).body.items;
      const orgs = new Set(viaA.map((n: { organization_id: string | null }) => n.organization_id));
      expect(orgs.has(orgB)).toBe(false);
      expect(orgs.has(null)).toBe(true);
      expect(viaA.some((n: { id: string }) => n.id === aRow.id)).toBe(true);
      expect(viaA.some((n: { id: string }) => n.id === noneRow.id)).toBe(true); // the support reply
      await bearer(t, tokenA).post(`${LIST}/${bRow.id}/read`).expect(404);
      await bearer(t, tokenA).delete(`${LIST}/${bRow.id}`).expect(404);
      const unreadA = (await bearer(t, tokenA).get(`${LIST}/unread-count`).expect(200)).body.unread;
      const unreadAll = (await ann.agent.get(`${LIST}/unread-count`).expect(200)).body.unread;
      expect(unreadAll).toBe(unreadA + 1);
      expect((await bearer(t, tokenA).post(`${LIST}/read-all`).send({}).expect(200)).body.updated).toBe(unreadA);
      expect((await ann.agent.get(`${LIST}/unread-count`).expect(200)).body.unread).toBe(1); // B's is untouched
      await bearer(t, tokenA).post(`${LIST}/${aRow.id}/read`).expect(204);
      const readOnly = await personalToken(t, ann, orgA, 'read');
      await bearer(t, readOnly).get(LIST).expect(200);
      await bearer(t, readOnly).post(`${LIST}/read-all`).send({}).expect(403);
      await t.http().get(LIST).expect(401);
    });
  });

  describe('preferences', () => {
    it('answers the defaults of 13.1 with the profile’s zone', async () => {
      const res = (await bob.agent.get(PREFS).expect(200)).body;
      expect(res).toEqual({
        categories: {
          course_complete: { in_app: true, push: true, email: true },
          badge_earned: { in_app: true, push: true, email: false },
          streak_reminder: { in_app: false, push: true, email: false },
          weekly_summary: { in_app: true, push: false, email: true },
          new_course: { in_app: true, push: false, email: false },
          duels: { in_app: true, push: true, email: null },
          social: { in_app: true, push: true, email: null },
          exams: { in_app: true, push: true, email: null },
          support: { in_app: true, push: true, email: null },
          reports: { in_app: true, push: false, email: null },
        },
        quiet_hours: { enabled: false, start: '22:00', end: '07:00' },
        time_zone: 'UTC',
      });
    });

    it('changes only the keys present; 422 for unknown categories, email on app-only ones, bad times, start == end', async () => {
      const res = (
        await bob.agent
          .patch(PREFS)
          .send({
            categories: { badge_earned: { email: true }, duels: { push: false } },
            quiet_hours: { enabled: true },
          })
          .expect(200)
      ).body;
      expect(res.categories.badge_earned).toEqual({ in_app: true, push: true, email: true });
      expect(res.categories.duels).toEqual({ in_app: true, push: false, email: null });
      expect(res.quiet_hours).toEqual({ enabled: true, start: '22:00', end: '07:00' });
      const again = (
        await bob.agent
          .patch(PREFS)
          .send({ categories: { badge_earned: { in_app: false } } })
          .expect(200)
      ).body;
      expect(again.categories.badge_earned).toEqual({ in_app: false, push: true, email: true });
      expect(again.quiet_hours.enabled).toBe(true);

      for (const body of [
        { categories: { nope: { email: true } } },
        { categories: { duels: { email: true } } },
        { categories: { duels: { sms: true } } },
        { categories: { duels: { push: 'yes' } } },
        { categories: { duels: true } },
        { quiet_hours: { start: '24:00' } },
        { quiet_hours: { end: '7:00' } },
        { quiet_hours: { start: '22:00', end: '22:00' } },
        { quiet_hours: { start: '07:00' } }, // equals the stored end
        { time_zone: 'Europe/Madrid' },
      ]) {
        await bob.agent.patch(PREFS).send(body).expect(422);
      }
      expect((await bob.agent.get(PREFS).expect(200)).body).toEqual(again);
      await bob.agent
        .patch(PREFS)
        .send({ categories: { badge_earned: { in_app: true, email: false } }, quiet_hours: { enabled: false } })
        .expect(200);
    });

    it('in_app off: no inbox item, but the email still goes', async () => {
      await bob.agent
        .patch(PREFS)
        .send({ categories: { course_complete: { in_app: false } } })
        .expect(200);
      const courseId = await course('Trigonometría');
      const sent = t.mail.count();
      const eventId = await publish(
        'course.completed',
        { user_id: bob.user.id, course_id: courseId, completed_at: new Date().toISOString() },
        orgA,
      );
      const row = await waitRow(bob.user.id, eventId);
      expect(row.in_app).toBe(false);
      await t.mail.waitForTo(bob.email, { after: sent });
      const list = (await bob.agent.get(LIST).query({ limit: 200 }).expect(200)).body.items;
      expect(list.some((n: { id: string }) => n.id === row.id)).toBe(false);
      await bob.agent.post(`${LIST}/${row.id}/read`).expect(404);
      await bob.agent
        .patch(PREFS)
        .send({ categories: { course_complete: { in_app: true } } })
        .expect(200);
    });
  });

  describe('quiet hours', () => {
    async function mailJob(notificationId: string): Promise<{ run_after: Date; status: string }> {
      return waitUntil(async () => {
        const rows = await t.db.query(`SELECT run_after, status FROM jobs WHERE dedupe_key = $1`, [
          `notification-mail:${notificationId}`,
        ]);
        return rows[0];
      });
    }

    it('delays the email to the window’s end in the person’s zone; the in-app item is immediate', async () => {
      const carol = await adult(t);
      await addMember(t, orgA, carol.user.id, 'student');
      await carol.agent.patch('/api/v1/me/profile').send({ time_zone: 'Asia/Tokyo' }).expect(200);
      // A window of one hour that contains now, in Tokyo.
      const now = new Date(t.clock.nowMs());
      const local = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Asia/Tokyo',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(now);
      const [h] = local.split(':').map(Number);
      const start = `${String(h).padStart(2, '0')}:00`;
      const end = `${String((h + 1) % 24).padStart(2, '0')}:00`;
      await carol.agent
        .patch(PREFS)
        .send({ quiet_hours: { enabled: true, start, end } })
        .expect(200);
      const courseId = await course('Cálculo');
      const eventId = await publish(
        'course.completed',
        { user_id: carol.user.id, course_id: courseId, completed_at: now.toISOString() },
        orgA,
      );
      const row = await waitRow(carol.user.id, eventId);
      // In the inbox at once, unread (other areas may add their own items for the same completion: XP, badges).
      const inbox = (await carol.agent.get(LIST).query({ unread: true }).expect(200)).body.items as { id: string }[];
      expect(inbox.map((n) => n.id)).toContain(row.id);
      const job = await mailJob(row.id);
      expect(job.status).toBe('pending');
      // Tokyo has no DST: the window ends at the next full hour (UTC+9 is a whole-hour offset).
      const expected = Math.ceil((now.getTime() + 1) / (60 * MINUTE)) * 60 * MINUTE;
      expect(Math.abs(new Date(job.run_after).getTime() - expected)).toBeLessThan(5_000);
    });

    it('across midnight and a DST change, with the Clock moved', async () => {
      const dana = await adult(t);
      await addMember(t, orgA, dana.user.id, 'student');
      await dana.agent.patch('/api/v1/me/profile').send({ time_zone: 'Europe/Madrid' }).expect(200);
      await dana.agent
        .patch(PREFS)
        .send({ quiet_hours: { enabled: true, start: '23:00', end: '02:30' } })
        .expect(200);
      // 2027-03-28 is the spring-forward night in Madrid (02:00 -> 03:00): 00:30 local (23:30 UTC on the 27th).
      const at = Date.parse('2027-03-27T23:30:00Z');
      const offset = at - t.clock.nowMs();
      t.clock.advance(offset);
      try {
        const courseId = await course('Estadística');
        const eventId = await publish(
          'course.completed',
          { user_id: dana.user.id, course_id: courseId, completed_at: new Date(at).toISOString() },
          orgA,
        );
        const row = await waitRow(dana.user.id, eventId);
        const job = await mailJob(row.id);
        // 02:30 does not exist that night: the first instant after the gap, 03:00 local = 01:00 UTC.
        expect(Math.abs(new Date(job.run_after).getTime() - Date.parse('2027-03-28T01:00:00Z'))).toBeLessThan(1_000);
      } finally {
        t.clock.advance(-offset);
      }
    });
  });

  describe('one-click unsubscribe (RFC 8058)', () => {
    const crypto = () => t.app.get(CryptoService);

    it('GET answers the confirmation page in the person’s language and changes nothing', async () => {
      await bob.agent.patch('/api/v1/me/profile').send({ locale: 'en' }).expect(200);
      const token = unsubscribeToken(crypto(), bob.user.id, 'course_complete');
      const res = await t.http().get(UNSUB).query({ token, type: 'course_complete' }).expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.text).toContain('<html lang="en">');
      expect(res.text).toContain('completed courses');
      expect(res.text).toContain(`action="${UNSUB}?token=${token}&amp;type=course_complete"`);
      const allToken = unsubscribeToken(crypto(), bob.user.id, 'all');
      expect(res.text).toContain(`action="${UNSUB}?token=${allToken}&amp;type=all"`);
      expect(res.text).toContain('href="http://web.test/settings/notifications"');
      expect((await bob.agent.get(PREFS).expect(200)).body.categories.course_complete.email).toBe(true);
    });

    it('an unverifiable token gets the page in the browser’s language; malformed token or type is 422', async () => {
      const bad = 'a'.repeat(64);
      const en = await t
        .http()
        .get(UNSUB)
        .query({ token: bad, type: 'new_course' })
        .set('Accept-Language', 'en-US,en;q=0.9')
        .expect(200);
      expect(en.text).toContain('<html lang="en">');
      const es = await t
        .http()
        .get(UNSUB)
        .query({ token: bad, type: 'new_course' })
        .set('Accept-Language', 'fr')
        .expect(200);
      expect(es.text).toContain('<html lang="es">');
      for (const query of [
        { token: 'A'.repeat(64), type: 'new_course' },
        { token: 'a'.repeat(63), type: 'new_course' },
        { token: bad, type: 'duels' },
        { token: bad },
        { type: 'all' },
      ]) {
        const r = await t.http().get(UNSUB).query(query).expect(422);
        expect(r.body.error.code).toBe('validation_error');
        await t.http().post(UNSUB).query(query).expect(422);
      }
    });

    it('POST with a verifying token turns that category’s email off, form-urlencoded or multipart', async () => {
      const token = unsubscribeToken(crypto(), bob.user.id, 'course_complete');
      const res = await t
        .http()
        .post(UNSUB)
        .query({ token, type: 'course_complete' })
        .type('form')
        .send('List-Unsubscribe=One-Click')
        .expect(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain('You will no longer receive emails about completed courses.');
      const prefs = (await bob.agent.get(PREFS).expect(200)).body.categories;
      expect(prefs.course_complete).toEqual({ in_app: true, push: true, email: false });
      expect(prefs.weekly_summary.email).toBe(true);
      // The token of one type does not unsubscribe another.
      await t
        .http()
        .post(UNSUB)
        .query({ token, type: 'weekly_summary' })
        .field('List-Unsubscribe', 'One-Click')
        .expect(200);
      expect((await bob.agent.get(PREFS).expect(200)).body.categories.weekly_summary.email).toBe(true);
      const weekly = unsubscribeToken(crypto(), bob.user.id, 'weekly_summary');
      await t
        .http()
        .post(UNSUB)
        .query({ token: weekly, type: 'weekly_summary' })
        .field('List-Unsubscribe', 'One-Click')
        .expect(200);
      expect((await bob.agent.get(PREFS).expect(200)).body.categories.weekly_summary.email).toBe(false);
      // No more course_complete email: the row is created, no mail job.
      const courseId = await course('Física');
      const eventId = await publish(
        'course.completed',
        { user_id: bob.user.id, course_id: courseId, completed_at: new Date().toISOString() },
        orgA,
      );
      const row = await waitRow(bob.user.id, eventId);
      const jobs = await t.db.query(`SELECT 1 FROM jobs WHERE dedupe_key = $1`, [`notification-mail:${row.id}`]);
      expect(jobs).toHaveLength(0);
    });

    it('type=all turns every email category off and withdraws the product-news consent', async () => {
      await t.db.query(
        `INSERT INTO consents (user_id, kind, terms_version, granted_at, granted) VALUES ($1, 'product_updates_email', 'v', now() - interval '1 minute', true)`,
        [ann.user.id],
      );
      const token = unsubscribeToken(crypto(), ann.user.id, 'all');
      await t.http().post(UNSUB).query({ token, type: 'all' }).expect(200);
      const prefs = (await ann.agent.get(PREFS).expect(200)).body.categories;
      for (const c of ['course_complete', 'badge_earned', 'streak_reminder', 'weekly_summary', 'new_course']) {
        expect(prefs[c].email).toBe(false);
      }
      const [latest] = await t.db.query(
        `SELECT granted FROM consents WHERE user_id = $1 AND kind = 'product_updates_email' ORDER BY granted_at DESC LIMIT 1`,
        [ann.user.id],
      );
      expect(latest.granted).toBe(false);
    });

    it('a token that does not verify gets the same page and changes nothing; 60 per minute per address', async () => {
      const carolPrefs = async () => (await bob.agent.get(PREFS).expect(200)).body;
      const before = await carolPrefs();
      const forged = bob.user.id.replace(/-/g, '') + '0'.repeat(32);
      const res = await t.http().post(UNSUB).query({ token: forged, type: 'badge_earned' }).expect(200);
      expect(res.text).toContain('<html lang="es">');
      expect(await carolPrefs()).toEqual(before);
      const client = t.client();
      for (let i = 0; i < 60; i++) await client.get(UNSUB).query({ token: forged, type: 'all' }).expect(200);
      const limited = await client.get(UNSUB).query({ token: forged, type: 'all' }).expect(429);
      expect(limited.headers['retry-after']).toBeDefined();
    });
  });

  describe('new_course fan-out', () => {
    it('reaches every member of the organizations that see the course, once each', async () => {
      // The owner wants new-course emails: the bulk path queues theirs (new_course is in-app only by default).
      await owner.agent
        .patch(PREFS)
        .send({ categories: { new_course: { email: true } } })
        .expect(200);
      const sent = t.mail.count();
      const restricted = await course('Química', 'restricted');
      await t.db.query(`INSERT INTO course_organizations (course_id, organization_id) VALUES ($1, $2)`, [
        restricted,
        orgB,
      ]);
      const eventId = await publish('course.published', { course_id: restricted, first_publication: true }, null);
      const row = await waitRow(ann.user.id, eventId); // member of B
      expect(row).toMatchObject({
        category: 'new_course',
        organization_id: null,
        title: 'Nuevo curso disponible',
        data: { course_id: restricted },
      });
      await waitUntil(async () => {
        const [{ n }] = await t.db.query(
          `SELECT count(*)::int AS n FROM jobs WHERE name = 'notifications.new_course_batch' AND status <> 'completed'`,
        );
        return n === 0;
      });
      expect(await rowsOf(bob.user.id, eventId)).toHaveLength(0); // A does not see it
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM notifications WHERE source_key = $1`, [eventId]);
      expect(n).toBe(2); // owner and ann
      const mail = await t.mail.waitForTo(owner.email, { after: sent });
      expect(mail.subject).toBe('Nuevo curso disponible');
      expect(mail.headers['list-unsubscribe']).toContain('type=new_course');
      expect(t.mail.messages.slice(sent).some((m) => m.to.includes(ann.email.toLowerCase()))).toBe(false);
    });

    it('skips erased accounts', async () => {
      const gone = await adult(t);
      await addMember(t, orgA, gone.user.id, 'student');
      await t.db.query(`UPDATE users SET erased_at = now() WHERE id = $1`, [gone.user.id]);
      const courseId = await course('Biología');
      const eventId = await publish('course.published', { course_id: courseId, first_publication: true }, null);
      await waitRow(bob.user.id, eventId);
      const completed = await publish(
        'course.completed',
        { user_id: gone.user.id, course_id: courseId, completed_at: new Date().toISOString() },
        orgA,
      );
      await waitUntil(async () => {
        const [{ pending }] = await t.db.query(
          `SELECT count(*)::int AS pending FROM domain_event_deliveries WHERE event_id = $1 AND status <> 'done'`,
          [completed],
        );
        return pending === 0;
      });
      expect(await rowsOf(gone.user.id)).toHaveLength(0);
    });
  });

  describe('retention', () => {
    it('notifications.prune removes notifications older than 180 days', async () => {
      const [old] = await t.db.query(
        `INSERT INTO notifications (user_id, category, title, body, url, source_key, created_at)
         VALUES ($1, 'support', 't', 'b', 'http://web.test/', 'old-one', now() - interval '181 days') RETURNING id`,
        [bob.user.id],
      );
      const [recent] = await t.db.query(
        `INSERT INTO notifications (user_id, category, title, body, url, source_key, created_at)
         VALUES ($1, 'support', 't', 'b', 'http://web.test/', 'recent-one', now() - interval '179 days') RETURNING id`,
        [bob.user.id],
      );
      await t.app.get(NotificationJobs).prune();
      expect(await t.db.query(`SELECT id FROM notifications WHERE id = ANY($1)`, [[old.id, recent.id]])).toEqual([
        { id: recent.id },
      ]);
    });
  });

  describe('scheduled categories', () => {
    it('streak reminders at 20:00 local to the people the engagement area names, once per local date', async () => {
      const erin = await adult(t);
      await erin.agent.patch('/api/v1/me/profile').send({ time_zone: 'America/New_York' }).expect(200);
      digest.streakDue.add(erin.user.id);
      // 20:05 in New York (UTC-5 in December).
      const at = new Date('2026-12-01T01:05:00Z');
      const jobs = t.app.get(NotificationJobs);
      await jobs.streakReminders({ scheduledAt: at, jobId: 'x' });
      const source = `streak_reminder:${erin.user.id}:2026-11-30`;
      const row = await waitRow(erin.user.id, source);
      expect(row).toMatchObject({ category: 'streak_reminder', in_app: false, title: 'No pierdas tu racha' });
      await jobs.streakReminders({ scheduledAt: new Date(at.getTime() + 5 * MINUTE), jobId: 'y' });
      await backgroundIdle(t, 'the second reminder run');
      expect(await rowsOf(erin.user.id)).toHaveLength(1);
      // At 20:20 local nobody is in the window.
      digest.streakDue.add(bob.user.id);
      await jobs.streakReminders({ scheduledAt: new Date('2026-12-01T20:20:00Z'), jobId: 'z' });
      await backgroundIdle(t, 'the reminder run at 20:20');
      expect((await rowsOf(bob.user.id)).filter((r) => r.category === 'streak_reminder')).toHaveLength(0);
    });

    it('weekly summaries on Monday 08:00 local for last week, in-app and by email', async () => {
      const fay = await adult(t);
      await fay.agent.patch('/api/v1/me/profile').send({ time_zone: 'Europe/Madrid', locale: 'en' }).expect(200);
      digest.summaries.set(fay.user.id, {
        user_id: fay.user.id,
        week: '2026-W48',
        streak_current: 4,
        organizations: [{ organization_id: orgA, xp: 120, lessons_completed: 3, reviews: 7, courses_in_progress: 2 }],
      });
      const sent = t.mail.count();
      // Monday 2026-11-30 08:05 in Madrid (UTC+1).
      await t.app.get(NotificationJobs).weeklySummaries({ scheduledAt: new Date('2026-11-30T07:05:00Z'), jobId: 'w' });
      const row = await waitRow(fay.user.id, `weekly_summary:${fay.user.id}:2026-W48`);
      expect(row).toMatchObject({ category: 'weekly_summary', in_app: true, title: 'Your weekly summary (2026-W48)' });
      expect(row.body).toContain('Org A: 120 XP, 3 lessons, 7 reviews, 2 courses in progress');
      const mail = await t.mail.waitForTo(fay.email, { after: sent });
      expect(mail.subject).toBe('Your weekly summary (2026-W48)');
      expect(mail.headers['list-unsubscribe']).toContain('type=weekly_summary');
      expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
      expect(digest.weeksAsked).toContain('2026-W48');
    });
  });
});
