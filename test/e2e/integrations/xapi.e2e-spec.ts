import { randomBytes } from 'node:crypto';
import { URL_NAMESPACE, uuidV5 } from '@/modules/integrations/xapi/testing';
import { makeCourse, ONE_QUESTION_QUIZ, type MadeCourse } from '../../cross-tenant/learning.routes';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

type Statement = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Z]{2})?$/;
const ADL = 'http://adlnet.gov/expapi';
const STATEMENT_KEYS = new Set([
  'id',
  'actor',
  'verb',
  'object',
  'result',
  'context',
  'timestamp',
  'stored',
  'authority',
  'version',
  'attachments',
]);

function isIri(value: unknown): boolean {
  if (typeof value !== 'string' || !/^[a-z][a-z0-9+.-]*:\S+$/i.test(value)) return false;
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * The xAPI 1.0.3 rules a statement of this export must meet (xAPI 1.0.3, part two, section 2.4): the properties
 * and their types, an Agent identified by an account only (never an email: pseudonymous), IRIs where IRIs are
 * required, language maps keyed by RFC 5646 tags, a score within its bounds, ISO 8601 times, version 1.0.3.
 * Returns the problems found (empty when valid).
 */
function problems(s: Statement, baseUrl: string): string[] {
  const out: string[] = [];
  const check = (ok: boolean, what: string): void => void (ok || out.push(what));
  for (const key of Object.keys(s)) check(STATEMENT_KEYS.has(key), `unknown property ${key}`);
  check(typeof s.id === 'string' && UUID.test(s.id), 'id is a UUID');
  const agent = (a: Statement | undefined, what: string): void => {
    check(a?.objectType === 'Agent', `${what}.objectType is Agent`);
    check(
      !!a?.account && isIri(a.account.homePage) && typeof a.account.name === 'string',
      `${what} has an account {homePage IRL, name}`,
    );
    for (const ifi of ['mbox', 'mbox_sha1sum', 'openid']) check(!(ifi in (a ?? {})), `${what} has no ${ifi}`);
    check(a?.account?.homePage === baseUrl, `${what}.account.homePage is the service`);
  };
  agent(s.actor, 'actor');
  check(UUID.test(s.actor?.account?.name ?? ''), 'actor.account.name is a user id');
  check(isIri(s.verb?.id), 'verb.id is an IRI');
  const languageMap = (map: unknown, what: string): void => {
    check(!!map && typeof map === 'object' && Object.keys(map).length > 0, `${what} is a language map`);
    for (const [k, v] of Object.entries((map as Record<string, unknown>) ?? {})) {
      check(LANGUAGE_TAG.test(k) && typeof v === 'string', `${what} key ${k} is an RFC 5646 tag`);
    }
  };
  languageMap(s.verb?.display, 'verb.display');
  const activity = (a: Statement | undefined, what: string): void => {
    check(a?.objectType === 'Activity', `${what}.objectType is Activity`);
    check(isIri(a?.id), `${what}.id is an IRI`);
    check(isIri(a?.definition?.type), `${what}.definition.type is an IRI`);
    languageMap(a?.definition?.name, `${what}.definition.name`);
  };
  activity(s.object, 'object');
  if (s.result !== undefined) {
    const r = s.result;
    for (const key of Object.keys(r)) check(['score', 'success', 'completion'].includes(key), `result.${key} known`);
    if (r.score) {
      check(r.score.scaled >= -1 && r.score.scaled <= 1, 'score.scaled in [-1, 1]');
      check(r.score.min <= r.score.raw && r.score.raw <= r.score.max, 'score.raw within min..max');
    }
    if ('success' in r) check(typeof r.success === 'boolean', 'result.success boolean');
    if ('completion' in r) check(typeof r.completion === 'boolean', 'result.completion boolean');
  }
  const c = s.context;
  check(typeof c?.platform === 'string', 'context.platform');
  check(LANGUAGE_TAG.test(c?.language ?? ''), 'context.language is an RFC 5646 tag');
  for (const parent of c?.contextActivities?.parent ?? []) activity(parent, 'contextActivities.parent[]');
  for (const key of Object.keys(c?.extensions ?? {})) check(isIri(key), `extension key ${key} is an IRI`);
  check(ISO.test(s.timestamp ?? ''), 'timestamp is ISO 8601');
  check(ISO.test(s.stored ?? ''), 'stored is ISO 8601');
  agent(s.authority, 'authority');
  check(s.version === '1.0.3', 'version 1.0.3');
  return out;
}

describe('xAPI statement export (extensions-v2 25.4)', () => {
  let t: TestApp;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let student: SignedIn;
  let second: SignedIn;
  let ownerB: SignedIn;
  let org: string;
  let orgB: string;
  let course: MadeCourse;
  let examId: string;
  let pathId: string;

  const url = (o = org): string => `/api/v1/organizations/${o}/xapi/statements`;
  const courseUrl = (): string => `/api/v1/organizations/${org}/courses/${course.id}`;

  async function all(query = ''): Promise<Statement[]> {
    const res = await admin.agent.get(`${url()}?limit=500${query}`).expect(200);
    expect(res.body.more).toBe('');
    return res.body.statements;
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner, 'xAPI Org');
    [admin, teacher, student, second] = await Promise.all([adult(t), adult(t), adult(t), adult(t)]);
    await addMember(t, org, admin.user.id, 'admin');
    await addMember(t, org, teacher.user.id, 'teacher');
    await addMember(t, org, student.user.id, 'student');
    await addMember(t, org, second.user.id, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Other');
    course = await makeCourse(t, owner.user.id, {
      title: 'Curso de estadística',
      language: 'es',
      lessons: [{ title: 'Medias', quiz: ONE_QUESTION_QUIZ }, { title: 'Varianza' }],
    });
    // The student enrolls, fails then passes the quiz, completes both lessons (and so the course).
    await student.agent.post(`${courseUrl()}/enroll`).expect(201);
    const quiz = course.lessons[0].quiz!;
    const q = quiz.questions[0];
    const submit = (correct: boolean) =>
      student.agent
        .post(`${courseUrl()}/lessons/${course.lessons[0].id}/quiz/submissions`)
        .send({ answers: [{ question_id: q.id, option_ids: [q.options.find((o) => o.correct === correct)!.id] }] })
        .expect(201);
    await submit(false);
    await submit(true);
    for (const lesson of course.lessons) {
      await student.agent.post(`${courseUrl()}/lessons/${lesson.id}/complete`).expect(200);
    }
    // Exam sessions: one passed, one voided (not exported).
    const [exam] = await t.db.query(
      `INSERT INTO exams (course_id, title, duration_minutes, passing_score, questions_per_attempt, status, questions)
       VALUES ($1, 'Examen final', 60, 50, 1, 'published', '[{}]') RETURNING id`,
      [course.id],
    );
    examId = exam.id;
    const session = (attempt: number, review: string, score: number) =>
      t.db.query(
        `INSERT INTO exam_sessions (organization_id, exam_id, course_id, user_id, attempt, status, submitted_by,
           started_at, deadline_at, submitted_at, passing_score, fullscreen_required, max_focus_losses, flag_paste,
           score, passed, review_status)
         VALUES ($1, $2, $3, $4, $5, 'submitted', 'learner', now() - interval '1 hour', now(), now(), 50, false, 3,
           true, $6, $6 >= 50, $7)`,
        [org, examId, course.id, student.user.id, attempt, score, review],
      );
    await session(1, 'voided', 90);
    await session(2, 'none', 80);
    // A program completed.
    const [path] = await t.db.query(
      `INSERT INTO learning_paths (slug, title, kind, status) VALUES ($1, 'Programa de datos', 'program', 'published')
       RETURNING id`,
      [`p-${randomBytes(5).toString('hex')}`],
    );
    pathId = path.id;
    await t.db.query(`INSERT INTO program_completions (organization_id, user_id, path_id) VALUES ($1, $2, $3)`, [
      org,
      student.user.id,
      pathId,
    ]);
  }, 90_000);

  afterAll(async () => {
    await t?.close();
  });

  it('exports every kind of record as valid xAPI 1.0.3 statements, pseudonymous, with stable ids', async () => {
    const res = await admin.agent.get(url()).expect(200);
    expect(res.headers['x-experience-api-version']).toBe('1.0.3');
    expect(Object.keys(res.body).sort()).toEqual(['more', 'statements']);
    const statements: Statement[] = res.body.statements;
    for (const s of statements)
      expect({ id: s.id, problems: problems(s, t.baseUrl) }).toEqual({ id: s.id, problems: [] });
    expect(JSON.stringify(res.body)).not.toContain(student.email);
    expect(JSON.stringify(res.body)).not.toContain('Test Person');

    const base = `${t.baseUrl}/xapi/activities`;
    const summary = statements.map(
      (s) => `${s.verb.id.replace(`${ADL}/verbs/`, '')} ${s.object.id.replace(`${base}/`, '')}`,
    );
    const lesson1 = course.lessons[0].id;
    const lesson2 = course.lessons[1].id;
    expect(summary.sort()).toEqual(
      [
        `registered courses/${course.id}`,
        `failed lessons/${lesson1}/quiz`,
        `passed lessons/${lesson1}/quiz`,
        `completed lessons/${lesson1}`,
        `completed lessons/${lesson2}`,
        `completed courses/${course.id}`,
        `passed exams/${examId}`,
        `completed programs/${pathId}`,
      ].sort(),
    );
    // Ascending by stored then id.
    for (let i = 1; i < statements.length; i++) {
      const [a, b] = [statements[i - 1], statements[i]];
      expect(a.stored < b.stored || (a.stored === b.stored && a.id < b.id)).toBe(true);
    }

    const registered = statements.find((s) => s.verb.id === `${ADL}/verbs/registered`)!;
    const [enrollment] = await t.db.query(`SELECT id, enrolled_at FROM enrollments WHERE user_id = $1`, [
      student.user.id,
    ]);
    expect(registered).toEqual({
      id: uuidV5(`enrollment:${enrollment.id}`, uuidV5(t.baseUrl, URL_NAMESPACE)),
      actor: { objectType: 'Agent', account: { homePage: t.baseUrl, name: student.user.id } },
      verb: { id: `${ADL}/verbs/registered`, display: { 'en-US': 'registered', 'es-ES': expect.any(String) } },
      object: {
        objectType: 'Activity',
        id: `${base}/courses/${course.id}`,
        definition: { type: `${ADL}/activities/course`, name: { 'es-ES': 'Curso de estadística' } },
      },
      context: {
        platform: 'Learning Platform',
        language: 'es-ES',
        extensions: { [`${t.baseUrl}/xapi/extensions/organization_id`]: org },
      },
      timestamp: new Date(enrollment.enrolled_at).toISOString(),
      stored: new Date(enrollment.enrolled_at).toISOString(),
      authority: { objectType: 'Agent', account: { homePage: t.baseUrl, name: 'learning-platform' } },
      version: '1.0.3',
    });
    const failed = statements.find((s) => s.verb.id === `${ADL}/verbs/failed`)!;
    expect(failed.result).toEqual({ score: { scaled: 0, raw: 0, min: 0, max: 100 }, success: false });
    expect(failed.object.definition.type).toBe(`${ADL}/activities/assessment`);
    expect(failed.context.contextActivities).toEqual({
      parent: [
        {
          objectType: 'Activity',
          id: `${base}/courses/${course.id}`,
          definition: { type: `${ADL}/activities/course`, name: { 'es-ES': 'Curso de estadística' } },
        },
      ],
    });
    const exam = statements.find((s) => s.object.id === `${base}/exams/${examId}`)!;
    expect(exam.result).toEqual({ score: { scaled: 0.8, raw: 80, min: 0, max: 100 }, success: true });
    const lessonDone = statements.find((s) => s.object.id === `${base}/lessons/${lesson2}`)!;
    expect(lessonDone.result).toEqual({ completion: true });
    expect(lessonDone.object.definition.type).toBe(`${ADL}/activities/lesson`);
    const program = statements.find((s) => s.object.id === `${base}/programs/${pathId}`)!;
    expect(program).toMatchObject({
      result: { completion: true },
      object: { definition: { type: `${ADL}/activities/course` } },
    });

    // Stable: the same ids on every read.
    const again = await all();
    expect(again.map((s) => s.id)).toEqual(statements.map((s) => s.id));
  });

  it('filters by verb, person and stored time; an unused verb gives nothing', async () => {
    const passed = await all(`&verb=${encodeURIComponent(`${ADL}/verbs/passed`)}`);
    expect(passed.map((s) => s.verb.id)).toEqual([`${ADL}/verbs/passed`, `${ADL}/verbs/passed`]);
    const completed = await all(`&verb=${encodeURIComponent(`${ADL}/verbs/completed`)}`);
    expect(completed).toHaveLength(4);
    expect(await all(`&verb=${encodeURIComponent('http://example.com/verbs/danced')}`)).toEqual([]);
    expect(await all(`&user_id=${second.user.id}`)).toEqual([]);
    expect((await all(`&user_id=${student.user.id}`)).length).toBe(8);
    const everything = await all();
    const middle = everything[3].stored as string;
    const since = await all(`&since=${encodeURIComponent(middle)}`);
    expect(since.every((s) => s.stored > middle)).toBe(true);
    const until = await all(`&until=${encodeURIComponent(middle)}`);
    expect(until.every((s) => s.stored <= middle)).toBe(true);
    expect(since.length + until.length).toBe(everything.length);
  });

  it('pages with a keyset cursor: no gap and no duplicate, even through equal times', async () => {
    await second.agent.post(`${courseUrl()}/enroll`).expect(201);
    const quiz = course.lessons[0].quiz!;
    // 23 submissions in 5 groups of identical times, so pages must split groups of ties.
    for (let i = 0; i < 23; i++) {
      await t.db.query(
        `INSERT INTO quiz_submissions (organization_id, user_id, course_id, lesson_id, quiz_id, score, passed, answers,
           submitted_at)
         VALUES ($1, $2, $3, $4, $5, $6, $6 >= 50, '[]', '2026-01-01T00:00:00Z'::timestamptz + $7 * interval '1 minute')`,
        [org, second.user.id, course.id, course.lessons[0].id, quiz.id, (i * 7) % 101, i % 5],
      );
    }
    const everything = await all();
    expect(everything).toHaveLength(8 + 1 + 23);
    for (const limit of [1, 4, 7, 32]) {
      const seen: Statement[] = [];
      let next = `${url()}?limit=${limit}`;
      let pages = 0;
      while (next) {
        const res = await admin.agent.get(next).expect(200);
        expect(res.body.statements.length).toBeLessThanOrEqual(limit);
        seen.push(...res.body.statements);
        next = res.body.more;
        if (next) expect(next).toMatch(new RegExp(`^/api/v1/organizations/${org}/xapi/statements\\?`));
        pages++;
        expect(pages).toBeLessThan(100);
      }
      expect({ limit, ids: seen.map((s) => s.id) }).toEqual({ limit, ids: everything.map((s) => s.id) });
      expect(pages).toBe(Math.ceil(everything.length / limit));
    }
    // Filters travel with the cursor.
    const first = await admin.agent
      .get(`${url()}?limit=2&user_id=${second.user.id}&verb=${encodeURIComponent(`${ADL}/verbs/failed`)}`)
      .expect(200);
    expect(first.body.more).toContain(`user_id=${second.user.id}`);
    expect(first.body.more).toContain('verb=');
    const following = await admin.agent.get(first.body.more).expect(200);
    for (const s of [...first.body.statements, ...following.body.statements]) {
      expect(s.actor.account.name).toBe(second.user.id);
      expect(s.verb.id).toBe(`${ADL}/verbs/failed`);
    }
  });

  it('answers 422 for a bad cursor, verb, limit or time', async () => {
    for (const query of [
      'cursor=nope',
      `cursor=${Buffer.from('{"s":"x","i":"y"}').toString('base64url')}`,
      'verb=not%20an%20iri',
      'verb=completed',
      'limit=0',
      'limit=501',
      'since=yesterday',
      'user_id=nope',
    ]) {
      const res = await admin.agent.get(`${url()}?${query}`);
      expect({ query, status: res.status, code: res.body.error?.code }).toEqual({
        query,
        status: 422,
        code: 'validation_error',
      });
    }
    const max = await admin.agent.get(`${url()}?limit=500`).expect(200);
    expect(max.body.more).toBe('');
  });

  it('is for owners and admins of the organization (personal tokens welcome)', async () => {
    await owner.agent.get(url()).expect(200);
    await teacher.agent.get(url()).expect(403);
    await student.agent.get(url()).expect(403);
    await ownerB.agent.get(url()).expect(404);
    expect((await ownerB.agent.get(url(orgB)).expect(200)).body).toEqual({ statements: [], more: '' });
    const token = await personalToken(t, admin, org, 'read');
    const viaToken = await bearer(t, token).get(url()).expect(200);
    expect(viaToken.body.statements.length).toBeGreaterThan(0);
    const tokenB = await personalToken(t, ownerB, orgB, 'read');
    await bearer(t, tokenB).get(url()).expect(404);
  });
});
