import { randomBytes, randomUUID } from 'node:crypto';
import { Global, Injectable, Module } from '@nestjs/common';
import { GuardianConsentResolver } from '@/core/auth/tenancy';
import { AiUsageService } from '@/modules/ai-usage/ai-usage.service';
import { UsersRepository } from '@/modules/users/users.repository';
import { signIn, type SignedIn } from './support/auth';
import { makeCourse, type MadeCourse, ONE_QUESTION_QUIZ } from './cross-tenant/learning.routes';
import { addMember, adult, createOrganization } from './support/tenancy';
import { createTestApp, type TestApp } from './support/test-app';

type Operation = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Operation>> };
const WRITES = ['post', 'put', 'patch', 'delete'] as const;
const SEED = 'minor-seed-01';

/** Who the test resolver says has consent: `<user>:<org or *>`, and every question it was asked. */
const consent = { granted: new Set<string>(), asked: [] as [string, string | null][] };

@Injectable()
class TestConsentResolver extends GuardianConsentResolver {
  hasConsent(userId: string, organizationId: string | null): Promise<boolean> {
    consent.asked.push([userId, organizationId]);
    return Promise.resolve(
      consent.granted.has(`${userId}:*`) || consent.granted.has(`${userId}:${organizationId ?? 'personal'}`),
    );
  }
}

/** Stands in for the privacy area's answer (extensions-v2 17.5) until it exists. */
@Global()
@Module({
  providers: [{ provide: GuardianConsentResolver, useClass: TestConsentResolver }],
  exports: [GuardianConsentResolver],
})
class TestConsentModule {}

interface World {
  t: TestApp;
  orgId: string;
  course: MadeCourse;
  programId: string;
}

/** An organization with a published course (a plain lesson and a quiz lesson) and a program with a capstone. */
async function world(imports: NonNullable<Parameters<typeof createTestApp>[0]>['imports'] = []): Promise<World> {
  const t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'minors-editor@ops.test' }, imports });
  const owner = await adult(t);
  const orgId = await createOrganization(t, owner);
  const course = await makeCourse(t, owner.user.id, {
    title: `Minors ${randomBytes(3).toString('hex')}`,
    lessons: [{ title: 'Plain' }, { title: 'Quiz', quiz: ONE_QUESTION_QUIZ }],
  });
  const editor = await signIn(t, 'minors-editor@ops.test');
  const program = await editor.agent
    .post('/api/v1/editor/paths')
    .send({
      slug: `minors-${randomBytes(4).toString('hex')}`,
      title: 'Program for minors',
      kind: 'program',
      status: 'published',
      courses: [{ course_id: course.id }],
      capstone: { title: 'Final', instructions_md: 'Write', passing_score: 50 },
    })
    .expect(201);
  return { t, orgId, course, programId: program.body.id as string };
}

/** A learner of the organization whose age bracket is `under_18` (nothing in the API sets it yet). */
async function minorOf(w: World): Promise<SignedIn> {
  const s = await signIn(w.t);
  await addMember(w.t, w.orgId, s.user.id, 'student');
  await w.t.app.get(UsersRepository).update(s.user.id, { ageBracket: 'under_18' }, w.t.clock.now());
  return s;
}

function learningWrites(w: World) {
  const base = `/api/v1/organizations/${w.orgId}`;
  const c = w.course;
  const quiz = c.lessons[1].quiz!;
  return {
    enroll: (s: SignedIn) => s.agent.post(`${base}/courses/${c.id}/enroll`),
    complete: (s: SignedIn) => s.agent.post(`${base}/courses/${c.id}/lessons/${c.lessons[0].id}/complete`),
    submitQuiz: (s: SignedIn) =>
      s.agent.post(`${base}/courses/${c.id}/lessons/${c.lessons[1].id}/quiz/submissions`).send({
        answers: [
          { question_id: quiz.questions[0].id, option_ids: [quiz.questions[0].options.find((o) => o.correct)!.id] },
        ],
      }),
    submitCapstone: (s: SignedIn) =>
      s.agent.post(`${base}/programs/${w.programId}/capstone/submissions`).send({ content_md: 'My work' }),
  };
}

