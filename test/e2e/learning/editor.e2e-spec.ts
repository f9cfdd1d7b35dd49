import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { JSDOM } from 'jsdom';
import type TestAgent from 'supertest/lib/agent';
import { signIn, type SignedIn } from '../../support/auth';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const COURSE_KEYS = [
  'created_at',
  'description_md',
  'estimated_minutes',
  'id',
  'issues_certificate',
  'language',
  'lessons',
  'lessons_count',
  'level',
  'organization_ids',
  'published_at',
  'slug',
  'status',
  'summary',
  'tags',
  'title',
  'updated_at',
  'visibility',
];
const BASE = '/api/v1/editor/courses';

const quiz = (over: object = {}) => ({
  passing_score: 60,
  questions: [
    {
      prompt: 'Capital of France?',
      kind: 'single',
      options: [
        { text: 'Paris', correct: true },
        { text: 'Lyon', correct: false },
      ],
      explanation: 'Paris.',
    },
  ],
  ...over,
});
const question = (kind: string, options: { text: string; correct: boolean }[]) => ({ prompt: 'Q?', kind, options });

describe('editor', () => {
  let t: TestApp;
  let editor: SignedIn;
  let ed: TestAgent;
  let plain: SignedIn;
  let orgA: string;
  let titleCounter = 0;

  const uniqueTitle = (prefix = 'Course') => `${prefix} ${++titleCounter} ${t.suffix}`;
  async function course(body: object = {}): Promise<{ id: string; slug: string; [k: string]: unknown }> {
    const res = await ed
      .post(BASE)
      .send({ title: uniqueTitle(), language: 'en', level: 'beginner', ...body })
      .expect(201);
    return res.body;
  }
  async function lesson(
    courseId: string,
    body: object = {},
  ): Promise<{ id: string; position: number; [k: string]: unknown }> {
    const res = await ed
      .post(`${BASE}/${courseId}/lessons`)
      .send({ title: 'A lesson', ...body })
      .expect(201);
    return res.body;
  }
  async function titles(courseId: string): Promise<string[]> {
    const res = await ed.get(`${BASE}/${courseId}`).expect(200);
    expect(res.body.lessons.map((l: { position: number }) => l.position)).toEqual(
      res.body.lessons.map((_: unknown, i: number) => i + 1),
    );
    return res.body.lessons.map((l: { title: string }) => l.title);
  }
  async function audits(
    courseId: string,
  ): Promise<{ action: string; organization_id: string | null; actor_id: string }[]> {
    return t.db.query(
      `SELECT action, organization_id, actor_id, metadata FROM audit_log WHERE target_id = $1 ORDER BY created_at, action`,
      [courseId],
    );
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'editor@platform.test' } });
    editor = await signIn(t, 'editor@platform.test');
    ed = editor.agent;
    plain = await adult(t);
    orgA = await createOrganization(t, plain, 'Org A');
  });
  afterAll(() => t.close());

  describe('access', () => {
    it('401 without a credential and 403 forbidden without the editor role, on every editor operation', async () => {
      const id = (await course()).id;
      const ops: ['get' | 'post' | 'patch' | 'delete', string, object?][] = [
        ['post', BASE, { title: 'x', language: 'en', level: 'beginner' }],
        ['get', BASE],
        ['get', `${BASE}/${id}`],
        ['patch', `${BASE}/${id}`, { title: 'y' }],
        ['delete', `${BASE}/${id}`],
        ['post', `${BASE}/${id}/publish`],
        ['post', `${BASE}/${id}/unpublish`],
        ['post', `${BASE}/${id}/lessons`, { title: 'l' }],
        ['patch', `${BASE}/${id}/lessons/${id}`, { title: 'l' }],
        ['delete', `${BASE}/${id}/lessons/${id}`],
        ['post', '/api/v1/editor/seo/rebuild-all'],
      ];
      for (const [method, path, body] of ops) {
        const anon = await t.client()[method](path).send(body);
        expect([method, path, anon.status, anon.body.error.code]).toEqual([method, path, 401, 'unauthorized']);
        const res = await plain.agent[method](path).send(body);
        expect([method, path, res.status, res.body.error.code]).toEqual([method, path, 403, 'forbidden']);
      }
      await ed.get(`${BASE}/${id}`).expect(200);
    });
  });

  describe('courses', () => {
    it('creates a draft (201) with the documented shape and a slug derived from the title', async () => {
      const res = await ed
        .post(BASE)
        .send({
          title: `  Introducción a la Programación ${t.suffix} `,
          summary: ' Un resumen ',
          description_md: '# Hola',
          language: 'es',
          level: 'intermediate',
          tags: [' Python ', 'PYTHON', 'Datos'],
          issues_certificate: true,
          estimated_minutes: 90,
        })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(COURSE_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        slug: `introduccion-a-la-programacion-${t.suffix}`,
        title: `Introducción a la Programación ${t.suffix}`,
        summary: 'Un resumen',
        description_md: '# Hola',
        language: 'es',
        level: 'intermediate',
        tags: ['python', 'datos'],
        visibility: 'public',
        organization_ids: [],
        status: 'draft',
        issues_certificate: true,
        estimated_minutes: 90,
        lessons_count: 0,
        lessons: [],
        published_at: null,
        created_at: expect.stringMatching(ISO),
        updated_at: expect.stringMatching(ISO),
      });
      expect((await audits(res.body.id)).map((a) => [a.action, a.organization_id, a.actor_id])).toEqual([
        ['course.created', null, editor.user.id],
      ]);
    });

    it('numbers a derived slug that is taken; a given slug that is taken is 409 slug_taken', async () => {
      const title = `Same Title ${t.suffix}`;
      const first = await course({ title });
      const second = await course({ title });
      const third = await course({ title });
      expect([first.slug, second.slug, third.slug]).toEqual([
        `same-title-${t.suffix}`,
        `same-title-${t.suffix}-2`,
        `same-title-${t.suffix}-3`,
      ]);
      const res = await ed
        .post(BASE)
        .send({ title: 'Other', slug: first.slug, language: 'en', level: 'beginner' })
        .expect(409);
      expect(res.body.error.code).toBe('slug_taken');
      const own = await course({ slug: `my-own-slug-${t.suffix}` });
      expect(own.slug).toBe(`my-own-slug-${t.suffix}`);
    });

    it('validates every field at its limits (exactly at and one past)', async () => {
      const ok = { title: 'T', language: 'en', level: 'beginner' };
      const accepted: object[] = [
        { title: 'x'.repeat(200) },
        { summary: 's'.repeat(500) },
        { description_md: 'd'.repeat(20000) },
        { tags: Array.from({ length: 20 }, (_, i) => `tag${i}`) },
        { tags: ['t'.repeat(40)] },
        { estimated_minutes: 100000 },
        { estimated_minutes: 0 },
        { slug: `abc-${t.suffix}` },
        { slug: `${'a'.repeat(72)}-${t.suffix.slice(0, 7)}` },
      ];
      for (const body of accepted) {
        const res = await ed.post(BASE).send({ ...ok, ...body });
        expect([JSON.stringify(body).slice(0, 60), res.status]).toEqual([JSON.stringify(body).slice(0, 60), 201]);
      }
      const refused: [object, string][] = [
        [{ title: 'x'.repeat(201) }, 'title'],
        [{ title: '   ' }, 'title'],
        [{ title: undefined }, 'title'],
        [{ summary: 's'.repeat(501) }, 'summary'],
        [{ summary: null }, 'summary'],
        [{ description_md: 'd'.repeat(20001) }, 'description_md'],
        [{ language: 'fr' }, 'language'],
        [{ level: 'expert' }, 'level'],
        [{ tags: Array.from({ length: 21 }, (_, i) => `tag${i}`) }, 'tags'],
        [{ tags: ['t'.repeat(41)] }, 'tags'],
        [{ tags: ['  '] }, 'tags'],
        [{ tags: 'python' }, 'tags'],
        [{ visibility: 'secret' }, 'visibility'],
        [{ organization_ids: ['nope'] }, 'organization_ids'],
        [{ issues_certificate: 'yes' }, 'issues_certificate'],
        [{ estimated_minutes: 100001 }, 'estimated_minutes'],
        [{ estimated_minutes: -1 }, 'estimated_minutes'],
        [{ estimated_minutes: 1.5 }, 'estimated_minutes'],
        [{ slug: 'ab' }, 'slug'],
        [{ slug: 'a'.repeat(81) }, 'slug'],
        [{ slug: 'Upper-Case' }, 'slug'],
        [{ slug: 'double--hyphen' }, 'slug'],
        [{ slug: '-leading' }, 'slug'],
        [{ slug: '123e4567-e89b-12d3-a456-426614174000' }, 'slug'],
        [{ color: 'red' }, 'color'],
      ];
      for (const [body, field] of refused) {
        const res = await ed.post(BASE).send({ ...ok, ...body });
        expect([field, res.status, res.body.error.code]).toEqual([field, 422, 'validation_error']);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
    });

    it('restricted needs existing organizations; the list is stored and echoed', async () => {
      const none = await ed
        .post(BASE)
        .send({ title: 'R', language: 'en', level: 'beginner', visibility: 'restricted' })
        .expect(422);
      expect(none.body.error.details).toEqual([{ field: 'organization_ids', message: expect.any(String) }]);
      const unknown = await ed
        .post(BASE)
        .send({
          title: 'R',
          language: 'en',
          level: 'beginner',
          visibility: 'restricted',
          organization_ids: ['6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11'],
        })
        .expect(422);
      expect(unknown.body.error.details[0].field).toBe('organization_ids');
      const created = await course({ visibility: 'restricted', organization_ids: [orgA.toUpperCase(), orgA] });
      expect([created.visibility, created.organization_ids]).toEqual(['restricted', [orgA]]);
    });

    it('reads a course (404 for unknown ids and non-ids) and lists with status and q filters and paging limits', async () => {
      await ed.get(`${BASE}/6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11`).expect(404);
      await ed.get(`${BASE}/not-a-uuid`).expect(404);
      const marker = `zebra${t.suffix}`;
      const draft = await course({ title: `Draft about ${marker}` });
      const published = await course({ title: `Published ${t.suffix}`, summary: `mentions ${marker}` });
      await lesson(published.id);
      await ed.post(`${BASE}/${published.id}/publish`).expect(200);
      const byQ = await ed.get(BASE).query({ q: marker }).expect(200);
      expect(byQ.body.items.map((c: { id: string }) => c.id).sort()).toEqual([draft.id, published.id].sort());
      const bySlug = await ed.get(BASE).query({ q: draft.slug }).expect(200);
      expect(bySlug.body.items.map((c: { id: string }) => c.id)).toEqual([draft.id]);
      const drafts = await ed.get(BASE).query({ q: marker, status: 'draft' }).expect(200);
      expect(drafts.body).toMatchObject({ total: 1, limit: 50, offset: 0, items: [{ id: draft.id, status: 'draft' }] });
      const pubs = await ed.get(BASE).query({ q: marker, status: 'published' }).expect(200);
      expect(pubs.body.items).toEqual([expect.objectContaining({ id: published.id, lessons_count: 1 })]);
      expect(pubs.body.items[0].lessons).toBeUndefined();
      // Most recently created first.
      const all = await ed.get(BASE).query({ q: marker }).expect(200);
      expect(all.body.items.map((c: { id: string }) => c.id)).toEqual([published.id, draft.id]);
      await ed.get(BASE).query({ limit: 200 }).expect(200);
      for (const query of [{ limit: 201 }, { limit: 0 }, { offset: -1 }, { status: 'gone' }, { q: 'x'.repeat(201) }]) {
        const res = await ed.get(BASE).query(query).expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
      const page = await ed.get(BASE).query({ q: marker, limit: 1, offset: 1 }).expect(200);
      expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1, items: [{ id: draft.id }] });
    });

    it("updates only the fields sent and keeps the rules; a new language is the lessons' language too", async () => {
      const c = await course({ summary: 'keep me', tags: ['a'] });
      await lesson(c.id, { title: 'L1' });
      const res = await ed
        .patch(`${BASE}/${c.id}`)
        .send({ title: 'Renamed', tags: ['B', 'b'] })
        .expect(200);
      expect(res.body).toMatchObject({ title: 'Renamed', summary: 'keep me', tags: ['b'], slug: c.slug });
      const taken = await course();
      const conflict = await ed.patch(`${BASE}/${c.id}`).send({ slug: taken.slug }).expect(409);
      expect(conflict.body.error.code).toBe('slug_taken');
      const restricted = await ed.patch(`${BASE}/${c.id}`).send({ visibility: 'restricted' }).expect(422);
      expect(restricted.body.error.details[0].field).toBe('organization_ids');
      await ed
        .patch(`${BASE}/${c.id}`)
        .send({ visibility: 'restricted', organization_ids: [orgA] })
        .expect(200);
      const emptied = await ed.patch(`${BASE}/${c.id}`).send({ organization_ids: [] }).expect(422);
      expect(emptied.body.error.details[0].field).toBe('organization_ids');
      for (const body of [{ title: null }, { title: '' }, { language: 'de' }, { nope: 1 }]) {
        await ed.patch(`${BASE}/${c.id}`).send(body).expect(422);
      }
      expect(
        (await t.db.query(`SELECT DISTINCT language FROM lessons WHERE course_id = $1`, [c.id])).map(
          (r: { language: string }) => r.language,
        ),
      ).toEqual(['en']);
      await ed.patch(`${BASE}/${c.id}`).send({ language: 'es' }).expect(200);
      expect(
        (await t.db.query(`SELECT DISTINCT language FROM lessons WHERE course_id = $1`, [c.id])).map(
          (r: { language: string }) => r.language,
        ),
      ).toEqual(['es']);
      const same = await ed.patch(`${BASE}/${c.id}`).send({ slug: c.slug }).expect(200);
      expect(same.body.slug).toBe(c.slug);
      await ed.patch(`${BASE}/6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11`).send({ title: 'x' }).expect(404);
      expect((await audits(c.id)).filter((a) => a.action === 'course.updated').length).toBeGreaterThanOrEqual(3);
    });
  });

  describe('lessons', () => {
    it('appends, inserts at a position (shifting the others), moves and deletes (renumbering)', async () => {
      const c = await course();
      const l1 = await lesson(c.id, { title: 'one' });
      expect(l1).toMatchObject({ position: 1, course_id: c.id, content_md: '', estimated_minutes: 0, quiz: null });
      await lesson(c.id, { title: 'two' });
      await lesson(c.id, { title: 'three', position: 3 });
      expect(await titles(c.id)).toEqual(['one', 'two', 'three']);
      const first = await lesson(c.id, { title: 'zero', position: 1 });
      expect(first.position).toBe(1);
      expect(await titles(c.id)).toEqual(['zero', 'one', 'two', 'three']);
      await lesson(c.id, { title: 'middle', position: 3 });
      expect(await titles(c.id)).toEqual(['zero', 'one', 'middle', 'two', 'three']);
      for (const position of [7, 0, -1, 1.5, '2']) {
        const res = await ed.post(`${BASE}/${c.id}/lessons`).send({ title: 'x', position }).expect(422);
        expect(res.body.error.details[0].field).toBe('position');
      }
      const moved = await ed.patch(`${BASE}/${c.id}/lessons/${first.id}`).send({ position: 5 }).expect(200);
      expect(moved.body.position).toBe(5);
      expect(await titles(c.id)).toEqual(['one', 'middle', 'two', 'three', 'zero']);
      await ed.patch(`${BASE}/${c.id}/lessons/${first.id}`).send({ position: 2 }).expect(200);
      expect(await titles(c.id)).toEqual(['one', 'zero', 'middle', 'two', 'three']);
      const beyond = await ed.patch(`${BASE}/${c.id}/lessons/${first.id}`).send({ position: 6 }).expect(422);
      expect(beyond.body.error.details[0].field).toBe('position');
      await ed.delete(`${BASE}/${c.id}/lessons/${l1.id}`).expect(204);
      expect(await titles(c.id)).toEqual(['zero', 'middle', 'two', 'three']);
      await ed.delete(`${BASE}/${c.id}/lessons/${l1.id}`).expect(404);
      // A lesson of another course is not found through this one.
      const other = await course();
      await ed.patch(`${BASE}/${other.id}/lessons/${first.id}`).send({ title: 'x' }).expect(404);
      await ed.delete(`${BASE}/${other.id}/lessons/${first.id}`).expect(404);
      await ed.post(`${BASE}/6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11/lessons`).send({ title: 'x' }).expect(404);
    });

    it('validates lesson fields at their limits', async () => {
      const c = await course();
      await lesson(c.id, { title: 'x'.repeat(200), content_md: 'c'.repeat(100000), estimated_minutes: 10000 });
      for (const [body, field] of [
        [{ title: 'x'.repeat(201) }, 'title'],
        [{ title: 'ok', content_md: 'c'.repeat(100001) }, 'content_md'],
        [{ title: 'ok', estimated_minutes: 10001 }, 'estimated_minutes'],
        [{ title: 'ok', quiz: null }, 'quiz'],
      ] as [object, string][]) {
        const res = await ed.post(`${BASE}/${c.id}/lessons`).send(body).expect(422);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
    });

    it('stores a quiz with its answers, replaces it and removes it with quiz: null', async () => {
      const c = await course();
      const l = await lesson(c.id, { quiz: quiz() });
      expect(l.quiz).toEqual({
        id: expect.stringMatching(UUID),
        passing_score: 60,
        questions: [
          {
            id: expect.stringMatching(UUID),
            position: 1,
            prompt: 'Capital of France?',
            kind: 'single',
            explanation: 'Paris.',
            options: [
              { id: expect.stringMatching(UUID), position: 1, text: 'Paris', correct: true },
              { id: expect.stringMatching(UUID), position: 2, text: 'Lyon', correct: false },
            ],
          },
        ],
      });
      const replaced = await ed
        .patch(`${BASE}/${c.id}/lessons/${l.id}`)
        .send({
          quiz: {
            passing_score: 100,
            questions: [
              question('true_false', [
                { text: 'True', correct: false },
                { text: 'False', correct: true },
              ]),
              question('multiple', [
                { text: 'a', correct: true },
                { text: 'b', correct: true },
                { text: 'c', correct: false },
              ]),
            ],
          },
        })
        .expect(200);
      const q = replaced.body.quiz;
      expect(q.id).toBe((l.quiz as { id: string }).id);
      expect(q.questions.map((x: { kind: string; position: number }) => [x.position, x.kind])).toEqual([
        [1, 'true_false'],
        [2, 'multiple'],
      ]);
      expect(q.questions[0].explanation).toBeNull();
      const kept = await ed.patch(`${BASE}/${c.id}/lessons/${l.id}`).send({ title: 'Renamed' }).expect(200);
      expect(kept.body.quiz).toEqual(q);
      const removed = await ed.patch(`${BASE}/${c.id}/lessons/${l.id}`).send({ quiz: null }).expect(200);
      expect(removed.body.quiz).toBeNull();
      expect(await t.db.query(`SELECT 1 FROM quizzes WHERE lesson_id = $1`, [l.id])).toEqual([]);
    });

    it('enforces the quiz rules (kinds, counts at and one past their limits)', async () => {
      const c = await course();
      const opts = (n: number, correct = 1) =>
        Array.from({ length: n }, (_, i) => ({ text: `Option ${i}`, correct: i < correct }));
      const q = (kind: string, options: { text: string; correct: boolean }[]) => question(kind, options);
      const accepted = [
        quiz({ questions: Array.from({ length: 50 }, () => q('single', opts(2))) }),
        quiz({ questions: [q('single', opts(10))] }),
        quiz({ questions: [q('multiple', opts(4, 4))] }),
        quiz({ passing_score: 0 }),
        quiz({ passing_score: 100 }),
      ];
      for (const body of accepted) await lesson(c.id, { quiz: body });
      const refused: [object, string][] = [
        [quiz({ questions: Array.from({ length: 51 }, () => q('single', opts(2))) }), 'quiz.questions'],
        [quiz({ questions: [] }), 'quiz.questions'],
        [quiz({ questions: [q('single', opts(11))] }), 'quiz.questions.0.options'],
        [quiz({ questions: [q('single', opts(1))] }), 'quiz.questions.0.options'],
        [quiz({ questions: [q('single', opts(3, 2))] }), 'quiz.questions.0.options'],
        [quiz({ questions: [q('single', opts(3, 0))] }), 'quiz.questions.0.options'],
        [quiz({ questions: [q('multiple', opts(3, 0))] }), 'quiz.questions.0.options'],
        [quiz({ questions: [q('single', opts(2)), q('true_false', opts(3))] }), 'quiz.questions.1.options'],
        [quiz({ questions: [q('true_false', opts(2, 2))] }), 'quiz.questions.0.options'],
        [quiz({ questions: [q('true_false', opts(2, 0))] }), 'quiz.questions.0.options'],
        [quiz({ questions: [q('essay', opts(2))] }), 'quiz.questions.0.kind'],
        [quiz({ passing_score: 101 }), 'quiz.passing_score'],
        [quiz({ passing_score: -1 }), 'quiz.passing_score'],
        [
          quiz({ questions: [{ prompt: 'x'.repeat(2001), kind: 'single', options: opts(2) }] }),
          'quiz.questions.0.prompt',
        ],
        [
          quiz({
            questions: [
              {
                prompt: 'p',
                kind: 'single',
                options: [
                  { text: 'x'.repeat(501), correct: true },
                  { text: 'b', correct: false },
                ],
              },
            ],
          }),
          'quiz.questions.0.options.0.text',
        ],
        [
          quiz({ questions: [{ prompt: 'p', kind: 'single', options: opts(2), explanation: 'e'.repeat(2001) }] }),
          'quiz.questions.0.explanation',
        ],
      ];
      for (const [body, field] of refused) {
        const res = await ed.post(`${BASE}/${c.id}/lessons`).send({ title: 'q', quiz: body });
        expect([field, res.status]).toEqual([field, 422]);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      // The same rules on PATCH.
      const l = await lesson(c.id);
      const res = await ed
        .patch(`${BASE}/${c.id}/lessons/${l.id}`)
        .send({ quiz: quiz({ questions: [q('single', opts(3, 2))] }) })
        .expect(422);
      expect(res.body.error.details[0].field).toBe('quiz.questions.0.options');
    });
  });

  describe('publication and deletion', () => {
    it('publishing needs a lesson (409 course_empty); publish/unpublish are idempotent and audited without an organization', async () => {
      const c = await course();
      const empty = await ed.post(`${BASE}/${c.id}/publish`).expect(409);
      expect(empty.body.error.code).toBe('course_empty');
      await lesson(c.id);
      const published = await ed.post(`${BASE}/${c.id}/publish`).expect(200);
      expect(published.body).toMatchObject({ status: 'published', published_at: expect.stringMatching(ISO) });
      await ed.post(`${BASE}/${c.id}/publish`).expect(200);
      const unpublished = await ed.post(`${BASE}/${c.id}/unpublish`).expect(200);
      expect(unpublished.body.status).toBe('unpublished');
      await ed.post(`${BASE}/${c.id}/unpublish`).expect(200);
      const log = (await audits(c.id)).filter((a) => a.action.startsWith('course.') && a.action.endsWith('published'));
      expect(log.map((a) => [a.action, a.organization_id, a.actor_id])).toEqual([
        ['course.published', null, editor.user.id],
        ['course.unpublished', null, editor.user.id],
      ]);
      const draft = await course();
      const still = await ed.post(`${BASE}/${draft.id}/unpublish`).expect(200);
      expect(still.body.status).toBe('draft');
      await ed.post(`${BASE}/6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11/publish`).expect(404);
    });

    it('the last lesson of a published course cannot be deleted (409 course_empty); of a draft it can', async () => {
      const c = await course();
      const only = await lesson(c.id);
      await ed.post(`${BASE}/${c.id}/publish`).expect(200);
      const res = await ed.delete(`${BASE}/${c.id}/lessons/${only.id}`).expect(409);
      expect(res.body.error.code).toBe('course_empty');
      await ed.post(`${BASE}/${c.id}/unpublish`).expect(200);
      await ed.delete(`${BASE}/${c.id}/lessons/${only.id}`).expect(204);
    });

    it('deletes a course nobody uses (204); an enrollment or a certificate keeps it (409 course_in_use)', async () => {
      const unused = await course();
      await lesson(unused.id);
      await ed.delete(`${BASE}/${unused.id}`).expect(204);
      await ed.get(`${BASE}/${unused.id}`).expect(404);
      await ed.delete(`${BASE}/${unused.id}`).expect(404);
      expect((await audits(unused.id)).map((a) => a.action)).toContain('course.deleted');

      const used = await course();
      await lesson(used.id);
      await ed.post(`${BASE}/${used.id}/publish`).expect(200);
      await plain.agent.post(`/api/v1/organizations/${orgA}/courses/${used.id}/enroll`).expect(201);
      const enrolled = await ed.delete(`${BASE}/${used.id}`).expect(409);
      expect(enrolled.body.error.code).toBe('course_in_use');

      const certified = await course();
      await t.db.query(
        `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title)
         VALUES ($1, 'course', $2, $3, 'Holder', $4, 'T')`,
        [`CRS-TEST-${t.suffix.slice(0, 4).toUpperCase()}`, orgA, plain.user.id, certified.id],
      );
      const res = await ed.delete(`${BASE}/${certified.id}`).expect(409);
      expect(res.body.error.code).toBe('course_in_use');
      await ed.get(`${BASE}/${certified.id}`).expect(200);
    });
  });

  describe('SEO pages', () => {
    it('builds one page per published course, skips unchanged ones, rewrites changed ones and removes unpublished ones', async () => {
      const dir = join(t.config.storageDir, 'seo', 'courses');
      const published = await course({
        title: `Café <b>&</b> "Crème" ${t.suffix}`,
        summary: 'Aprende <script>alert(1)</script> ya',
        description_md: '## Temario\n\nTexto **fuerte** <img src=x onerror=alert(1)>',
        language: 'es',
        tags: ['cocina'],
      });
      await lesson(published.id, { title: 'Primera <lección>' });
      await lesson(published.id, { title: 'Segunda', estimated_minutes: 15 });
      await ed.post(`${BASE}/${published.id}/publish`).expect(200);
      const draft = await course();
      await lesson(draft.id);

      const first = await ed.post('/api/v1/editor/seo/rebuild-all').expect(200);
      const publishedSlugs = (
        await t.db.query(`SELECT slug FROM courses WHERE status = 'published' ORDER BY slug`)
      ).map((r: { slug: string }) => r.slug);
      expect(first.body).toEqual({ built: publishedSlugs.length, skipped: 0, slugs: expect.any(Array) });
      expect([...first.body.slugs].sort()).toEqual(publishedSlugs);
      expect(readdirSync(dir).sort()).toEqual(publishedSlugs.map((s: string) => `${s}.html`));
      expect(existsSync(join(dir, `${draft.slug}.html`))).toBe(false);

      const html = readFileSync(join(dir, `${published.slug}.html`), 'utf8');
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain('<img');
      const doc = new JSDOM(html).window.document;
      expect(doc.querySelector('h1')?.textContent).toBe(`Café <b>&</b> "Crème" ${t.suffix}`);
      expect(doc.querySelector('link[rel=canonical]')?.getAttribute('href')).toBe(
        `http://web.test/courses/${published.slug}`,
      );
      expect(doc.querySelector('meta[name=description]')?.getAttribute('content')).toBe(
        'Aprende <script>alert(1)</script> ya',
      );
      expect([...doc.querySelectorAll('.outline li')].map((li) => li.textContent)).toEqual([
        'Primera <lección>',
        'Segunda (15 min)',
      ]);
      expect(doc.querySelector('.description strong')?.textContent).toBe('fuerte');
      const ld = JSON.parse(doc.querySelector('script[type="application/ld+json"]')!.textContent);
      expect(ld).toMatchObject({
        '@context': 'https://schema.org',
        '@type': 'Course',
        name: `Café <b>&</b> "Crème" ${t.suffix}`,
        url: `http://web.test/courses/${published.slug}`,
        inLanguage: 'es',
        provider: { '@type': 'Organization', name: 'Learning Platform' },
      });

      const second = await ed.post('/api/v1/editor/seo/rebuild-all').expect(200);
      expect(second.body).toEqual({ built: 0, skipped: publishedSlugs.length, slugs: [] });

      await ed.patch(`${BASE}/${published.id}`).send({ summary: 'Nuevo resumen' }).expect(200);
      const third = await ed.post('/api/v1/editor/seo/rebuild-all').expect(200);
      expect(third.body).toEqual({ built: 1, skipped: publishedSlugs.length - 1, slugs: [published.slug] });
      expect(readFileSync(join(dir, `${published.slug}.html`), 'utf8')).toContain('Nuevo resumen');

      await ed.post(`${BASE}/${published.id}/unpublish`).expect(200);
      const fourth = await ed.post('/api/v1/editor/seo/rebuild-all').expect(200);
      expect(fourth.body).toEqual({ built: 0, skipped: publishedSlugs.length - 1, slugs: [] });
      expect(existsSync(join(dir, `${published.slug}.html`))).toBe(false);
      // No temporary file is left behind.
      expect(readdirSync(dir).every((f) => f.endsWith('.html'))).toBe(true);
    });
  });
});
