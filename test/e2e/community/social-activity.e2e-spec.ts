import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { EventDispatcher } from '@/core/events/event-dispatcher';
import type { EventName, EventPayload } from '@/core/events/event-catalog';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { UsersRepository } from '@/modules/identity/users/testing';
import { makeCourse } from '../../cross-tenant/learning.routes';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

interface Item {
  id: string;
  kind: string;
  author: { user_id: string | null; name: string | null; anonymous: boolean };
  activity: Record<string, unknown> | null;
  post: unknown;
}

describe('social: the activity feed from domain events, and persons', () => {
  let t: TestApp;
  let owner: SignedIn;
  let org: string;
  let orgB: string;
  let pub: SignedIn; // public profile, adult
  let priv: SignedIn; // private profile
  let reader: SignedIn; // another student
  let courseId: string;

  const api = (o = org): string => `/api/v1/organizations/${o}`;
  async function publish<N extends EventName>(
    name: N,
    payload: EventPayload<N>,
    organizationId = org,
    actorId: string | null = null,
  ): Promise<string> {
    const id = await t.app
      .get(TransactionRunner)
      .run((tx) => t.app.get(DomainEvents).publish(tx, name, payload, { organizationId, actorId }));
    await settle(id);
    return id;
  }
  /** Every delivery of the event done (the app's own dispatcher may hold one while the test drains). */
  async function settle(eventId: string): Promise<void> {
    await t.app.get(EventDispatcher).drain();
    await waitUntil(
      async () =>
        (
          await t.db.query(
            `SELECT count(*)::int AS n FROM domain_event_deliveries WHERE event_id = $1 AND status <> 'done'`,
            [eventId],
          )
        )[0].n === 0,
      { what: `deliveries of ${eventId}` },
    );
  }
  async function activity(s: SignedIn, o = org): Promise<{ items: Item[]; total: number }> {
    return (await s.agent.get(`${api(o)}/feed?kind=activity&limit=200`).expect(200)).body;
  }
  async function setPublic(s: SignedIn, value: boolean): Promise<void> {
    await s.agent.patch('/api/v1/me/profile').send({ public_profile: value }).expect(200);
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Activity');
    const bOwner = await adult(t);
    orgB = await createOrganization(t, bOwner, 'Activity B');
    pub = await adult(t);
    priv = await adult(t);
    reader = await adult(t);
    for (const s of [pub, priv, reader]) await addMember(t, org, s.user.id, 'student');
    await addMember(t, orgB, pub.user.id, 'student');
    await setPublic(pub, true);
    courseId = (await makeCourse(t, owner.user.id, { title: 'Feed Course' })).id;
  });
  afterAll(() => t.close());

  it('writes one item per fact for a public person, with the fields of 11.1, newest first', async () => {
    const u = pub.user.id;
    await publish('course.completed', { user_id: u, course_id: courseId, completed_at: new Date().toISOString() });
    t.clock.advance(1000);
    await publish('level.reached', { user_id: u, level: 5 });
    t.clock.advance(1000);
    await publish('streak.milestone', { user_id: u, days: 7 });
    t.clock.advance(1000);
    await publish('badge.awarded', { user_id: u, code: 'first_course', kind: 'system' });
    // Other areas react to these facts too (XP may publish level.reached): only the items of these events here.
    const feed = await activity(reader);
    const badge = feed.items.find((i) => i.kind === 'badge_earned' && i.activity?.badge_code === 'first_course');
    const streak = feed.items.find((i) => i.kind === 'streak_milestone' && i.activity?.streak_days === 7);
    const level = feed.items.find((i) => i.kind === 'level_reached' && i.activity?.level === 5);
    const course = feed.items.find((i) => i.kind === 'course_completed');
    // The badge's name comes from the gamification area's award when it has one, else it is the code.
    expect(badge?.activity).toEqual({
      badge_code: 'first_course',
      badge_name: expect.any(String),
      icon: expect.anything(),
    });
    expect(course?.activity).toEqual({ course_id: courseId, course_title: 'Feed Course' });
    const order = [badge, streak, level, course].map((i) => feed.items.indexOf(i!));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order.every((n) => n >= 0)).toBe(true);
    expect(feed.total).toBe(feed.items.length);
    for (const item of feed.items) {
      expect(item.post).toBeNull();
      expect(item.author).toMatchObject({ user_id: u, anonymous: false });
    }
    // Only in the organization of the fact.
    expect((await activity(pub, orgB)).total).toBe(0);
  });

  it('a redelivered event writes nothing more (one item per event)', async () => {
    const id = await publish('level.reached', { user_id: pub.user.id, level: 6 });
    const before = (await activity(reader)).total;
    await t.db.query(
      `UPDATE domain_event_deliveries SET status = 'pending', done_at = NULL, run_after = '2000-01-01' WHERE event_id = $1`,
      [id],
    );
    await settle(id);
    expect((await activity(reader)).total).toBe(before);
    const rows = await t.db.query(`SELECT count(*)::int AS n FROM feed_items WHERE source_event_id = $1`, [id]);
    expect(rows[0].n).toBe(1);
  });

  it('no item for a person whose profile is private or who is a minor', async () => {
    const before = (await activity(reader)).total;
    await publish('level.reached', { user_id: priv.user.id, level: 3 });
    const minor = await adult(t);
    await addMember(t, org, minor.user.id, 'student');
    await setPublic(minor, true);
    await t.app.get(UsersRepository).update(minor.user.id, { ageBracket: 'under_18' }, t.clock.now());
    await publish('level.reached', { user_id: minor.user.id, level: 3 });
    expect((await activity(reader)).total).toBe(before);
    expect(
      await t.db.query(`SELECT 1 FROM feed_items WHERE user_id = ANY($1)`, [[priv.user.id, minor.user.id]]),
    ).toEqual([]);
  });

  it('a person who turns public_profile off disappears at once (items and total), and reappears when on', async () => {
    const mine = (await activity(reader)).items.filter((i) => i.author.user_id === pub.user.id).length;
    expect(mine).toBeGreaterThan(0);
    const total = (await activity(reader)).total;
    await setPublic(pub, false);
    const hidden = await activity(reader);
    expect(hidden.total).toBe(total - mine);
    expect(hidden.items.some((i) => i.author.user_id === pub.user.id)).toBe(false);
    // Also for the person themself and for moderators: activity items show only while the profile is public.
    expect((await activity(owner)).total).toBe(total - mine);
    const all = await reader.agent.get(`${api()}/feed`).expect(200);
    expect(all.body.total).toBe(total - mine);
    // An item no longer shown cannot be reacted to.
    const itemId = (await t.db.query(`SELECT id FROM feed_items WHERE user_id = $1 LIMIT 1`, [pub.user.id]))[0].id;
    await reader.agent.put(`${api()}/feed/${itemId}/reactions/like`).expect(404);
    await setPublic(pub, true);
    expect((await activity(reader)).total).toBe(total);
    await reader.agent.put(`${api()}/feed/${itemId}/reactions/celebrate`).expect(200);
  });

  it('certificate.issued: type and title, never the code; program.completed: path and title', async () => {
    const [cert] = await t.db.query(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title)
       VALUES ('CERT-FEED-1', 'course', $1, $2, 'Pub', $3, 'Feed Course certificate') RETURNING id`,
      [org, pub.user.id, courseId],
    );
    await publish('certificate.issued', {
      certificate_id: cert.id,
      code: 'CERT-FEED-1',
      type: 'course',
      user_id: pub.user.id,
      course_id: courseId,
      path_id: null,
      issued_at: new Date().toISOString(),
    });
    const [path] = await t.db.query(
      `INSERT INTO learning_paths (slug, title, kind) VALUES ('feed-program', 'Feed Program', 'program') RETURNING id`,
    );
    t.clock.advance(1000);
    await publish('program.completed', {
      user_id: pub.user.id,
      path_id: path.id,
      completed_at: new Date().toISOString(),
    });
    const items = (await activity(reader)).items.filter((i) =>
      ['program_completed', 'certificate_issued'].includes(i.kind),
    );
    expect(items[0]).toMatchObject({
      kind: 'program_completed',
      activity: { path_id: path.id, path_title: 'Feed Program' },
    });
    expect(items[1]).toMatchObject({
      kind: 'certificate_issued',
      activity: { certificate_type: 'course', title: 'Feed Course certificate' },
    });
    expect(JSON.stringify(items[1])).not.toContain('CERT-FEED-1');
  });

  describe('persons (2.2) on posts', () => {
    it('a private author is anonymous to students, named to themself, to owners/admins and to their cohort’s teacher', async () => {
      const item = (await priv.agent.post(`${api()}/posts`).send({ body_md: 'from a private profile' }).expect(201))
        .body;
      const asStudent = await reader.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(asStudent.body.author).toEqual({
        user_id: null,
        username: null,
        name: null,
        avatar_svg_url: null,
        anonymous: true,
      });
      expect(JSON.stringify(asStudent.body)).not.toContain(priv.user.id);
      const asSelf = await priv.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(asSelf.body.author).toMatchObject({ user_id: priv.user.id, anonymous: false, name: 'Test Person' });
      const asOwner = await owner.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(asOwner.body.author.user_id).toBe(priv.user.id);
      const teacher = await adult(t);
      await addMember(t, org, teacher.user.id, 'teacher');
      const asOtherTeacher = await teacher.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(asOtherTeacher.body.author.anonymous).toBe(true);
      const cohorts = t.app.get(CohortsService);
      const cohort = (await cohorts.create(org, { name: 'Feed cohort' }, owner.user.id)).id;
      await cohorts.addMember(org, cohort, teacher.user.id, 'teacher');
      await cohorts.addMember(org, cohort, priv.user.id, 'student');
      const asTeacher = await teacher.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(asTeacher.body.author.user_id).toBe(priv.user.id);
      // A public author is named to everyone; comments follow the same rule.
      const c = (await priv.agent.post(`${api()}/posts/${item.id}/comments`).send({ body_md: 'me' }).expect(201)).body;
      const comments = await reader.agent.get(`${api()}/posts/${item.id}/comments`).expect(200);
      expect(comments.body.items[0]).toMatchObject({ id: c.id, author: { anonymous: true, user_id: null } });
      const pubPost = (await pub.agent.post(`${api()}/posts`).send({ body_md: 'public' }).expect(201)).body;
      const seen = await reader.agent.get(`${api()}/posts/${pubPost.id}`).expect(200);
      expect(seen.body.author).toMatchObject({ user_id: pub.user.id, anonymous: false });
    });
  });
});
