import { EditorService, SeoService } from '@/modules/learning/editor';
import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

type Hit = { type: string; id: string; course_id: string; title: string; snippet: string; score: number };

describe('search', () => {
  let t: TestApp;
  let author: SignedIn;
  let member: SignedIn;
  let ownerB: SignedIn;
  let orgA: string;
  let orgB: string;
  let python: MadeCourse;
  let history: MadeCourse;
  let songs: MadeCourse;
  let marathon: MadeCourse;
  let forB: MadeCourse;
  let draft: MadeCourse;
  let gone: MadeCourse;

  const search = async (query: object, who: SignedIn = member, org = orgA): Promise<{ items: Hit[]; total: number }> =>
    (await who.agent.get(`/api/v1/organizations/${org}/search`).query(query).expect(200)).body;
  const ours = (hits: Hit[]): Hit[] =>
    hits.filter((h) => [python, history, songs, marathon, forB, draft, gone].some((c) => c.id === h.course_id));

  beforeAll(async () => {
    t = await createTestApp();
    author = await adult(t);
    const ownerA = await adult(t);
    orgA = await createOrganization(t, ownerA, 'Org A');
    member = await adult(t);
    await addMember(t, orgA, member.user.id, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
    python = await makeCourse(t, author.user.id, {
      title: 'Programación en Python',
      summary: 'Curso para empezar',
      language: 'es',
      lessons: [
        { title: 'Variables', content_md: 'Aprende a programar con variables y tipos.' },
        { title: 'Funciones', content_md: 'Definir funciones.' },
      ],
    });
    history = await makeCourse(t, author.user.id, {
      title: 'Historia del arte',
      summary: 'Pintura y escultura',
      description_md:
        'Un recorrido [con enlaces](https://example.org) y algo de **programación** visual. <script>alert(1)</script>',
      language: 'es',
      lessons: [{ title: 'Renacimiento', content_md: 'Los maestros italianos.' }],
    });
    songs = await makeCourse(t, author.user.id, {
      title: 'Canciones populares',
      language: 'es',
      lessons: [{ title: 'Cantar juntos', content_md: 'Las canciones de siempre.' }],
    });
    marathon = await makeCourse(t, author.user.id, {
      title: 'Run your first marathon',
      summary: 'Training plans',
      language: 'en',
      lessons: [{ title: 'Shoes', content_md: 'Pick shoes that make running comfortable.' }],
    });
    forB = await makeCourse(t, author.user.id, {
      title: 'Programación avanzada para B',
      language: 'es',
      visibility: 'restricted',
      organization_ids: [orgB],
      lessons: [{ title: 'Programación secreta', content_md: 'programación' }],
    });
    draft = await makeCourse(t, author.user.id, {
      title: 'Programación borrador',
      language: 'es',
      publish: false,
      lessons: [{ title: 'Programación en borrador', content_md: 'programación' }],
    });
    gone = await makeCourse(t, author.user.id, {
      title: 'Programación retirada',
      language: 'es',
      lessons: [{ title: 'Programación retirada', content_md: 'programación' }],
    });
    await t.app.get(EditorService).unpublish(gone.id, author.user.id);
  });
  afterAll(() => t.close());

  it('is accent-insensitive: "programacion" finds "Programación"; a title match ranks above a body match', async () => {
    const res = await search({ q: 'programacion', type: 'course' });
    expect(ours(res.items).map((h) => h.id)).toEqual([python.id, history.id]);
    const [first, second] = ours(res.items);
    expect(first).toEqual({
      type: 'course',
      id: python.id,
      course_id: python.id,
      title: 'Programación en Python',
      snippet: expect.any(String),
      score: expect.any(Number),
    });
    expect(first.score).toBeGreaterThan(second.score);
    expect(first.score).toBeLessThanOrEqual(1);
    expect(second.score).toBeGreaterThan(0);
    expect((await search({ q: 'PROGRAMACIÓN', type: 'course' })).items.map((h) => h.id)).toEqual(
      res.items.map((h) => h.id),
    );
  });

  it('stems Spanish: "programas" finds "programar", "canción" finds "canciones"', async () => {
    const lessons = ours((await search({ q: 'programas', type: 'lesson' })).items);
    expect(lessons.map((h) => h.id)).toEqual([python.lessons[0].id]);
    expect(lessons[0]).toMatchObject({ type: 'lesson', course_id: python.id, title: 'Variables' });
    expect(lessons[0].snippet).toContain('[programar]');
    const hits = ours((await search({ q: 'canción' })).items);
    expect(hits.map((h) => [h.type, h.id])).toEqual([
      ['course', songs.id],
      ['lesson', songs.lessons[0].id],
    ]);
  });

  it('stems accented Spanish suffixes too: "programas" and "programa" find the courses about "programación"', async () => {
    for (const q of ['programas', 'programa']) {
      const courses = ours((await search({ q, type: 'course' })).items);
      expect(courses.map((h) => h.id)).toEqual(expect.arrayContaining([python.id, history.id]));
    }
  });

  it('stems English: "running" finds "Run your first marathon" and "runs" the lesson about running', async () => {
    const courses = ours((await search({ q: 'running', type: 'course' })).items);
    expect(courses.map((h) => h.id)).toEqual([marathon.id]);
    const lessons = ours((await search({ q: 'runs', type: 'lesson' })).items);
    expect(lessons.map((h) => h.id)).toEqual([marathon.lessons[0].id]);
    expect(lessons[0].snippet).toContain('[running]');
  });

  it('filters by type and by default answers courses and lessons together, best first', async () => {
    const all = ours((await search({ q: 'canciones or variables' })).items);
    expect(all.map((h) => h.id).sort()).toEqual([songs.id, songs.lessons[0].id, python.lessons[0].id].sort());
    expect(ours((await search({ q: 'canciones variables' })).items)).toEqual([]);
    const scores = all.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(ours((await search({ q: 'canciones', type: 'lesson' })).items).map((h) => h.id)).toEqual([
      songs.lessons[0].id,
    ]);
    expect(ours((await search({ q: 'canciones', type: 'course' })).items).map((h) => h.id)).toEqual([songs.id]);
    expect(ours((await search({ q: 'funciones', type: 'course' })).items)).toEqual([]);
    expect(ours((await search({ q: 'funciones', type: 'lesson' })).items).map((h) => h.id)).toEqual([
      python.lessons[1].id,
    ]);
  });

  it("never shows drafts, unpublished courses or other organizations' restricted courses (nor their lessons)", async () => {
    const seen = new Set(ours((await search({ q: 'programación', limit: 200 })).items).map((h) => h.course_id));
    expect(seen.has(forB.id) || seen.has(draft.id) || seen.has(gone.id)).toBe(false);
    expect(ours((await search({ q: 'borrador' })).items)).toEqual([]);
    expect(ours((await search({ q: 'retirada' })).items)).toEqual([]);
    expect(ours((await search({ q: 'secreta' })).items)).toEqual([]);
    const inB = ours((await search({ q: 'secreta' }, ownerB, orgB)).items);
    expect(inB.map((h) => h.id)).toEqual([forB.lessons[0].id]);
  });

  it('snippets are plain text with the matches in brackets: no HTML, no markdown, link targets dropped', async () => {
    const hit = ours((await search({ q: 'programación', type: 'course' })).items).find((h) => h.id === history.id)!;
    expect(hit.snippet).toContain('[programación]');
    expect(hit.snippet).toContain('con enlaces');
    expect(hit.snippet).not.toMatch(/<|>|\*\*|https?:|\]\(/);
    expect(hit.snippet.match(/\[/g)?.length).toBe(hit.snippet.match(/\]/g)?.length);
  });

  it('validates q (1..200), type and paging; pages with total', async () => {
    for (const query of [
      {},
      { q: '' },
      { q: '   ' },
      { q: 'x'.repeat(201) },
      { q: 'a', type: 'path' },
      { q: 'a', limit: 201 },
      { q: 'a', offset: -1 },
    ]) {
      const res = await member.agent.get(`/api/v1/organizations/${orgA}/search`).query(query);
      expect([query, res.status, res.body.error?.code]).toEqual([query, 422, 'validation_error']);
    }
    await search({ q: 'x'.repeat(200), limit: 200 });
    const full = await search({ q: 'programación canciones or marathon or variables' });
    const page = await search({ q: 'programación canciones or marathon or variables', limit: 1, offset: 1 });
    expect(page.total).toBe(full.total);
    expect(page.items).toHaveLength(Math.min(1, Math.max(0, full.total - 1)));
    const odd = await search({ q: '"unclosed -- !!' });
    expect(odd.items).toEqual([]);
  });

  it('is served by the GIN indexes on a few thousand rows (EXPLAIN of the query the endpoint runs)', async () => {
    await t.db.query(`
      INSERT INTO courses (slug, title, summary, description_md, language, level, status, visibility, published_at)
      SELECT 'bulk-' || g, 'Bulk ' || (ARRAY['python', 'datos', 'historia', 'music', 'cooking'])[1 + g % 5] || ' ' || g,
        'Summary ' || md5(g::text), 'Words ' || md5((g * 7)::text) || ' ' || md5((g * 13)::text),
        CASE WHEN g % 2 = 0 THEN 'es' ELSE 'en' END, 'beginner', 'published', 'public', now()
      FROM generate_series(1, 4000) g`);
    await t.db.query(`
      INSERT INTO lessons (course_id, position, title, content_md, language)
      SELECT c.id, p, 'Lesson ' || p || ' ' || md5(c.slug || p), 'Content ' || md5(c.slug || p || 'x'), c.language
      FROM courses c CROSS JOIN generate_series(1, 3) p WHERE c.slug LIKE 'bulk-%'`);
    await t.db.query('VACUUM ANALYZE courses');
    await t.db.query('VACUUM ANALYZE lessons');
    const calls: [string, unknown[]][] = [];
    const original = t.db.query.bind(t.db);
    const spy = jest.spyOn(t.db, 'query').mockImplementation(((sql: string, params?: unknown[]) => {
      calls.push([sql, params ?? []]);
      return original(sql, params);
    }) as typeof t.db.query);
    try {
      await search({ q: 'canciones' });
    } finally {
      spy.mockRestore();
    }
    const [sql, params] = calls.find(([s]) => s.includes('ts_headline'))!;
    const [{ 'QUERY PLAN': plan }] = await t.db.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
    const indexes = new Set<string>();
    const walk = (node: { 'Index Name'?: string; Plans?: object[] }): void => {
      if (node['Index Name']) indexes.add(node['Index Name']);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(plan[0].Plan);
    expect([...indexes]).toEqual(expect.arrayContaining(['courses_search_idx', 'lessons_search_idx']));
  });
});

/**
 * The embedded mode runs the same migrations on PGlite: the learning area's SQL (full text with the unaccent
 * configurations, ts_headline, row locks, unnest WITH ORDINALITY, the partial covering index) must work there too.
 */
describe('the learning flow on the embedded database (PGlite)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ embedded: true, redis: false });
  });
  afterAll(() => t.close());

  it('authors, lists, searches, learns, certifies, reports and renders SEO pages', async () => {
    const owner = await adult(t);
    const org = await createOrganization(t, owner, 'Embedded org');
    const learner = await adult(t);
    await addMember(t, org, learner.user.id, 'student');
    const course = await makeCourse(t, owner.user.id, {
      title: 'Programación para todos',
      language: 'es',
      tags: ['python'],
      issues_certificate: true,
      lessons: [
        { title: 'Variables', content_md: 'Aprende a programar con variables.' },
        {
          title: 'Repaso',
          quiz: {
            passing_score: 100,
            questions: [
              {
                prompt: '¿Sí?',
                kind: 'true_false',
                options: [
                  { text: 'Sí', correct: true },
                  { text: 'No', correct: false },
                ],
              },
            ],
          },
        },
      ],
    });
    await t.app.get(EditorService).updateLesson(course.id, course.lessons[1].id, { position: 1 });
    const base = `/api/v1/organizations/${org}`;
    const list = await learner.agent
      .get(`${base}/courses`)
      .query({ q: 'programacion', tag: 'python', language: 'es' })
      .expect(200);
    expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([course.id]);
    const detail = await learner.agent.get(`${base}/courses/${course.slug}`).expect(200);
    expect(detail.body.lessons.map((l: { title: string }) => l.title)).toEqual(['Repaso', 'Variables']);
    const hits = await learner.agent.get(`${base}/search`).query({ q: 'programas' }).expect(200);
    // "programas" stems like "programación" (the course title) and "programar" (the lesson), on PGlite too.
    expect(hits.body.items.map((h: { type: string; id: string }) => [h.type, h.id])).toEqual([
      ['course', course.id],
      ['lesson', course.lessons[0].id],
    ]);
    expect(hits.body.items[1].snippet).toContain('[programar]');
    await learner.agent.post(`${base}/courses/${course.id}/enroll`).expect(201);
    const question = course.lessons[1].quiz!.questions[0];
    await learner.agent
      .post(`${base}/courses/${course.id}/lessons/${course.lessons[1].id}/quiz/submissions`)
      .send({ answers: [{ question_id: question.id, option_ids: [question.options.find((o) => o.correct)!.id] }] })
      .expect(201);
    await learner.agent.post(`${base}/courses/${course.id}/lessons/${course.lessons[1].id}/complete`).expect(200);
    const done = await learner.agent
      .post(`${base}/courses/${course.id}/lessons/${course.lessons[0].id}/complete`)
      .expect(200);
    expect(done.body.status).toBe('completed');
    const certificates = await t.db.query(`SELECT code FROM issued_certificates WHERE user_id = $1`, [learner.user.id]);
    expect(certificates).toEqual([{ code: expect.stringMatching(/^CRS-[A-Z2-9]{4}-[A-Z2-9]{4}$/) }]);
    await learner.agent.post(`${base}/courses/${course.id}/ratings`).send({ stars: 5 }).expect(200);
    const cohort = (await owner.agent.post(`${base}/cohorts`).send({ name: 'Embedded cohort' }).expect(201)).body.id;
    await owner.agent
      .post(`${base}/cohorts/${cohort}/members`)
      .send({ user_id: learner.user.id, role: 'student' })
      .expect(201);
    const report = await owner.agent.get(`${base}/teacher/cohorts/${cohort}/progress`).expect(200);
    expect(report.body.items).toEqual([
      expect.objectContaining({ course_id: course.id, percent: 100, completed: true }),
    ]);
    const seo = await t.app.get(SeoService).rebuildAll();
    expect(seo).toEqual({ built: 1, skipped: 0, slugs: [course.slug] });
  });
});
