import { randomBytes, randomUUID } from 'node:crypto';
import { AiUsageService } from '@/modules/assistant/ai-usage';
import { GuardianConsentService } from '@/modules/identity/privacy';
import { UsersRepository } from '@/modules/identity/users/testing';
import { signIn, type SignedIn, stepUpByEmail } from '../../support/auth';
import { makeCourse, type MadeCourse, ONE_QUESTION_QUIZ } from '../../cross-tenant/learning.routes';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

type Operation = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Operation>> };
const WRITES = ['post', 'put', 'patch', 'delete'] as const;
const SEED = 'minor-seed-01';

interface World {
  t: TestApp;
  orgId: string;
  course: MadeCourse;
  programId: string;
}

/** An organization with a published course (a plain lesson and a quiz lesson) and a program with a capstone. */
async function world(): Promise<World> {
  const t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'minors-editor@ops.test' } });
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

/** A learner of the organization whose age bracket is `under_18` (set directly: the routes have their own tests). */
/** The guardian consents by the emailed link (read from the SMTP sink), as in the privacy area's own tests. */
async function grantGuardianConsent(w: World, minor: SignedIn): Promise<void> {
  const guardian = w.t.nextEmail('guardian');
  const before = w.t.mail.count();
  await minor.agent.post('/api/v1/me/privacy/guardian-consent').send({ guardian_email: guardian }).expect(202);
  const mail = await w.t.mail.waitForTo(guardian, { after: before });
  const token = /http:\/\/web\.test\/guardian-consent\/([A-Za-z0-9_-]+)/.exec(mail.text)![1];
  await w.t.client().post('/api/v1/guardian-consents/decision').send({ token, decision: 'grant' }).expect(200);
}

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
  describe('without guardian consent', () => {
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
          // Passkeys (extensions-v3 3): the person's own sign-in factors.
          'post /api/v1/me/passkeys always',
          'patch /api/v1/me/passkeys/{passkey_id} always',
          'delete /api/v1/me/passkeys/{passkey_id} always',
          'post /api/v1/organizations/{org_id}/courses/{course_id}/enroll with_consent',
          'post /api/v1/organizations/{org_id}/courses/{course_id}/lessons/{lesson_id}/complete with_consent',
          'post /api/v1/organizations/{org_id}/courses/{course_id}/lessons/{lesson_id}/quiz/submissions with_consent',
          'post /api/v1/organizations/{org_id}/programs/{pathId}/capstone/submissions with_consent',
          // Announcements (18): dismissing one.
          'post /api/v1/announcements/{announcement_id}/dismiss always',
          // Notifications and push (13.5): the person's own inbox, preferences, subscriptions and devices.
          'post /api/v1/notifications/{notification_id}/read always',
          'post /api/v1/notifications/read-all always',
          'delete /api/v1/notifications/{notification_id} always',
          'patch /api/v1/me/notification-preferences always',
          'post /api/v1/push/subscriptions always',
          'delete /api/v1/push/subscriptions/{subscription_id} always',
          'post /api/v1/push/test always',
          'post /api/v1/push/devices always',
          'delete /api/v1/push/devices/{device_id} always',
          // Duels (extensions-v2 8.2): challenge, accept, decline, cancel.
          'post /api/v1/organizations/{org_id}/duels with_consent',
          'post /api/v1/organizations/{org_id}/duels/{duel_id}/accept with_consent',
          'post /api/v1/organizations/{org_id}/duels/{duel_id}/cancel with_consent',
          'post /api/v1/organizations/{org_id}/duels/{duel_id}/decline with_consent',
          // Exams (extensions-v2 9.9): the learner's writes.
          'post /api/v1/organizations/{org_id}/exams/{exam_id}/sessions with_consent',
          'put /api/v1/organizations/{org_id}/exams/{exam_id}/sessions/{session_id}/answers/{question_id} with_consent',
          'post /api/v1/organizations/{org_id}/exams/{exam_id}/sessions/{session_id}/events with_consent',
          'post /api/v1/organizations/{org_id}/exams/{exam_id}/sessions/{session_id}/submit with_consent',
          // The tutor (extensions-v2 23.5): starting, asking, deleting.
          'post /api/v1/organizations/{org_id}/tutor/conversations with_consent',
          'post /api/v1/organizations/{org_id}/tutor/conversations/{conversation_id}/messages with_consent',
          'delete /api/v1/organizations/{org_id}/tutor/conversations/{conversation_id} with_consent',
          // Support (19): writing to support, replying, closing.
          'post /api/v1/support/tickets always',
          'post /api/v1/support/tickets/{ticket_id}/messages always',
          'post /api/v1/support/tickets/{ticket_id}/close always',
          // Privacy (extensions-v2 17.7): every /me/privacy write.
          'post /api/v1/me/privacy/consents always',
          'post /api/v1/me/privacy/exports always',
          'post /api/v1/me/privacy/erasure always',
          'delete /api/v1/me/privacy/erasure always',
          'put /api/v1/me/privacy/age-bracket always',
          'post /api/v1/me/privacy/guardian-consent always',
          // Practice (extensions-v2 6.5, 7.2, 10): flashcards, their settings, notes, games.
          'post /api/v1/organizations/{org_id}/flashcards/cards/{card_id}/reviews with_consent',
          'post /api/v1/organizations/{org_id}/flashcards/decks with_consent',
          'patch /api/v1/organizations/{org_id}/flashcards/decks/{deck_id} with_consent',
          'delete /api/v1/organizations/{org_id}/flashcards/decks/{deck_id} with_consent',
          'post /api/v1/organizations/{org_id}/flashcards/decks/{deck_id}/cards with_consent',
          'patch /api/v1/organizations/{org_id}/flashcards/decks/{deck_id}/cards/{card_id} with_consent',
          'delete /api/v1/organizations/{org_id}/flashcards/decks/{deck_id}/cards/{card_id} with_consent',
          'put /api/v1/me/flashcards/settings with_consent',
          'put /api/v1/organizations/{org_id}/courses/{course_id}/lessons/{lesson_id}/note with_consent',
          'delete /api/v1/organizations/{org_id}/courses/{course_id}/lessons/{lesson_id}/note with_consent',
          'post /api/v1/organizations/{org_id}/games with_consent',
          'post /api/v1/organizations/{org_id}/games/{game_id}/answers with_consent',
          'post /api/v1/organizations/{org_id}/games/{game_id}/abandon with_consent',
          // Gamification (extensions-v2 5.7): claims, titles and challenges with consent; goals always.
          'put /api/v1/me/goals always',
          'put /api/v1/organizations/{org_id}/titles/current with_consent',
          'post /api/v1/organizations/{org_id}/missions/{mission_id}/claim with_consent',
          'post /api/v1/organizations/{org_id}/daily-reward/claim with_consent',
          'post /api/v1/organizations/{org_id}/challenges/{challenge_id}/join with_consent',
          'post /api/v1/organizations/{org_id}/challenges/{challenge_id}/leave with_consent',
          // The calendar feed (extensions-v2 25.2): making and stopping one's own address.
          'post /api/v1/me/calendar-feed always',
          'delete /api/v1/me/calendar-feed always',
          // Social (extensions-v2 11.2): reporting content; posts, comments and reactions stay closed.
          'post /api/v1/organizations/{org_id}/posts/{post_id}/reports always',
          'post /api/v1/organizations/{org_id}/posts/{post_id}/comments/{comment_id}/reports always',
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
          // A SCIM token is the directory's credential, never a minor's: /scim/v2 refuses every session (401).
          if (!op || op['x-public'] || op['x-scim-token'] || op['x-read-operation'] || op['x-minor-access']) continue;
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

  describe('with guardian consent (the privacy area, extensions-v2 17.5)', () => {
    let w: World;
    let owner: SignedIn;

    beforeAll(async () => {
      w = await world();
      const [row] = await w.t.db.query(
        `SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.organization_id = $1 AND m.role = 'owner'`,
        [w.orgId],
      );
      owner = await signIn(w.t, row.email as string);
    });
    afterAll(() => w.t.close());

    const tokenFrom = (text: string, path: 'guardian-consent' | 'guardian-consent/revoke'): string =>
      new RegExp(`http://web\\.test/${path}/([A-Za-z0-9_-]+)`).exec(text)![1];

    /** The minor asks; the guardian's email is read from the SMTP sink; returns the link's token. */
    async function askGuardian(minor: SignedIn, guardian = w.t.nextEmail('guardian')): Promise<string> {
      const before = w.t.mail.count();
      const res = await minor.agent
        .post('/api/v1/me/privacy/guardian-consent')
        .send({ guardian_email: guardian, guardian_name: 'Gina Guardian' })
        .expect(202);
      expect(res.body).toEqual({
        status: 'pending',
        guardian_email_masked: expect.stringMatching(/^g\*+@e\*+\.test$/),
        expires_at: expect.any(String),
      });
      const mail = await w.t.mail.waitForTo(guardian, { after: before });
      return tokenFrom(mail.text, 'guardian-consent');
    }

    it('by the guardian’s email: preview, grant (learning opens everywhere), revocation link, revoke (it closes again)', async () => {
      const minor = await minorOf(w);
      await minor.agent.patch('/api/v1/me/profile').send({ name: 'Mia Minor' }).expect(200);
      const guardian = w.t.nextEmail('guardian');
      const before = w.t.mail.count();
      await minor.agent.post('/api/v1/me/privacy/guardian-consent').send({ guardian_email: guardian }).expect(202);
      const request = await w.t.mail.waitForTo(guardian, { after: before });
      expect(request.text).toContain('Mia Minor');
      const token = tokenFrom(request.text, 'guardian-consent');
      expect((await minor.agent.get('/api/v1/me/privacy').expect(200)).body.guardian_consent).toMatchObject({
        status: 'pending',
        source: null,
        guardian_email_masked: expect.any(String),
      });

      const preview = await w.t.client().post('/api/v1/guardian-consents/preview').send({ token }).expect(200);
      expect(preview.body).toEqual({
        learner_name: 'Mia Minor',
        organizations: ['Test Organization'],
        requested_at: expect.any(String),
        expires_at: expect.any(String),
        status: 'pending',
      });
      expect((await learningWrites(w).enroll(minor)).body.error?.code).toBe('guardian_consent_required');

      const granted = w.t.mail.count();
      await w.t
        .client()
        .post('/api/v1/guardian-consents/decision')
        .send({ token, decision: 'grant', guardian_name: 'Gina' })
        .expect(200, { status: 'granted' });
      const again = await w.t.client().post('/api/v1/guardian-consents/decision').send({ token, decision: 'deny' });
      expect(again.status).toBe(409);
      expect(again.body.error.code).toBe('guardian_consent_decided');
      const writes = learningWrites(w);
      await writes.enroll(minor).expect(201);
      await writes.complete(minor).expect(200);
      expect((await writes.submitQuiz(minor).expect(201)).body.passed).toBe(true);
      await writes.submitCapstone(minor).expect(201);
      const record = (await minor.agent.get('/api/v1/me/privacy').expect(200)).body;
      expect(record.guardian_consent).toMatchObject({
        status: 'granted',
        source: 'email',
        decided_at: expect.any(String),
      });
      expect(record.consents.find((c: { kind: string }) => c.kind === 'guardian_consent')).toMatchObject({
        granted: true,
      });

      const grantMail = await w.t.mail.waitForTo(guardian, { after: granted });
      const revokeToken = tokenFrom(grantMail.text, 'guardian-consent/revoke');
      await w.t.client().post('/api/v1/guardian-consents/revoke').send({ token: 'nope' }).expect(404);
      await w.t.client().post('/api/v1/guardian-consents/revoke').send({ token: revokeToken }).expect(200, {
        status: 'revoked',
      });
      await w.t.client().post('/api/v1/guardian-consents/revoke').send({ token: revokeToken }).expect(200, {
        status: 'revoked',
      });
      expect((await learningWrites(w).complete(minor)).body.error?.code).toBe('guardian_consent_required');
      expect((await minor.agent.get('/api/v1/me/privacy').expect(200)).body.guardian_consent.status).toBe('revoked');
      const audit = await w.t.db.query(
        `SELECT action, actor_id, organization_id FROM audit_log WHERE target_id = $1 AND action LIKE 'guardian_consent.%'
         ORDER BY created_at`,
        [minor.user.id],
      );
      expect(audit).toEqual([
        { action: 'guardian_consent.granted', actor_id: null, organization_id: null },
        { action: 'guardian_consent.revoked', actor_id: null, organization_id: null },
      ]);
      const history = await w.t.db.query(
        `SELECT granted FROM consents WHERE user_id = $1 AND kind = 'guardian_consent' ORDER BY granted_at`,
        [minor.user.id],
      );
      expect(history).toEqual([{ granted: true }, { granted: false }]);
    });

    it('refusals: not a minor (409), the own address (422), a denial, a replaced or unknown link (404), an expired one (410)', async () => {
      const grown = await adult(w.t);
      const notMinor = await grown.agent
        .post('/api/v1/me/privacy/guardian-consent')
        .send({ guardian_email: w.t.nextEmail('guardian') });
      expect(notMinor.status).toBe(409);
      expect(notMinor.body.error.code).toBe('not_a_minor');
      // Each refused body from a minor of its own (the route allows 3 requests a day, refused ones included).
      for (const body of [
        { guardian_email: 'OWN' },
        { guardian_email: 'not-an-email' },
        { guardian_email: `${'a'.repeat(250)}@x.test` },
        { guardian_email: w.t.nextEmail('guardian'), guardian_name: 'x'.repeat(121) },
        {},
      ]) {
        const asker = await minorOf(w);
        const sent = body.guardian_email === 'OWN' ? { guardian_email: asker.email.toUpperCase() } : body;
        const res = await asker.agent.post('/api/v1/me/privacy/guardian-consent').send(sent);
        expect({ sent, status: res.status }).toEqual({ sent, status: 422 });
        expect(await w.t.db.query(`SELECT 1 FROM guardian_consents WHERE user_id = $1`, [asker.user.id])).toEqual([]);
      }
      const minor = await minorOf(w);

      const first = await askGuardian(minor);
      const second = await askGuardian(minor);
      await w.t.client().post('/api/v1/guardian-consents/preview').send({ token: first }).expect(404);
      await w.t
        .client()
        .post('/api/v1/guardian-consents/decision')
        .send({ token: first, decision: 'grant' })
        .expect(404);
      await w.t.client().post('/api/v1/guardian-consents/preview').send({ token: 'unknown' }).expect(404);
      await w.t
        .client()
        .post('/api/v1/guardian-consents/decision')
        .send({ token: second, decision: 'maybe' })
        .expect(422);
      await w.t
        .client()
        .post('/api/v1/guardian-consents/decision')
        .send({ token: second, decision: 'deny' })
        .expect(200, {
          status: 'denied',
        });
      expect((await learningWrites(w).enroll(minor)).body.error?.code).toBe('guardian_consent_required');
      expect((await minor.agent.get('/api/v1/me/privacy').expect(200)).body.guardian_consent.status).toBe('denied');

      const late = await minorOf(w);
      const token = await askGuardian(late);
      w.t.clock.advance(7 * 24 * 3600 * 1000 + 1_000);
      const expired = await w.t.client().post('/api/v1/guardian-consents/preview').send({ token });
      expect(expired.status).toBe(410);
      expect(expired.body.error.code).toBe('guardian_consent_expired');
      const decision = await w.t.client().post('/api/v1/guardian-consents/decision').send({ token, decision: 'grant' });
      expect(decision.status).toBe(410);
      for (const p of [late, owner]) await p.agent.post('/api/v1/auth/refresh').expect(200);
      expect((await late.agent.get('/api/v1/me/privacy').expect(200)).body.guardian_consent.status).toBe('expired');
      expect((await learningWrites(w).enroll(late)).body.error?.code).toBe('guardian_consent_required');
    });

    it('the public routes are rate limited per token (decision: 5 per 15 minutes)', async () => {
      const minor = await minorOf(w);
      const token = await askGuardian(minor);
      for (let i = 0; i < 5; i++) {
        await w.t.client().post('/api/v1/guardian-consents/decision').send({ token, decision: 'maybe' }).expect(422);
      }
      const limited = await w.t.client().post('/api/v1/guardian-consents/decision').send({ token, decision: 'grant' });
      expect(limited.status).toBe(429);
      expect(await w.t.db.query(`SELECT status FROM guardian_consents WHERE user_id = $1`, [minor.user.id])).toEqual([
        { status: 'pending' },
      ]);
    });

    it('by an organization’s attestation: its own paths only; step-up, owner/admin, a minor member; withdrawn with 204', async () => {
      const minor = await minorOf(w);
      const url = (org: string, user = minor.user.id) =>
        `/api/v1/organizations/${org}/members/${user}/guardian-consent`;
      const noStepUp = await owner.agent.post(url(w.orgId)).send({ reason: 'Signed forms on file' });
      expect(noStepUp.body.error.code).toBe('step_up_required');
      await stepUpByEmail(w.t, owner);
      await owner.agent.post(url(w.orgId)).send({ reason: '' }).expect(422);
      await owner.agent
        .post(url(w.orgId))
        .send({ reason: 'x'.repeat(501) })
        .expect(422);
      await owner.agent.post(url(w.orgId, randomUUID())).send({ reason: 'Forms' }).expect(404);
      await owner.agent.post(url(w.orgId, 'nope')).send({ reason: 'Forms' }).expect(404);
      const grown = await adult(w.t);
      await addMember(w.t, w.orgId, grown.user.id, 'student');
      const notMinor = await owner.agent.post(url(w.orgId, grown.user.id)).send({ reason: 'Forms' });
      expect(notMinor.body.error.code).toBe('not_a_minor');
      // A teacher of the organization, and the owner of another one, cannot.
      const teacher = await adult(w.t);
      await addMember(w.t, w.orgId, teacher.user.id, 'teacher');
      await stepUpByEmail(w.t, teacher);
      await teacher.agent.post(url(w.orgId)).send({ reason: 'Forms' }).expect(403);
      const otherOwner = await adult(w.t);
      const otherOrg = await createOrganization(w.t, otherOwner, 'Other school');
      await stepUpByEmail(w.t, otherOwner);
      await otherOwner.agent.post(url(w.orgId)).send({ reason: 'Forms' }).expect(404);
      expect(await w.t.db.query(`SELECT 1 FROM guardian_attestations WHERE user_id = $1`, [minor.user.id])).toEqual([]);

      const res = await owner.agent.post(url(w.orgId)).send({ reason: 'Signed forms on file' }).expect(200);
      expect(res.body).toEqual({
        user_id: minor.user.id,
        guardian_consent: { status: 'granted', source: 'organization' },
      });
      await learningWrites(w).enroll(minor).expect(201);
      expect((await minor.agent.get('/api/v1/me/privacy').expect(200)).body.guardian_consent).toMatchObject({
        status: 'granted',
        source: 'organization',
      });
      // Not on another organization's paths.
      await addMember(w.t, otherOrg, minor.user.id, 'student');
      const elsewhere = await minor.agent.post(`/api/v1/organizations/${otherOrg}/courses/${w.course.id}/enroll`);
      expect(elsewhere.body.error?.code).toBe('guardian_consent_required');

      await owner.agent.delete(url(w.orgId)).expect(204);
      await owner.agent.delete(url(w.orgId)).expect(404);
      expect((await learningWrites(w).complete(minor)).body.error?.code).toBe('guardian_consent_required');
      const audit = await w.t.db.query(
        `SELECT action, actor_id, organization_id FROM audit_log WHERE target_id = $1 AND action LIKE 'guardian_consent.%'
         ORDER BY created_at`,
        [minor.user.id],
      );
      expect(audit).toEqual([
        { action: 'guardian_consent.attested', actor_id: owner.user.id, organization_id: w.orgId },
        { action: 'guardian_consent.withdrawn', actor_id: owner.user.id, organization_id: w.orgId },
      ]);
    });

    it('an organization manages a member’s bracket: the person and other organizations cannot change it until released', async () => {
      const person = await adult(w.t);
      await addMember(w.t, w.orgId, person.user.id, 'student');
      const otherOwner = await adult(w.t);
      const otherOrg = await createOrganization(w.t, otherOwner, 'Second school');
      await addMember(w.t, otherOrg, person.user.id, 'student');
      const url = (org: string, user = person.user.id) => `/api/v1/organizations/${org}/members/${user}/age-bracket`;
      await stepUpByEmail(w.t, owner);
      await owner.agent.put(url(w.orgId)).send({ age_bracket: 'child' }).expect(422);
      await owner.agent.put(url(w.orgId, randomUUID())).send({ age_bracket: 'under_18' }).expect(404);
      const set = await owner.agent.put(url(w.orgId)).send({ age_bracket: 'under_18' }).expect(200);
      expect(set.body).toEqual({
        user_id: person.user.id,
        age_bracket: 'under_18',
        managed_by_organization_id: w.orgId,
        guardian_consent: { status: 'none', source: null },
      });
      // The organization sees that the member is a minor, and nothing about a birth date (none is stored).
      const members = (
        await owner.agent.get(`/api/v1/organizations/${w.orgId}/members`).query({ q: person.email }).expect(200)
      ).body.items as Record<string, unknown>[];
      expect(members).toEqual([expect.objectContaining({ user_id: person.user.id, minor: true })]);
      expect(Object.keys(members[0]).sort()).toEqual([
        'cohort_ids',
        'directory',
        'email',
        'joined_at',
        'minor',
        'name',
        'role',
        'user_id',
      ]);
      // The next request is a minor's: read-only, and the record names the managing organization.
      const record = (await person.agent.get('/api/v1/me/privacy').expect(200)).body;
      expect(record).toMatchObject({
        age_bracket: 'under_18',
        age_bracket_managed_by: { organization_id: w.orgId, name: 'Test Organization' },
      });
      await stepUpByEmail(w.t, person);
      const self = await person.agent.put('/api/v1/me/privacy/age-bracket').send({ age_bracket: 'adult' });
      expect(self.status).toBe(409);
      expect(self.body.error.code).toBe('age_bracket_managed');
      const onboarding = await person.agent
        .put('/api/v1/me/onboarding')
        .send({ name: 'Grown Up', locale: 'es', adult_confirmed: true });
      expect(onboarding.status).toBe(409);
      expect(onboarding.body.error.code).toBe('age_bracket_managed');
      await stepUpByEmail(w.t, otherOwner);
      const other = await otherOwner.agent.put(url(otherOrg)).send({ age_bracket: 'adult' });
      expect(other.body.error.code).toBe('age_bracket_managed');
      expect((await w.t.db.query(`SELECT age_bracket FROM users WHERE id = $1`, [person.user.id]))[0].age_bracket).toBe(
        'under_18',
      );

      const released = await owner.agent.put(url(w.orgId)).send({ age_bracket: null }).expect(200);
      expect(released.body).toMatchObject({ age_bracket: 'under_18', managed_by_organization_id: null });
      await person.agent.put('/api/v1/me/privacy/age-bracket').send({ age_bracket: 'adult' }).expect(200);
      const audit = await w.t.db.query(
        `SELECT actor_id, organization_id, metadata FROM audit_log WHERE action = 'member.age_bracket_set' AND target_id = $1
         ORDER BY created_at`,
        [person.user.id],
      );
      expect(audit).toEqual([
        { actor_id: owner.user.id, organization_id: w.orgId, metadata: { age_bracket: 'under_18', managed: true } },
        { actor_id: owner.user.id, organization_id: w.orgId, metadata: { age_bracket: 'under_18', managed: false } },
      ]);
    });

    it('practice (flashcards, settings, notes, games) needs the consent; with it the writes go through', async () => {
      const minor = await minorOf(w);
      const base = `/api/v1/organizations/${w.orgId}`;
      const note = `${base}/courses/${w.course.id}/lessons/${w.course.lessons[0].id}/note`;
      const refused = [
        await minor.agent.post(`${base}/flashcards/decks`).send({ title: 'Mine' }),
        await minor.agent.put('/api/v1/me/flashcards/settings').send({ scheduler: 'fsrs' }),
        await minor.agent.put(note).send({ content_md: 'x' }),
        await minor.agent.post(`${base}/games`).send({ mode: 'survival' }),
      ];
      expect(refused.map((r) => [r.status, r.body.error?.code])).toEqual(
        refused.map(() => [403, 'guardian_consent_required']),
      );
      // Reads stay open.
      await minor.agent.get(`${base}/flashcards/decks`).expect(200);
      await minor.agent.get('/api/v1/me/flashcards/settings').expect(200);
      await minor.agent.get(`${base}/notes`).expect(200);
      await minor.agent.get(`${base}/games`).expect(200);
      expect(await w.t.db.query(`SELECT 1 FROM flashcard_decks WHERE user_id = $1`, [minor.user.id])).toEqual([]);

      await grantGuardianConsent(w, minor);
      await learningWrites(w).enroll(minor).expect(201);
      await minor.agent.post(`${base}/flashcards/decks`).send({ title: 'Mine' }).expect(201);
      await minor.agent.put('/api/v1/me/flashcards/settings').send({ scheduler: 'fsrs' }).expect(200);
      await minor.agent.put(note).send({ content_md: 'x' }).expect(200);
      // The course has one quiz question: the game is refused by its own rule, past the access check.
      expect((await minor.agent.post(`${base}/games`).send({ mode: 'survival' })).body.error.code).toBe(
        'not_enough_questions',
      );
    });

    it('the tutor, once the guardian consented: 403 minor_restricted until the organization allows minors', async () => {
      const minor = await minorOf(w);
      const token = await askGuardian(minor);
      await w.t.client().post('/api/v1/guardian-consents/decision').send({ token, decision: 'grant' }).expect(200);
      await learningWrites(w).enroll(minor).expect(201);
      const base = `/api/v1/organizations/${w.orgId}/tutor/conversations`;
      const refused = await minor.agent.post(base).send({ course_id: w.course.id }).expect(403);
      expect(refused.body.error.code).toBe('minor_restricted');
      expect(await w.t.db.query(`SELECT 1 FROM tutor_conversations WHERE user_id = $1`, [minor.user.id])).toEqual([]);

      const settings = w.t.app.get(AiUsageService);
      await settings.updateSettings(w.orgId, { minors_allowed: true }, owner.user.id, undefined);
      const created = await minor.agent.post(base).send({ course_id: w.course.id }).expect(201);
      const asked = await minor.agent
        .post(`${base}/${created.body.id}/messages`)
        .send({ content: 'What is this course about?' })
        .expect(200);
      expect(asked.headers['content-type']).toBe('text/event-stream; charset=utf-8');

      // Switched off again: asking in the conversation already started is refused too.
      await settings.updateSettings(w.orgId, { minors_allowed: false }, owner.user.id, undefined);
      const again = await minor.agent
        .post(`${base}/${created.body.id}/messages`)
        .send({ content: 'And now?' })
        .expect(403);
      expect(again.body.error.code).toBe('minor_restricted');
      // Deleting needs the consent only.
      await minor.agent.delete(`${base}/${created.body.id}`).expect(204);
    });

    it('no tokens, no public profile, no organizations for a minor even with consent', async () => {
      const minor = await minorOf(w);
      const token = await askGuardian(minor);
      await w.t.client().post('/api/v1/guardian-consents/decision').send({ token, decision: 'grant' }).expect(200);
      await stepUpByEmail(w.t, minor);
      const key = await minor.agent
        .post('/api/v1/me/api-keys')
        .send({ name: 'x', organization_id: w.orgId, access: 'read', expires_in_days: 30 });
      expect(key.status).toBe(403);
      expect(await w.t.db.query(`SELECT 1 FROM api_keys WHERE user_id = $1`, [minor.user.id])).toEqual([]);
      expect((await minor.agent.patch('/api/v1/me/profile').send({ public_profile: true })).body.error.code).toBe(
        'minor_restricted',
      );
      expect((await minor.agent.post('/api/v1/organizations').send({ name: 'Mine' })).status).toBe(403);
    });

    it('asks nothing of adults, of reads, and of `always` operations', async () => {
      const grown = await adult(w.t);
      await addMember(w.t, w.orgId, grown.user.id, 'student');
      const minor = await minorOf(w);
      const spy = jest.spyOn(w.t.app.get(GuardianConsentService), 'hasConsent');
      try {
        await learningWrites(w).enroll(grown).expect(201);
        await minor.agent.get(`/api/v1/organizations/${w.orgId}/courses`).expect(200);
        await minor.agent.patch('/api/v1/me/profile').send({ name: 'Asked nothing' }).expect(200);
        expect(spy).not.toHaveBeenCalled();
        expect((await learningWrites(w).enroll(minor)).status).toBe(403);
        expect(spy).toHaveBeenCalledWith(minor.user.id, w.orgId);
      } finally {
        spy.mockRestore();
      }
    });
  });
});
