import { DataSource } from 'typeorm';
import { InvalidationBus } from '@/core/cache/invalidation-bus';
import { LessonPassagesService } from '@/modules/learning/courses';
import { EditorService } from '@/modules/learning/editor';
import { UsersRepository } from '@/modules/identity/users/testing';
import { backfillLessonChunks } from '../../../migrations/1763758000000-LessonChunks';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import type { SignedIn } from '../../support/auth';
import { postSse, type SseAnswer, signInWithCookie, type SignedInWithCookie } from '../../support/sse';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { PYTHON_LESSONS } from '../../support/tutor-fixtures';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const tokens = (text: string): number => Math.ceil(Buffer.byteLength(text, 'utf8') / 4);

describe('tutor with the local provider', () => {
  let t: TestApp;
  let author: SignedIn;
  let owner: SignedIn;
  let orgA: string;
  let orgB: string;
  let learner: SignedInWithCookie;
  let python: MadeCourse;
  let shopping: MadeCourse;

  const base = (org = orgA): string => `/api/v1/organizations/${org}/tutor/conversations`;
  const enroll = async (s: SignedIn, c: MadeCourse, org = orgA): Promise<void> => {
    const res = await s.agent.post(`/api/v1/organizations/${org}/courses/${c.id}/enroll`);
    expect([200, 201]).toContain(res.status);
  };
  const start = async (s: SignedIn, body: object, org = orgA): Promise<string> =>
    (await s.agent.post(base(org)).send(body).expect(201)).body.id as string;
  const ask = (s: SignedIn, conversationId: string, content: string, org = orgA): Promise<SseAnswer> =>
    postSse(s.agent, `${base(org)}/${conversationId}/messages`, { content });
  async function student(org = orgA): Promise<SignedInWithCookie> {
    const s = await signInWithCookie(t);
    await addMember(t, org, s.user.id, 'student');
    return s;
  }
  const text = (answer: SseAnswer): string =>
    answer.events
      .filter((e) => e.event === 'delta')
      .map((e) => e.data.text as string)
      .join('');

  beforeAll(async () => {
    t = await createTestApp();
    author = await adult(t);
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Org A');
    const ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
    python = await makeCourse(t, author.user.id, { title: 'Python basics', lessons: PYTHON_LESSONS });
    shopping = await makeCourse(t, author.user.id, {
      title: 'Shopping well',
      lessons: [
        {
          title: 'Lists',
          content_md: 'A shopping list helps you add every item you need before you go. Add an item to your list.',
        },
      ],
    });
    learner = await student();
    await enroll(learner, python);
    await enroll(learner, shopping);
  });
  afterAll(() => t.close());

  describe('conversations', () => {
    it('201 with the conversation; listed, read and deleted by its author only', async () => {
      const created = await learner.agent
        .post(base())
        .send({ course_id: python.id, lesson_id: python.lessons[1].id })
        .expect(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(UUID),
        course_id: python.id,
        lesson_id: python.lessons[1].id,
        title: null,
        messages_count: 0,
        created_at: expect.stringMatching(ISO),
        updated_at: created.body.created_at,
      });
      const read = await learner.agent.get(`${base()}/${created.body.id}`).expect(200);
      expect(read.body).toEqual({ ...created.body, messages: [] });

      const other = await student();
      await enroll(other, python);
      expect((await other.agent.get(`${base()}/${created.body.id}`).expect(404)).body.error.code).toBe('not_found');
      expect((await other.agent.delete(`${base()}/${created.body.id}`).expect(404)).body.error.code).toBe('not_found');
      const theirs = await other.agent.get(base()).expect(200);
      expect(theirs.body.items.map((c: { id: string }) => c.id)).not.toContain(created.body.id);
      // Not even the organization's owner reads it.
      await owner.agent.get(`${base()}/${created.body.id}`).expect(404);

      await learner.agent.delete(`${base()}/${created.body.id}`).expect(204);
      await learner.agent.get(`${base()}/${created.body.id}`).expect(404);
      await learner.agent.delete(`${base()}/${created.body.id}`).expect(404);
    });

    it('lists the caller’s conversations, most recently updated first, filtered by course', async () => {
      const s = await student();
      await enroll(s, python);
      await enroll(s, shopping);
      const a = await start(s, { course_id: python.id });
      const b = await start(s, { course_id: shopping.id });
      const c = await start(s, { course_id: python.id });
      await ask(s, a, 'What is a variable?'); // a is now the most recently updated
      const all = await s.agent.get(base()).expect(200);
      expect(all.body).toMatchObject({ total: 3, limit: 50, offset: 0 });
      expect(all.body.items.map((x: { id: string }) => x.id)).toEqual([a, c, b]);
      expect(all.body.items[0]).toMatchObject({ title: 'What is a variable?', messages_count: 2 });
      const onlyPython = await s.agent.get(base()).query({ course_id: python.id, limit: 1 }).expect(200);
      expect(onlyPython.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
      expect(onlyPython.body.items.map((x: { id: string }) => x.id)).toEqual([a]);
      await s.agent.get(base()).query({ course_id: 'nope' }).expect(422);
      await s.agent.get(base()).query({ limit: 201 }).expect(422);
    });

    it('403 not_enrolled for a course of the catalog the caller is not enrolled in; 404 for what they cannot reach', async () => {
      const s = await student();
      const res = await s.agent.post(base()).send({ course_id: python.id }).expect(403);
      expect(res.body.error.code).toBe('not_enrolled');
      const draft = await makeCourse(t, author.user.id, { title: 'Draft', publish: false });
      const forB = await makeCourse(t, author.user.id, {
        title: 'Only for B',
        visibility: 'restricted',
        organization_ids: [orgB],
      });
      for (const c of [draft, forB]) {
        expect((await s.agent.post(base()).send({ course_id: c.id }).expect(404)).body.error.code).toBe('not_found');
      }
      await s.agent.post(base()).send({ course_id: '00000000-0000-4000-8000-000000000000' }).expect(404);
      // A lesson of another course.
      await enroll(s, python);
      await s.agent.post(base()).send({ course_id: python.id, lesson_id: shopping.lessons[0].id }).expect(404);
    });

    it('422 for bad input, and nothing is created', async () => {
      const before = await t.db.query(`SELECT count(*)::int AS n FROM tutor_conversations`);
      for (const body of [
        {},
        { course_id: 'x' },
        { course_id: python.id, lesson_id: 5 },
        { course_id: python.id, x: 1 },
      ]) {
        const res = await learner.agent.post(base()).send(body).expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
      expect(await t.db.query(`SELECT count(*)::int AS n FROM tutor_conversations`)).toEqual(before);
    });

    it('a path id that is not a UUID is 404', async () => {
      await learner.agent.get(`${base()}/not-a-uuid`).expect(404);
      await learner.agent.delete(`${base()}/not-a-uuid`).expect(404);
      const res = await ask(learner, 'not-a-uuid', 'hi');
      expect([res.status, res.body.error.code]).toEqual([404, 'not_found']);
    });
  });

  describe('answers (server-sent events)', () => {
    it('streams start, one delta per line, a citation when each marker appears, then done with the usage', async () => {
      const id = await start(learner, { course_id: python.id });
      const question = 'How do I add an item to a list?';
      const answer = await ask(learner, id, question);
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toBe('text/event-stream; charset=utf-8');
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(answer.headers['x-accel-buffering']).toBe('no');
      const { events } = answer;
      expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
      expect(events[0]).toEqual({
        id: 1,
        event: 'start',
        data: {
          conversation_id: id,
          user_message_id: expect.stringMatching(UUID),
          assistant_message_id: expect.stringMatching(UUID),
          provider: 'local',
          model: 'local-extractive-1',
        },
      });
      expect(events.at(-1)!.event).toBe('done');
      const deltas = events.filter((e) => e.event === 'delta').map((e) => e.data.text as string);
      const lines = text(answer).split('\n');
      expect(deltas).toHaveLength(lines.length);
      expect(lines[0]).toBe('Here is what the course says about your question:');
      expect(lines.at(-1)).toBe('(Extractive answer: verbatim quotes from the course, no generative AI.)');
      // The best passage is the lesson about lists: its two sentences with most question words (3: add, item, list;
      // 2: how, list), verbatim with the Markdown stripped.
      expect(lines[1]).toBe(
        '- You add an item to the end of a list with the append method. The len function returns how many items a ' +
          'list holds. [1]',
      );
      // Each citation right after the delta where its marker first appears.
      const citations = events.filter((e) => e.event === 'citation');
      // Two lessons mention lists and items: lists, then loops.
      expect(citations.map((c) => c.data.index)).toEqual([1, 2]);
      expect(citations.map((c) => c.data.lesson_id)).toEqual([python.lessons[1].id, python.lessons[2].id]);
      expect(lines).toHaveLength(4);
      for (const c of citations) {
        const delta = events[events.indexOf(c) - 1];
        expect(['delta', 'citation']).toContain(delta.event);
      }
      expect(citations[0].data).toEqual({
        index: 1,
        lesson_id: python.lessons[1].id,
        lesson_title: 'Lists',
        lesson_position: 2,
        chunk_id: expect.stringMatching(UUID),
        snippet:
          'Lists. A list is an ordered, mutable sequence of values written between square brackets. Lists can hold ' +
          'values of different types. You add an item to the end of a list with the append method. The len function ' +
          'returns how many items a list holds.',
        url: `http://web.test/courses/${python.slug}/lessons/${python.lessons[1].id}`,
      });
      // Tokens estimated at 4 bytes each: in, the question and the quoted passages; out, the answer.
      const chunks: { id: string; text: string }[] = await t.db.query(
        `SELECT id, text FROM lesson_chunks WHERE id = ANY($1::uuid[])`,
        [citations.map((c) => c.data.chunk_id)],
      );
      const quoted = citations.map((c) => chunks.find((ch) => ch.id === c.data.chunk_id)!.text);
      const done = events.at(-1)!.data;
      expect(done).toEqual({
        message_id: events[0].data.assistant_message_id,
        usage: { input_tokens: tokens([question, ...quoted].join('\n')), output_tokens: tokens(text(answer)) },
        provider: 'local',
        model: 'local-extractive-1',
        finish_reason: 'stop',
      });

      // Stored: the question and the answer with its citations; metered once, with the request id.
      const read = (await learner.agent.get(`${base()}/${id}`).expect(200)).body;
      expect(read).toMatchObject({ title: question, messages_count: 2 });
      expect(read.messages).toEqual([
        {
          id: events[0].data.user_message_id,
          role: 'user',
          content: question,
          citations: [],
          status: 'complete',
          usage: null,
          provider: null,
          model: null,
          created_at: expect.stringMatching(ISO),
        },
        {
          id: done.message_id,
          role: 'assistant',
          content: text(answer),
          citations: citations.map((c) => c.data),
          status: 'complete',
          usage: done.usage,
          provider: 'local',
          model: 'local-extractive-1',
          created_at: expect.stringMatching(ISO),
        },
      ]);
      const metered = await t.db.query(
        `SELECT organization_id, user_id, feature, provider, model, input_tokens, output_tokens, status, request_id
         FROM ai_usage WHERE user_id = $1 ORDER BY occurred_at DESC LIMIT 1`,
        [learner.user.id],
      );
      expect(metered).toEqual([
        {
          organization_id: orgA,
          user_id: learner.user.id,
          feature: 'tutor',
          provider: 'local',
          model: 'local-extractive-1',
          input_tokens: done.usage.input_tokens,
          output_tokens: done.usage.output_tokens,
          status: 'ok',
          request_id: answer.headers['x-request-id'],
        },
      ]);
    });

    it("cites passages of the conversation's course only, though another course the learner follows matches too", async () => {
      const id = await start(learner, { course_id: python.id });
      const answer = await ask(learner, id, 'add an item to my shopping list');
      const lessonIds = answer.events.filter((e) => e.event === 'citation').map((e) => e.data.lesson_id);
      expect(lessonIds.length).toBeGreaterThan(0);
      const pythonLessons = python.lessons.map((l) => l.id);
      for (const lessonId of lessonIds) expect(pythonLessons).toContain(lessonId);
      const other = await start(learner, { course_id: shopping.id });
      const fromShopping = await ask(learner, other, 'add an item to my shopping list');
      expect(fromShopping.events.filter((e) => e.event === 'citation').map((e) => e.data.lesson_id)).toEqual([
        shopping.lessons[0].id,
      ]);
    });

    it("declines with a fixed sentence in the learner's language when nothing relevant is found: no citation, 0 tokens", async () => {
      const id = await start(learner, { course_id: python.id });
      const answer = await ask(learner, id, 'Tell me about photosynthesis in chloroplasts');
      expect(answer.events.map((e) => e.event)).toEqual(['start', 'delta', 'done']);
      expect(answer.events[0].data).toMatchObject({ provider: 'local' });
      expect(text(answer)).toBe(
        "I can't find this in the course. Try asking in another way, or have a look at the lessons.",
      );
      expect(answer.events[2].data).toMatchObject({
        usage: { input_tokens: 0, output_tokens: 0 },
        finish_reason: 'stop',
      });
      const [row] = await t.db.query(`SELECT input_tokens, output_tokens, status FROM ai_usage WHERE request_id = $1`, [
        answer.headers['x-request-id'],
      ]);
      expect(row).toEqual({ input_tokens: 0, output_tokens: 0, status: 'ok' });
      // Only stop words: nothing to look for either.
      const es = await signInWithCookie(t);
      await es.agent.patch('/api/v1/me/profile').send({ locale: 'es' }).expect(200);
      await addMember(t, orgA, es.user.id, 'student');
      await enroll(es, python);
      const esId = await start(es, { course_id: python.id });
      const esAnswer = await ask(es, esId, 'the and of');
      expect(text(esAnswer)).toBe(
        'No encuentro esto en el curso. Prueba a preguntarlo de otra forma o revisa las lecciones.',
      );
    });

    it('answers a Spanish course in Spanish, matching words by stem and without accents', async () => {
      const curso = await makeCourse(t, author.user.id, {
        title: 'Programación',
        language: 'es',
        lessons: [
          { title: 'Funciones', content_md: 'Una función agrupa instrucciones. Las funciones reciben parámetros.' },
          { title: 'Bucles', content_md: 'Un bucle repite instrucciones.' },
        ],
      });
      await enroll(learner, curso);
      const id = await start(learner, { course_id: curso.id });
      const answer = await ask(learner, id, '¿qué es una funcion?');
      const lines = text(answer).split('\n');
      expect(lines[0]).toBe('Esto es lo que dice el curso sobre tu pregunta:');
      expect(lines[1]).toBe('- Una función agrupa instrucciones. [1]');
      expect(lines.at(-1)).toBe('(Respuesta extractiva: citas literales del curso, sin IA generativa.)');
    });

    it("409 tutor_busy while the conversation answers; the slot frees itself once the answer's lease is over", async () => {
      const id = await start(learner, { course_id: python.id });
      await t.db.query(`UPDATE tutor_conversations SET answering_until = $2 WHERE id = $1`, [
        id,
        new Date(t.clock.nowMs() + 60_000),
      ]);
      const busy = await ask(learner, id, 'What is a list?');
      expect([busy.status, busy.body.error.code]).toEqual([409, 'tutor_busy']);
      t.clock.advance(61_000);
      try {
        const answered = await ask(learner, id, 'What is a list?');
        expect(answered.status).toBe(200);
      } finally {
        t.clock.advance(-61_000);
      }
      const [row] = await t.db.query(`SELECT answering_until FROM tutor_conversations WHERE id = $1`, [id]);
      expect(row.answering_until).toBeNull();
    });

    it('403 not_enrolled once the enrollment is gone; 422 for an empty or too long question, nothing stored', async () => {
      const s = await student();
      await enroll(s, python);
      const id = await start(s, { course_id: python.id });
      for (const content of ['', '   ', 'x'.repeat(4001)]) {
        const res = await ask(s, id, content);
        expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      }
      expect((await s.agent.get(`${base()}/${id}`).expect(200)).body.messages_count).toBe(0);
      expect((await ask(s, id, 'x'.repeat(4000))).status).toBe(200);
      await t.db.query(`DELETE FROM enrollments WHERE user_id = $1 AND course_id = $2`, [s.user.id, python.id]);
      const res = await ask(s, id, 'What is a list?');
      expect([res.status, res.body.error.code]).toEqual([403, 'not_enrolled']);
    });

    it('20 messages per minute per account, then 429 too_many_requests with Retry-After', async () => {
      const s = await student();
      await enroll(s, python);
      const id = await start(s, { course_id: python.id });
      for (let i = 0; i < 20; i++) expect((await ask(s, id, `What is a list? (${i})`)).status).toBe(200);
      const refused = await ask(s, id, 'One more?');
      expect([refused.status, refused.body.error.code]).toEqual([429, 'too_many_requests']);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect((await s.agent.get(`${base()}/${id}`).expect(200)).body.messages_count).toBe(40);
    });
  });

  describe('organization switches and minors', () => {
    it('tutor off: 404 feature_disabled to start or ask; conversations stay readable', async () => {
      const ownerC = await adult(t);
      const orgC = await createOrganization(t, ownerC, 'Org C');
      const s = await student(orgC);
      await enroll(s, python, orgC);
      const id = await start(s, { course_id: python.id }, orgC);
      await ownerC.agent.put(`/api/v1/organizations/${orgC}/ai-settings`).send({ tutor_enabled: false }).expect(200);
      const create = await s.agent.post(base(orgC)).send({ course_id: python.id }).expect(404);
      expect(create.body.error.code).toBe('feature_disabled');
      const message = await ask(s, id, 'What is a list?', orgC);
      expect([message.status, message.body.error.code]).toEqual([404, 'feature_disabled']);
      await s.agent.get(`${base(orgC)}/${id}`).expect(200);
      await s.agent.get(base(orgC)).expect(200);
      await ownerC.agent.put(`/api/v1/organizations/${orgC}/ai-settings`).send({ tutor_enabled: true }).expect(200);
      expect((await ask(s, id, 'What is a list?', orgC)).status).toBe(200);
    });

    it("a minor without guardian consent: 403 guardian_consent_required on the tutor's writes; reads pass", async () => {
      const minor = await student();
      await enroll(minor, python);
      const id = await start(minor, { course_id: python.id });
      await t.app.get(UsersRepository).update(minor.user.id, { ageBracket: 'under_18' }, t.clock.now());
      const create = await minor.agent.post(base()).send({ course_id: python.id }).expect(403);
      expect(create.body.error.code).toBe('guardian_consent_required');
      const message = await ask(minor, id, 'What is a list?');
      expect([message.status, message.body.error.code]).toEqual([403, 'guardian_consent_required']);
      expect((await minor.agent.delete(`${base()}/${id}`).expect(403)).body.error.code).toBe(
        'guardian_consent_required',
      );
      await minor.agent.get(base()).expect(200);
      await minor.agent.get(`${base()}/${id}`).expect(200);
    });

    it('a read-only token may read conversations, not write (credential_read_only)', async () => {
      const s = await student();
      const token = await personalToken(t, s, orgA, 'read');
      await bearer(t, token).get(base()).expect(200);
      const res = await bearer(t, token).post(base()).send({ course_id: python.id }).expect(403);
      expect(res.body.error.code).toBe('credential_read_only');
    });
  });

  describe('retrieval (extensions-v2 23.2)', () => {
    const retrieve = (
      who: { organizationId: string; userId: string },
      courseId: string,
      question: string,
      lessonId: string | null = null,
    ) => t.app.get(LessonPassagesService).forLearner(who, { courseId, lessonId, question, limit: 6 });

    it('ranks the passages of the course by relevance; the conversation lesson weighs 1.5 times', async () => {
      const me = { organizationId: orgA, userId: learner.user.id };
      const found = await retrieve(me, python.id, 'list item');
      expect(found[0]).toMatchObject({ lesson_id: python.lessons[1].id, lesson_title: 'Lists', lesson_position: 2 });
      expect(found.every((p) => p.course_id === python.id && p.rank > 0)).toBe(true);
      expect(found.map((p) => p.rank)).toEqual([...found.map((p) => p.rank)].sort((a, b) => b - a));
      // "loop" appears in the loops lesson only: the boost cannot bring in what does not match...
      const loops = await retrieve(me, python.id, 'loop', python.lessons[1].id);
      expect(loops.map((p) => p.lesson_id)).toEqual([python.lessons[2].id]);
      // ...but decides between matches: "list" in both lists and loops lessons.
      const plain = await retrieve(me, python.id, 'sequence');
      const boosted = await retrieve(me, python.id, 'sequence', python.lessons[2].id);
      expect(plain.map((p) => p.lesson_position)).toEqual([2, 3]);
      expect(boosted.map((p) => p.lesson_position)).toEqual([3, 2]);
      expect(boosted[0].rank).toBeCloseTo(plain[1].rank * 1.5, 5);
    });

    it('ties by lesson position, then passage position; at most 6', async () => {
      const same = 'Tortoises walk slowly.';
      const course = await makeCourse(t, author.user.id, {
        title: 'Ties',
        lessons: Array.from({ length: 8 }, (_, i) => ({ title: `Part ${i + 1}`, content_md: same })),
      });
      await enroll(learner, course);
      const found = await retrieve({ organizationId: orgA, userId: learner.user.id }, course.id, 'tortoise');
      expect(found.map((p) => p.lesson_position)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('finds nothing for someone not enrolled, or in an organization that cannot see the course', async () => {
      const s = await student();
      expect(await retrieve({ organizationId: orgA, userId: s.user.id }, python.id, 'list')).toEqual([]);
      const forB = await makeCourse(t, author.user.id, {
        title: 'B only',
        visibility: 'restricted',
        organization_ids: [orgB],
        lessons: [{ title: 'Lists', content_md: 'A list of things.' }],
      });
      expect(await retrieve({ organizationId: orgA, userId: learner.user.id }, forB.id, 'list')).toEqual([]);
    });
  });

  describe('passages maintained by the editor', () => {
    const chunksOf = (lessonId: string): Promise<{ id: string; position: number; text: string; language: string }[]> =>
      t.db.query(`SELECT id, position, text, language FROM lesson_chunks WHERE lesson_id = $1 ORDER BY position`, [
        lessonId,
      ]);
    const long = (word: string): string => `${`${word} `.repeat(150).trim()}.`;

    it('written with the lesson, rewritten when its content or title changes (unchanged passages keep their ids)', async () => {
      const editor = t.app.get(EditorService);
      const course = await makeCourse(t, author.user.id, {
        title: 'Chunks',
        lessons: [
          { title: 'Birds', content_md: `${long('sparrow')}\n\n${long('eagle')}` },
          { title: 'Other', content_md: 'Something else.' },
        ],
      });
      const lessonId = course.lessons[0].id;
      const before = await chunksOf(lessonId);
      expect(before.map((c) => c.text.split(' ')[0])).toEqual(['sparrow', 'eagle']);
      expect(before.every((c) => c.language === 'en')).toBe(true);

      await editor.updateLesson(course.id, lessonId, { content_md: `${long('sparrow')}\n\n${long('falcon')}` });
      const after = await chunksOf(lessonId);
      expect(after[0].id).toBe(before[0].id);
      expect(after[1].id).not.toBe(before[1].id);
      await enroll(learner, course);
      const me = { organizationId: orgA, userId: learner.user.id };
      const retrieve = (q: string) =>
        t.app.get(LessonPassagesService).forLearner(me, { courseId: course.id, lessonId: null, question: q, limit: 6 });
      expect(await retrieve('eagle')).toEqual([]);
      expect((await retrieve('falcons')).map((p) => p.chunk_id)).toEqual([after[1].id]);

      // The title is in every passage's vector.
      await editor.updateLesson(course.id, lessonId, { title: 'Raptors' });
      expect((await retrieve('raptor')).length).toBe(2);
      expect((await chunksOf(lessonId)).map((c) => c.id)).toEqual(after.map((c) => c.id));

      // The course's language becomes the passages' language (Spanish stems now).
      await editor.update(course.id, { language: 'es' }, author.user.id);
      expect((await chunksOf(lessonId)).every((c) => c.language === 'es')).toBe(true);

      await editor.updateLesson(course.id, lessonId, { content_md: '' });
      expect(await chunksOf(lessonId)).toEqual([]);
      await editor.updateLesson(course.id, lessonId, { content_md: 'Back.' });
      expect(await chunksOf(lessonId)).toHaveLength(1);
      await editor.deleteLesson(course.id, lessonId);
      expect(await chunksOf(lessonId)).toEqual([]);
    });

    it('the migration backfills lessons written before passages existed', async () => {
      const course = await makeCourse(t, author.user.id, {
        title: 'Backfill',
        lessons: [{ title: 'Old', content_md: 'Written long ago about owls.' }],
      });
      const lessonId = course.lessons[0].id;
      const written = await chunksOf(lessonId);
      await t.db.query(`DELETE FROM lesson_chunks WHERE lesson_id = $1`, [lessonId]);
      const runner = t.app.get(DataSource).createQueryRunner();
      try {
        expect(await backfillLessonChunks(runner)).toBeGreaterThan(0);
      } finally {
        await runner.release();
      }
      expect(await chunksOf(lessonId)).toEqual(written);
    });
  });

  it('the organization usage shows the month’s AI requests and tokens against the plan limits', async () => {
    await t.db.query(`UPDATE organizations SET ai_monthly_tokens = 1000000, ai_monthly_requests = 5000 WHERE id = $1`, [
      orgA,
    ]);
    await t.app.get(InvalidationBus).publish('organization', orgA);
    const [spent] = await t.db.query(
      `SELECT count(*)::int AS requests, sum(input_tokens + output_tokens)::int AS tokens FROM ai_usage
       WHERE organization_id = $1`,
      [orgA],
    );
    const usage = (await owner.agent.get(`/api/v1/organizations/${orgA}/usage`).expect(200)).body;
    const now = t.clock.now();
    expect(usage.ai).toEqual({
      requests_used: spent.requests,
      requests_limit: 5000,
      tokens_used: spent.tokens,
      tokens_limit: 1000000,
      resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
    });
    const org = (await owner.agent.get(`/api/v1/organizations/${orgA}`).expect(200)).body;
    expect(org.limits).toEqual({ member_limit: null, ai_monthly_tokens: 1000000, ai_monthly_requests: 5000 });
  });
});