/**
 * Minors (extensions-v2 2.5, 17.6, 26.7): a minor's session is read-only except the operations marked
 * `@MinorAccess('always')` (their own profile, avatar, sessions, onboarding) and `@MinorAccess('with_consent')`
 * (learning writes), which need the guardian consent the privacy area will record.
 */
describe('minors', () => {
  describe('without a consent resolver (as deployed until the privacy area lands)', () => {
    let w: World;
    let minor: SignedIn;
    let doc: Doc;

    beforeAll(async () => {
      w = await world();
      minor = await minorOf(w);
      doc = (await w.t.http().get('/docs-json').expect(200)).body as Doc;
    });
    afterAll(() => w.t.close());

    it('marks the wave-1 routes of 26.7 and onboarding', () => {
      const marks = Object.entries(doc.paths).flatMap(([path, item]) =>
        WRITES.filter((m) => item[m]?.['x-minor-access']).map(
          (m) => `${m} ${path} ${String(item[m]['x-minor-access'])}`,
        ),
      );
      expect(marks.sort()).toEqual(
        [
          'patch /api/v1/me/profile always',
          'put /api/v1/me/avatar always',
          'delete /api/v1/me/sessions/{session_id} always',
          'post /api/v1/me/sessions/revoke-others always',
          'put /api/v1/me/onboarding always',
          'post /api/v1/organizations/{org_id}/courses/{course_id}/enroll with_consent',
          'post /api/v1/organizations/{org_id}/courses/{course_id}/lessons/{lesson_id}/complete with_consent',
          'post /api/v1/organizations/{org_id}/courses/{course_id}/lessons/{lesson_id}/quiz/submissions with_consent',
          'post /api/v1/organizations/{org_id}/programs/{pathId}/capstone/submissions with_consent',
          // Announcements (18): dismissing one.
          'post /api/v1/announcements/{announcement_id}/dismiss always',
          // Exams (extensions-v2 9.9): the learner's writes.
          'post /api/v1/organizations/{org_id}/exams/{exam_id}/sessions with_consent',
          'put /api/v1/organizations/{org_id}/exams/{exam_id}/sessions/{session_id}/answers/{question_id} with_consent',
          'post /api/v1/organizations/{org_id}/exams/{exam_id}/sessions/{session_id}/events with_consent',
          'post /api/v1/organizations/{org_id}/exams/{exam_id}/sessions/{session_id}/submit with_consent',
          // The tutor (extensions-v2 23.5): starting, asking, deleting.
          'post /api/v1/organizations/{org_id}/tutor/conversations with_consent',
          'post /api/v1/organizations/{org_id}/tutor/conversations/{conversation_id}/messages with_consent',
          'delete /api/v1/organizations/{org_id}/tutor/conversations/{conversation_id} with_consent',
        ].sort(),
      );
    });

    it('always: the profile is updated, but never made public (403 minor_restricted, nothing changed)', async () => {
      const res = await minor.agent
        .patch('/api/v1/me/profile')
        .send({ name: 'Young Learner', bio: 'Hi', time_zone: 'Europe/Madrid' })
        .expect(200);
      expect(res.body).toMatchObject({ name: 'Young Learner', bio: 'Hi', time_zone: 'Europe/Madrid' });
      const refused = await minor.agent.patch('/api/v1/me/profile').send({ name: 'Other', public_profile: true });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('minor_restricted');
      const me = (await minor.agent.get('/api/v1/auth/me').expect(200)).body;
      expect(me).toMatchObject({ name: 'Young Learner', public_profile: false });
      await minor.agent.patch('/api/v1/me/profile').send({ public_profile: false }).expect(200);
    });

    it('an adult may still make their profile public', async () => {
      const grown = await adult(w.t);
      const res = await grown.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
      expect(res.body.public_profile).toBe(true);
    });

    it('always: the avatar is saved', async () => {
      const res = await minor.agent.put('/api/v1/me/avatar').send({ seed: SEED }).expect(200);
      expect(res.body.avatar_svg_url).toEqual(expect.any(String));
    });

    it('always: own sessions are signed out, one or all the others', async () => {
      const phone = await signIn(w.t, minor.email);
      const laptop = await signIn(w.t, minor.email);
      const sessions = (await minor.agent.get('/api/v1/me/sessions').expect(200)).body.items as {
        id: string;
        current: boolean;
      }[];
      expect(sessions.length).toBeGreaterThanOrEqual(3);
      const phoneSession = (await phone.agent.get('/api/v1/me/sessions').expect(200)).body.items.find(
        (s: { current: boolean }) => s.current,
      ) as { id: string };
      await minor.agent.delete(`/api/v1/me/sessions/${phoneSession.id}`).expect(204);
      await phone.agent.get('/api/v1/auth/me').expect(401);
      const others = await minor.agent.post('/api/v1/me/sessions/revoke-others').expect(200);
      expect(others.body.revoked).toBeGreaterThanOrEqual(1);
      await laptop.agent.get('/api/v1/auth/me').expect(401);
      await minor.agent.get('/api/v1/auth/me').expect(200);
    });

    it('always: onboarding passes the access check (its own rules still apply)', async () => {
      const res = await minor.agent
        .put('/api/v1/me/onboarding')
        .send({ name: 'Young Learner', locale: 'es', adult_confirmed: false })
        .expect(422);
      expect(res.body.error.code).toBe('adult_declaration_required');
    });

    it('with consent: enroll, lesson complete, quiz and capstone submissions answer 403 guardian_consent_required; nothing is written', async () => {
      const writes = learningWrites(w);
      for (const [name, write] of Object.entries(writes)) {
        const res = await write(minor);
        expect({ name, status: res.status, code: res.body.error?.code }).toEqual({
          name,
          status: 403,
          code: 'guardian_consent_required',
        });
      }
      const rows = await w.t.db.query(
        `SELECT (SELECT count(*)::int FROM enrollments WHERE user_id = $1) AS enrollments,
                (SELECT count(*)::int FROM quiz_submissions WHERE user_id = $1) AS attempts,
                (SELECT count(*)::int FROM capstone_submissions WHERE user_id = $1) AS capstones`,
        [minor.user.id],
      );
      expect(rows).toEqual([{ enrollments: 0, attempts: 0, capstones: 0 }]);
    });

    it('every unmarked write answers 403 credential_read_only (platform-role operations: forbidden first)', async () => {
      const wrong: unknown[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        if (path.includes('/_probe')) continue;
        for (const method of WRITES) {
          const op = item[method];
          if (!op || op['x-public'] || op['x-read-operation'] || op['x-minor-access']) continue;
          const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'org_id' ? w.orgId : randomUUID()));
          const res = await minor.agent[method](url).set('X-Forwarded-For', w.t.nextIp()).send({});
          const expected = op['x-platform-roles'] ? 'forbidden' : 'credential_read_only';
          if (res.status !== 403 || res.body.error?.code !== expected) {
            wrong.push({ method, path, status: res.status, code: res.body.error?.code });
          }
        }
      }
      expect(wrong).toEqual([]);
    });

    it('reads work: the account, the catalog, the course, progress, the program', async () => {
      const base = `/api/v1/organizations/${w.orgId}`;
      await minor.agent.get('/api/v1/auth/me').expect(200);
      await minor.agent.get('/api/v1/me/organizations').expect(200);
      const catalog = await minor.agent.get(`${base}/courses`).expect(200);
      expect(catalog.body.items.map((c: { id: string }) => c.id)).toContain(w.course.id);
      await minor.agent.get(`${base}/courses/${w.course.id}`).expect(200);
      await minor.agent.get(`${base}/progress`).expect(200);
      await minor.agent.get(`${base}/programs/${w.programId}/progress`).expect(200);
    });

    it('read operations (POST that write nothing the credential owns) stay open', async () => {
      const res = await minor.agent.post('/api/v1/auth/step-up/request').expect(200);
      expect(res.body.method).toBe('email_code');
    });
  });

  describe('with a consent resolver', () => {
    let w: World;

    beforeAll(async () => {
      w = await world([TestConsentModule]);
    });
    afterAll(() => w.t.close());

    it('asks about the path’s organization, and lets learning writes through once consent is given', async () => {
      const minor = await minorOf(w);
      const writes = learningWrites(w);
      consent.asked.length = 0;
      expect((await writes.enroll(minor)).body.error?.code).toBe('guardian_consent_required');
      expect(consent.asked).toEqual([[minor.user.id, w.orgId]]);

      consent.granted.add(`${minor.user.id}:${w.orgId}`);
      await writes.enroll(minor).expect(201);
      await writes.complete(minor).expect(200);
      const quiz = await writes.submitQuiz(minor).expect(201);
      expect(quiz.body.passed).toBe(true);
      await writes.submitCapstone(minor).expect(201);
    });

    it('consent by one organization does not open another’s paths; consent anywhere does', async () => {
      const minor = await minorOf(w);
      consent.granted.add(`${minor.user.id}:${randomUUID()}`);
      const writes = learningWrites(w);
      expect((await writes.enroll(minor)).body.error?.code).toBe('guardian_consent_required');
      consent.granted.add(`${minor.user.id}:*`);
      await writes.enroll(minor).expect(201);
    });

    it('the tutor, once the guardian consented: 403 minor_restricted until the organization allows minors', async () => {
      const minor = await minorOf(w);
      consent.granted.add(`${minor.user.id}:${w.orgId}`);
      await learningWrites(w).enroll(minor).expect(201);
      const base = `/api/v1/organizations/${w.orgId}/tutor/conversations`;
      const refused = await minor.agent.post(base).send({ course_id: w.course.id }).expect(403);
      expect(refused.body.error.code).toBe('minor_restricted');
      expect(await w.t.db.query(`SELECT 1 FROM tutor_conversations WHERE user_id = $1`, [minor.user.id])).toEqual([]);

      const owner = (
        await w.t.db.query(`SELECT user_id FROM memberships WHERE organization_id = $1 AND role = 'owner'`, [w.orgId])
      )[0].user_id as string;
      const settings = w.t.app.get(AiUsageService);
      await settings.updateSettings(w.orgId, { minors_allowed: true }, owner, undefined);
      const created = await minor.agent.post(base).send({ course_id: w.course.id }).expect(201);
      const asked = await minor.agent
        .post(`${base}/${created.body.id}/messages`)
        .send({ content: 'What is this course about?' })
        .expect(200);
      expect(asked.headers['content-type']).toBe('text/event-stream; charset=utf-8');

      // Switched off again: asking in the conversation already started is refused too.
      await settings.updateSettings(w.orgId, { minors_allowed: false }, owner, undefined);
      const again = await minor.agent
        .post(`${base}/${created.body.id}/messages`)
        .send({ content: 'And now?' })
        .expect(403);
      expect(again.body.error.code).toBe('minor_restricted');
      // Deleting needs the consent only.
      await minor.agent.delete(`${base}/${created.body.id}`).expect(204);
    });

    it('asks nothing of adults, of reads, and of `always` operations', async () => {
      const grown = await adult(w.t);
      await addMember(w.t, w.orgId, grown.user.id, 'student');
      const minor = await minorOf(w);
      consent.asked.length = 0;
      await learningWrites(w).enroll(grown).expect(201);
      await minor.agent.get(`/api/v1/organizations/${w.orgId}/courses`).expect(200);
      await minor.agent.patch('/api/v1/me/profile').send({ name: 'Asked nothing' }).expect(200);
      expect(consent.asked).toEqual([]);
    });
  });
});
