import { randomBytes } from 'node:crypto';
import type { EventName } from '@/core/events/event-catalog';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { makeCourse, type MadeCourse, ONE_QUESTION_QUIZ } from '../../cross-tenant/learning.routes';
import { signIn, type SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

interface EventRow {
  id: string;
  name: string;
  version: number;
  organization_id: string | null;
  actor_id: string | null;
  occurred_at: Date;
  payload: Record<string, unknown>;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Every wave-1 fact publishes its domain event once, in its own transaction, with the catalog's payload and the
 * envelope's organization and actor; idempotent repeats and refused requests publish nothing.
 */
describe('domain events published by the wave-1 areas', () => {
  let t: TestApp;
  let author: SignedIn;
  let owner: SignedIn;
  let org: string;

  /** The events of this name whose payload contains `match`, oldest first. */
  async function published(name: EventName, match: Record<string, unknown>): Promise<EventRow[]> {
    return t.db.query(
      `SELECT id, name, version, organization_id, actor_id, occurred_at, payload FROM domain_events
       WHERE name = $1 AND payload @> $2::jsonb ORDER BY created_at, id`,
      [name, JSON.stringify(match)],
    );
  }

  /** Exactly one such event; returns it. */
  async function one(name: EventName, match: Record<string, unknown>): Promise<EventRow> {
    const rows = await published(name, match);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ name, version: 1 });
    return rows[0];
  }

  async function member(role: 'admin' | 'teacher' | 'student', orgId = org): Promise<SignedIn> {
    const s = await adult(t);
    await addMember(t, orgId, s.user.id, role);
    return s;
  }

  const courses = (orgId = org): string => `/api/v1/organizations/${orgId}/courses`;
  const lessonPath = (c: MadeCourse, i: number, orgId = org): string =>
    `${courses(orgId)}/${c.id}/lessons/${c.lessons[i].id}`;
  const rightAnswer = (c: MadeCourse, i: number) => {
    const q = c.lessons[i].quiz!.questions[0];
    return [{ question_id: q.id, option_ids: [q.options.find((o) => o.correct)!.id] }];
  };
  const wrongAnswer = (c: MadeCourse, i: number) => {
    const q = c.lessons[i].quiz!.questions[0];
    return [{ question_id: q.id, option_ids: [q.options.find((o) => !o.correct)!.id] }];
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'editor@platform.test' } });
    author = await signIn(t, 'editor@platform.test');
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Events Org');
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  describe('organizations (membership)', () => {
    it('creating an organization: member.joined for its owner, actor the owner', async () => {
      const founder = await adult(t);
      const orgId = await createOrganization(t, founder, 'Founded');
      const event = await one('member.joined', { user_id: founder.user.id });
      expect(event).toMatchObject({
        organization_id: orgId,
        actor_id: founder.user.id,
        payload: { user_id: founder.user.id, role: 'owner' },
      });
      expect(Object.keys(event.payload).sort()).toEqual(['role', 'user_id']);
    });

    it('a role change: member.role_changed with from and to, actor the admin; no change, no event; refused, none', async () => {
      const admin = await member('admin');
      const person = await member('student');
      const url = `/api/v1/organizations/${org}/members/${person.user.id}`;
      await admin.agent.patch(url).send({ role: 'teacher' }).expect(200);
      const event = await one('member.role_changed', { user_id: person.user.id });
      expect(event).toMatchObject({
        organization_id: org,
        actor_id: admin.user.id,
        payload: { user_id: person.user.id, from: 'student', to: 'teacher' },
      });
      await admin.agent.patch(url).send({ role: 'teacher' }).expect(200);
      // An admin may not make someone an owner: refused, nothing published.
      await admin.agent.patch(url).send({ role: 'owner' }).expect(403);
      expect(await published('member.role_changed', { user_id: person.user.id })).toHaveLength(1);
      // The last owner cannot step down: 409, nothing published.
      const res = await owner.agent
        .patch(`/api/v1/organizations/${org}/members/${owner.user.id}`)
        .send({ role: 'admin' })
        .expect(409);
      expect(res.body.error.code).toBe('last_owner');
      expect(await published('member.role_changed', { user_id: owner.user.id })).toHaveLength(0);
    });

    it('removal and leaving: member.left, actor the remover or the leaver; a refused removal publishes nothing', async () => {
      const admin = await member('admin');
      const removed = await member('student');
      const leaver = await member('teacher');
      await admin.agent.delete(`/api/v1/organizations/${org}/members/${owner.user.id}`).expect(403);
      expect(await published('member.left', { user_id: owner.user.id })).toHaveLength(0);
      await admin.agent.delete(`/api/v1/organizations/${org}/members/${removed.user.id}`).expect(204);
      await leaver.agent.delete(`/api/v1/organizations/${org}/members/${leaver.user.id}`).expect(204);
      expect(await one('member.left', { user_id: removed.user.id })).toMatchObject({
        organization_id: org,
        actor_id: admin.user.id,
        payload: { user_id: removed.user.id },
      });
      expect(await one('member.left', { user_id: leaver.user.id })).toMatchObject({
        organization_id: org,
        actor_id: leaver.user.id,
      });
      // Removing someone who is no longer a member: 404, nothing more.
      await admin.agent.delete(`/api/v1/organizations/${org}/members/${removed.user.id}`).expect(404);
      expect(await published('member.left', { user_id: removed.user.id })).toHaveLength(1);
    });

    it('a direct addition publishes member.joined once; adding an existing member publishes nothing', async () => {
      const s = await adult(t);
      const orgs = t.app.get(OrganizationsService);
      expect(await orgs.addMember(org, s.user.id, 'student', owner.user.id)).toBe(true);
      expect(await orgs.addMember(org, s.user.id, 'teacher', owner.user.id)).toBe(false);
      expect(await one('member.joined', { user_id: s.user.id })).toMatchObject({
        organization_id: org,
        actor_id: owner.user.id,
        payload: { role: 'student' },
      });
    });

    it('a full organization refuses the member (409) and publishes nothing', async () => {
      const owner2 = await adult(t);
      const small = await createOrganization(t, owner2, 'Small');
      await t.db.query(`UPDATE organizations SET member_limit = 1 WHERE id = $1`, [small]);
      const s = await adult(t);
      await expect(t.app.get(OrganizationsService).addMember(small, s.user.id, 'student', null)).rejects.toMatchObject({
        code: 'member_limit_reached',
      });
      expect(await published('member.joined', { user_id: s.user.id })).toHaveLength(0);
    });
  });

  describe('invitations', () => {
    it('acceptance: invitation.accepted and member.joined, actor the invitee; accepting again publishes nothing', async () => {
      const email = t.nextEmail('invitee');
      const sent = await owner.agent
        .post(`/api/v1/organizations/${org}/members/invite`)
        .send({ email, role: 'teacher' })
        .expect(201);
      const invitee = await signIn(t, email);
      await invitee.agent.post('/api/v1/invitations/accept').send({ invitation_id: sent.body.id }).expect(200);
      expect(await one('invitation.accepted', { invitation_id: sent.body.id })).toMatchObject({
        organization_id: org,
        actor_id: invitee.user.id,
        payload: { invitation_id: sent.body.id, user_id: invitee.user.id, role: 'teacher' },
      });
      expect(await one('member.joined', { user_id: invitee.user.id })).toMatchObject({
        organization_id: org,
        actor_id: invitee.user.id,
        payload: { role: 'teacher' },
      });
      // The repeat answers the membership (200) and is no new fact.
      await invitee.agent.post('/api/v1/invitations/accept').send({ invitation_id: sent.body.id }).expect(200);
      expect(await published('invitation.accepted', { invitation_id: sent.body.id })).toHaveLength(1);
      expect(await published('member.joined', { user_id: invitee.user.id })).toHaveLength(1);
    });

    it('an existing member accepting: invitation.accepted with the role kept, and no member.joined', async () => {
      const already = await member('student');
      const sent = await owner.agent
        .post(`/api/v1/organizations/${org}/members/invite`)
        .send({ email: already.email, role: 'admin' });
      // Inviting a member is refused up front (409 already_member); make the invitation as if sent before joining.
      expect(sent.status).toBe(409);
      const other = await adult(t);
      const orgId = await createOrganization(t, other, 'Invites');
      const invite = await other.agent
        .post(`/api/v1/organizations/${orgId}/members/invite`)
        .send({ email: already.email, role: 'admin' })
        .expect(201);
      await addMember(t, orgId, already.user.id, 'student');
      await already.agent.post('/api/v1/invitations/accept').send({ invitation_id: invite.body.id }).expect(200);
      expect(await one('invitation.accepted', { invitation_id: invite.body.id })).toMatchObject({
        organization_id: orgId,
        payload: { role: 'student' },
      });
      expect((await published('member.joined', { user_id: already.user.id })).map((e) => e.organization_id)).toEqual([
        org,
        orgId,
      ]);
    });

    it('a revoked invitation cannot be accepted and publishes nothing', async () => {
      const email = t.nextEmail('revoked');
      const sent = await owner.agent
        .post(`/api/v1/organizations/${org}/members/invite`)
        .send({ email, role: 'student' })
        .expect(201);
      await owner.agent.delete(`/api/v1/organizations/${org}/invitations/${sent.body.id}`).expect(204);
      const invitee = await signIn(t, email);
      await invitee.agent.post('/api/v1/invitations/accept').send({ invitation_id: sent.body.id }).expect(404);
      expect(await published('invitation.accepted', { invitation_id: sent.body.id })).toHaveLength(0);
      expect(await published('member.joined', { user_id: invitee.user.id })).toHaveLength(0);
    });
  });

  describe('member import', () => {
    it('an added row publishes member.joined (actor the importing admin); skipped and invited rows do not', async () => {
      const existing = await signIn(t);
      const already = await member('student');
      const fresh = t.nextEmail('imported');
      const csv = `email,name,role,cohort\n${existing.email},,teacher,\n${already.email},,,\n${fresh},,,\n`;
      const res = await owner.agent
        .post(`/api/v1/organizations/${org}/members/import`)
        .attach('file', Buffer.from(csv, 'utf8'), { filename: 'members.csv', contentType: 'text/csv' })
        .expect(202);
      await waitUntil(
        async () =>
          (await owner.agent.get(`/api/v1/organizations/${org}/members/import/${res.body.id}`)).body.status ===
          'completed',
        { what: 'the import', timeoutMs: 60_000 },
      );
      expect(await one('member.joined', { user_id: existing.user.id })).toMatchObject({
        organization_id: org,
        actor_id: owner.user.id,
        payload: { role: 'teacher' },
      });
      expect(await published('member.joined', { user_id: already.user.id })).toHaveLength(1); // its own joining
    });
  });

  describe('progress', () => {
    let course: MadeCourse;
    beforeAll(async () => {
      course = await makeCourse(t, author.user.id, {
        title: `Events course ${randomBytes(3).toString('hex')}`,
        issues_certificate: true,
        lessons: [{ title: 'Read' }, { title: 'Quiz', quiz: ONE_QUESTION_QUIZ }],
      });
    });

    it('enrollment.created once, with the enrollment time; the repeat (200) publishes nothing', async () => {
      const s = await member('student');
      const res = await s.agent.post(`${courses()}/${course.id}/enroll`).expect(201);
      await s.agent.post(`${courses()}/${course.slug}/enroll`).expect(200);
      const event = await one('enrollment.created', { user_id: s.user.id });
      expect(event).toMatchObject({
        organization_id: org,
        actor_id: s.user.id,
        payload: { user_id: s.user.id, course_id: course.id, enrolled_at: res.body.enrolled_at },
      });
      expect(event.occurred_at.toISOString()).toBe(res.body.enrolled_at);
      expect(event.payload.enrolled_at).toMatch(ISO);
    });

    it('quiz.submitted for every submission; first_pass only on the first passed one; a bad answer publishes nothing', async () => {
      const s = await member('student');
      await s.agent.post(`${courses()}/${course.id}/enroll`).expect(201);
      const submit = (answers: object[]) => s.agent.post(`${lessonPath(course, 1)}/quiz/submissions`).send({ answers });
      await submit(wrongAnswer(course, 1)).expect(201);
      await submit(rightAnswer(course, 1)).expect(201);
      await submit(rightAnswer(course, 1)).expect(201);
      await submit([{ question_id: randomBytes(16).toString('hex'), option_ids: [] }]).expect(422);
      const events = await published('quiz.submitted', { user_id: s.user.id });
      expect(events.map((e) => [e.payload.score, e.payload.passed, e.payload.first_pass])).toEqual([
        [0, false, false],
        [100, true, true],
        [100, true, false],
      ]);
      const submissions = await t.db.query<{ id: string }[]>(
        `SELECT id FROM quiz_submissions WHERE user_id = $1 ORDER BY submitted_at, id`,
        [s.user.id],
      );
      expect(new Set(events.map((e) => e.payload.submission_id))).toEqual(new Set(submissions.map((r) => r.id)));
      expect(events[1]).toMatchObject({
        organization_id: org,
        actor_id: s.user.id,
        payload: {
          user_id: s.user.id,
          course_id: course.id,
          lesson_id: course.lessons[1].id,
          quiz_id: course.lessons[1].quiz!.id,
        },
      });
    });

    it('lesson.completed on first completions; course.completed and certificate.issued when the last lesson completes; repeats publish nothing', async () => {
      const s = await member('student');
      await s.agent.post(`${courses()}/${course.id}/enroll`).expect(201);
      await s.agent.post(`${lessonPath(course, 0)}/complete`).expect(200);
      await s.agent.post(`${lessonPath(course, 0)}/complete`).expect(200);
      // The quiz lesson before its quiz is passed: 409, nothing published.
      expect((await s.agent.post(`${lessonPath(course, 1)}/complete`).expect(409)).body.error.code).toBe(
        'quiz_not_passed',
      );
      expect(await published('lesson.completed', { user_id: s.user.id, lesson_id: course.lessons[1].id })).toEqual([]);
      expect(await published('course.completed', { user_id: s.user.id })).toEqual([]);
      await s.agent
        .post(`${lessonPath(course, 1)}/quiz/submissions`)
        .send({ answers: rightAnswer(course, 1) })
        .expect(201);
      const done = await s.agent.post(`${lessonPath(course, 1)}/complete`).expect(200);
      await s.agent.post(`${lessonPath(course, 1)}/complete`).expect(200);

      const lessons = await published('lesson.completed', { user_id: s.user.id });
      expect(lessons.map((e) => e.payload)).toEqual([
        { user_id: s.user.id, course_id: course.id, lesson_id: course.lessons[0].id },
        { user_id: s.user.id, course_id: course.id, lesson_id: course.lessons[1].id },
      ]);
      expect(lessons.every((e) => e.organization_id === org && e.actor_id === s.user.id)).toBe(true);
      expect(await one('course.completed', { user_id: s.user.id })).toMatchObject({
        organization_id: org,
        actor_id: s.user.id,
        payload: { user_id: s.user.id, course_id: course.id, completed_at: done.body.completed_at },
      });
      const [cert] = await t.db.query(
        `SELECT id, code, issued_at FROM issued_certificates WHERE user_id = $1 AND course_id = $2`,
        [s.user.id, course.id],
      );
      expect(await one('certificate.issued', { user_id: s.user.id })).toMatchObject({
        organization_id: org,
        actor_id: s.user.id,
        payload: {
          certificate_id: cert.id,
          code: cert.code,
          type: 'course',
          user_id: s.user.id,
          course_id: course.id,
          path_id: null,
          issued_at: cert.issued_at.toISOString(),
        },
      });
    });
  });

  describe('certificates', () => {
    async function certified(): Promise<{ holder: SignedIn; id: string; code: string }> {
      const c = await makeCourse(t, author.user.id, { title: 'Certified', issues_certificate: true });
      const holder = await member('student');
      await holder.agent.post(`${courses()}/${c.id}/enroll`).expect(201);
      await holder.agent.post(`${lessonPath(c, 0)}/complete`).expect(200);
      const [row] = await t.db.query(`SELECT id, code FROM issued_certificates WHERE user_id = $1`, [holder.user.id]);
      return { holder, id: row.id, code: row.code };
    }
    const certs = `/api/v1/organizations/`;

    it('revocation: certificate.revoked (actor the admin); a second revocation (409) publishes nothing', async () => {
      const { holder, id, code } = await certified();
      const res = await owner.agent
        .post(`${certs}${org}/issued-certificates/${id}/revoke`)
        .send({ reason: 'fraud' })
        .expect(200);
      await owner.agent.post(`${certs}${org}/issued-certificates/${id}/revoke`).send({ reason: 'again' }).expect(409);
      expect(await one('certificate.revoked', { certificate_id: id })).toMatchObject({
        organization_id: org,
        actor_id: owner.user.id,
        payload: { certificate_id: id, code, user_id: holder.user.id, revoked_at: res.body.revoked_at },
      });
    });

    it('reissue: certificate.reissued and certificate.issued for the replacement; a second reissue (409) publishes nothing', async () => {
      const { holder, id, code } = await certified();
      const res = await owner.agent
        .post(`${certs}${org}/issued-certificates/${id}/reissue`)
        .send({ name: 'Corrected Name', reason: 'typo' })
        .expect(201);
      await owner.agent
        .post(`${certs}${org}/issued-certificates/${id}/reissue`)
        .send({ name: 'Again', reason: 'typo' })
        .expect(409);
      expect(await one('certificate.reissued', { replaced_certificate_id: id })).toMatchObject({
        organization_id: org,
        actor_id: owner.user.id,
        payload: {
          certificate_id: res.body.id,
          code: res.body.code,
          user_id: holder.user.id,
          replaced_certificate_id: id,
          replaced_code: code,
        },
      });
      const issued = await published('certificate.issued', { user_id: holder.user.id });
      expect(issued.map((e) => [e.payload.certificate_id, e.actor_id])).toEqual([
        [id, holder.user.id],
        [res.body.id, owner.user.id],
      ]);
    });
  });

  describe('programs (paths)', () => {
    it('capstone.graded (actor the grader), program.completed and a program certificate.issued once', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'Program course' });
      const created = await author.agent
        .post('/api/v1/editor/paths')
        .send({
          slug: `events-${randomBytes(4).toString('hex')}`,
          title: 'Events program',
          kind: 'program',
          status: 'published',
          courses: [{ course_id: c.id }],
          capstone: { title: 'Final', instructions_md: 'Do it', passing_score: 70 },
          issues_certificate: true,
        })
        .expect(201);
      const pathId = created.body.id as string;
      const program = `/api/v1/organizations/${org}/programs/${pathId}`;
      const s = await member('student');
      await s.agent.post(`${courses()}/${c.id}/enroll`).expect(201);
      await s.agent.post(`${lessonPath(c, 0)}/complete`).expect(200);

      const first = await s.agent.post(`${program}/capstone/submissions`).send({ content_md: 'v1' }).expect(201);
      await owner.agent.post(`${program}/capstone/submissions/${first.body.id}/grade`).send({ score: 40 }).expect(200);
      // Nobody grades their own work: refused, nothing published.
      await s.agent.post(`${program}/capstone/submissions/${first.body.id}/grade`).send({ score: 100 }).expect(403);
      expect((await s.agent.post(`${program}/credential`).expect(409)).body.error.code).toBe('capstone_required');
      const second = await s.agent.post(`${program}/capstone/submissions`).send({ content_md: 'v2' }).expect(201);
      await owner.agent.post(`${program}/capstone/submissions/${second.body.id}/grade`).send({ score: 90 }).expect(200);

      const graded = await published('capstone.graded', { user_id: s.user.id });
      expect(graded.map((e) => e.payload)).toEqual([
        { submission_id: first.body.id, user_id: s.user.id, path_id: pathId, status: 'failed' },
        { submission_id: second.body.id, user_id: s.user.id, path_id: pathId, status: 'passed' },
      ]);
      expect(graded.every((e) => e.actor_id === owner.user.id && e.organization_id === org)).toBe(true);
      expect(await published('program.completed', { user_id: s.user.id })).toHaveLength(0);

      await s.agent.post(`${program}/credential`).expect(200);
      await s.agent.post(`${program}/credential`).expect(200);
      const [{ completed_at: completedAt }] = await t.db.query(
        `SELECT completed_at FROM program_completions WHERE user_id = $1 AND path_id = $2`,
        [s.user.id, pathId],
      );
      expect(await one('program.completed', { user_id: s.user.id })).toMatchObject({
        organization_id: org,
        actor_id: s.user.id,
        payload: { user_id: s.user.id, path_id: pathId, completed_at: completedAt.toISOString() },
      });
      expect(await one('certificate.issued', { user_id: s.user.id, type: 'program' })).toMatchObject({
        organization_id: org,
        actor_id: s.user.id,
        payload: { path_id: pathId, course_id: null },
      });
    });
  });

  describe('editor and courses', () => {
    it('course.published: first_publication true, then false after unpublishing; platform-level; no event for a no-op', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'Published twice', publish: false });
      const url = `/api/v1/editor/courses/${c.id}`;
      await author.agent.post(`${url}/publish`).expect(200);
      await author.agent.post(`${url}/publish`).expect(200);
      await author.agent.post(`${url}/unpublish`).expect(200);
      await author.agent.post(`${url}/publish`).expect(200);
      const events = await published('course.published', { course_id: c.id });
      expect(events.map((e) => [e.organization_id, e.actor_id, e.payload])).toEqual([
        [null, author.user.id, { course_id: c.id, first_publication: true }],
        [null, author.user.id, { course_id: c.id, first_publication: false }],
      ]);
      // A course without lessons cannot be published: 409, nothing.
      const empty = await author.agent
        .post('/api/v1/editor/courses')
        .send({ title: 'Empty', language: 'en', level: 'beginner' })
        .expect(201);
      await author.agent.post(`/api/v1/editor/courses/${empty.body.id}/publish`).expect(409);
      expect(await published('course.published', { course_id: empty.body.id })).toHaveLength(0);
    });

    it('course.rated when a rating is created or changed; an identical repeat or a refused rating publishes nothing', async () => {
      const c = await makeCourse(t, author.user.id, { title: 'Rated' });
      const s = await member('student');
      const rate = (body: object) => s.agent.post(`${courses()}/${c.id}/ratings`).send(body);
      expect((await rate({ stars: 4 }).expect(403)).body.error.code).toBe('not_enrolled');
      await s.agent.post(`${courses()}/${c.id}/enroll`).expect(201);
      await rate({ stars: 9 }).expect(422);
      expect(await published('course.rated', { user_id: s.user.id })).toHaveLength(0);
      await rate({ stars: 4, comment: 'Good' }).expect(200);
      await rate({ stars: 4, comment: 'Good' }).expect(200);
      await rate({ stars: 4, comment: 'Better than I said' }).expect(200);
      await rate({ stars: 5, comment: 'Better than I said' }).expect(200);
      const events = await published('course.rated', { user_id: s.user.id });
      expect(events.map((e) => [e.organization_id, e.actor_id, e.payload])).toEqual([
        [org, s.user.id, { user_id: s.user.id, course_id: c.id, stars: 4 }],
        [org, s.user.id, { user_id: s.user.id, course_id: c.id, stars: 4 }],
        [org, s.user.id, { user_id: s.user.id, course_id: c.id, stars: 5 }],
      ]);
    });
  });
});
