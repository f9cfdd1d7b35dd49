import { EditorService } from '@/modules/learning/editor';
import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse, ONE_QUESTION_QUIZ } from '../../cross-tenant/learning.routes';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const CARD_KEYS = [
  'enrolled',
  'estimated_minutes',
  'id',
  'language',
  'lessons_count',
  'level',
  'rating',
  'slug',
  'summary',
  'tags',
  'title',
];
const DETAIL_KEYS = [
  ...CARD_KEYS,
  'available',
  'description_md',
  'issues_certificate',
  'lessons',
  'progress',
  'published_at',
].sort();

describe('courses (the catalog of an organization)', () => {
  let t: TestApp;
  let author: SignedIn;
  let ownerA: SignedIn;
  let studentA: SignedIn;
  let student2A: SignedIn;
  let student3A: SignedIn;
  let ownerB: SignedIn;
  let orgA: string;
  let orgB: string;
  let tag: string;
  let publicEs: MadeCourse;
  let publicEn: MadeCourse;
  let restrictedA: MadeCourse;
  let restrictedB: MadeCourse;
  let draft: MadeCourse;
  let unpublished: MadeCourse;

  const catalog = (org = orgA): string => `/api/v1/organizations/${org}/courses`;
  const ids = (body: { items: { id: string }[] }): string[] => body.items.map((c) => c.id);
  const mine = (ids: string[]) =>
    ids.filter((id) => [publicEs, publicEn, restrictedA, restrictedB, draft, unpublished].some((c) => c.id === id));

  beforeAll(async () => {
    t = await createTestApp();
    author = await adult(t);
    ownerA = await adult(t);
    orgA = await createOrganization(t, ownerA, 'Org A');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
    studentA = await adult(t);
    student2A = await adult(t);
    student3A = await adult(t);
    for (const s of [studentA, student2A, student3A]) await addMember(t, orgA, s.user.id, 'student');
    tag = `tag${t.suffix}`;
    // Published one after the other, so "newest first" is well defined.
    publicEs = await makeCourse(t, author.user.id, {
      title: `Introducción a la programación ${t.suffix}`,
      summary: 'Un curso',
      description_md: 'Variables y **funciones**.',
      language: 'es',
      level: 'beginner',
      tags: [tag, 'python'],
      estimated_minutes: 120,
      issues_certificate: true,
      lessons: [
        { title: 'Primera', estimated_minutes: 10, content_md: '# Uno' },
        { title: 'Segunda', quiz: ONE_QUESTION_QUIZ },
        { title: 'Tercera' },
      ],
    });
    t.clock.advance(1000);
    publicEn = await makeCourse(t, author.user.id, {
      title: `Advanced statistics ${t.suffix}`,
      language: 'en',
      level: 'advanced',
      tags: [tag],
    });
    t.clock.advance(1000);
    restrictedA = await makeCourse(t, author.user.id, {
      title: `Only for A: aardvarks ${t.suffix}`,
      visibility: 'restricted',
      organization_ids: [orgA],
      level: 'intermediate',
    });
    t.clock.advance(1000);
    restrictedB = await makeCourse(t, author.user.id, {
      title: `Only for B ${t.suffix}`,
      visibility: 'restricted',
      organization_ids: [orgB],
    });
    draft = await makeCourse(t, author.user.id, { title: `Draft ${t.suffix}`, publish: false });
    unpublished = await makeCourse(t, author.user.id, { title: `Gone ${t.suffix}` });
    await t.app.get(EditorService).unpublish(unpublished.id, author.user.id);
  });
  afterAll(() => t.close());

  describe('list', () => {
    it("shows published public courses and those restricted to the organization, newest first; never drafts, unpublished or other organizations' courses", async () => {
      const a = await studentA.agent.get(catalog()).query({ limit: 200 }).expect(200);
      expect(mine(ids(a.body))).toEqual([restrictedA.id, publicEn.id, publicEs.id]);
      const b = await ownerB.agent.get(catalog(orgB)).query({ limit: 200 }).expect(200);
      expect(mine(ids(b.body))).toEqual([restrictedB.id, publicEn.id, publicEs.id]);
      expect(a.body).toMatchObject({ limit: 200, offset: 0, total: a.body.items.length });
    });

    it('answers cards with the documented shape', async () => {
      const res = await studentA.agent.get(catalog()).query({ tag, language: 'es' }).expect(200);
      expect(res.body.items).toHaveLength(1);
      expect(Object.keys(res.body.items[0]).sort()).toEqual(CARD_KEYS);
      expect(res.body.items[0]).toEqual({
        id: publicEs.id,
        slug: publicEs.slug,
        title: `Introducción a la programación ${t.suffix}`,
        summary: 'Un curso',
        language: 'es',
        level: 'beginner',
        tags: [tag, 'python'],
        lessons_count: 3,
        estimated_minutes: 120,
        rating: { average: null, count: 0 },
        enrolled: false,
      });
    });

    it('filters by language, level, tag (case-insensitive) and full text, and combines them', async () => {
      const get = async (query: object) =>
        mine(ids((await studentA.agent.get(catalog()).query(query).expect(200)).body));
      expect(await get({ tag })).toEqual([publicEn.id, publicEs.id]);
      expect(await get({ tag: tag.toUpperCase() })).toEqual([publicEn.id, publicEs.id]);
      expect(await get({ tag, language: 'en' })).toEqual([publicEn.id]);
      expect(await get({ tag, level: 'beginner' })).toEqual([publicEs.id]);
      expect(await get({ tag, level: 'intermediate' })).toEqual([]);
      expect(await get({ level: 'intermediate' })).toEqual([restrictedA.id]);
      expect(await get({ q: 'programacion' })).toEqual([publicEs.id]);
      expect(await get({ q: 'funciones' })).toEqual([publicEs.id]);
      expect(await get({ q: 'statistic' })).toEqual([publicEn.id]);
      expect(await get({ q: 'aardvark', language: 'en' })).toEqual([restrictedA.id]);
      expect(await get({ q: 'aardvark', language: 'es' })).toEqual([]);
    });

    it('pages: limit 1..200 and offset >= 0 (one past refused), total counts every match', async () => {
      const first = await studentA.agent.get(catalog()).query({ tag, limit: 1 }).expect(200);
      expect(first.body).toMatchObject({ total: 2, limit: 1, offset: 0, items: [{ id: publicEn.id }] });
      const second = await studentA.agent.get(catalog()).query({ tag, limit: 1, offset: 1 }).expect(200);
      expect(second.body).toMatchObject({ total: 2, items: [{ id: publicEs.id }] });
      const beyond = await studentA.agent.get(catalog()).query({ tag, offset: 2 }).expect(200);
      expect(beyond.body).toMatchObject({ total: 2, items: [] });
      await studentA.agent.get(catalog()).query({ limit: 200 }).expect(200);
      for (const query of [
        { limit: 201 },
        { limit: 0 },
        { offset: -1 },
        { language: 'fr' },
        { level: 'expert' },
        { tag: 'x'.repeat(41) },
        { q: 'x'.repeat(201) },
        { q: '' },
        { other: 1 },
      ]) {
        const res = await studentA.agent.get(catalog()).query(query);
        expect([query, res.status, res.body.error?.code]).toEqual([query, 422, 'validation_error']);
      }
      await studentA.agent
        .get(catalog())
        .query({ tag: 'x'.repeat(40), q: 'x'.repeat(200) })
        .expect(200);
    });
  });

  describe('a course', () => {
    it("by id or slug: the course with its outline and the caller's progress (null before enrolling)", async () => {
      const byId = await student3A.agent.get(`${catalog()}/${publicEs.id}`).expect(200);
      const bySlug = await student3A.agent.get(`${catalog()}/${publicEs.slug}`).expect(200);
      const upper = await student3A.agent.get(`${catalog()}/${publicEs.slug.toUpperCase()}`).expect(200);
      expect(bySlug.body).toEqual(byId.body);
      expect(upper.body).toEqual(byId.body);
      expect(Object.keys(byId.body).sort()).toEqual(DETAIL_KEYS);
      expect(byId.body).toMatchObject({
        id: publicEs.id,
        description_md: 'Variables y **funciones**.',
        issues_certificate: true,
        available: true,
        enrolled: false,
        progress: null,
        published_at: expect.any(String),
      });
      expect(byId.body.lessons).toEqual([
        {
          id: publicEs.lessons[0].id,
          position: 1,
          title: 'Primera',
          estimated_minutes: 10,
          has_quiz: false,
          completed: false,
        },
        {
          id: publicEs.lessons[1].id,
          position: 2,
          title: 'Segunda',
          estimated_minutes: 0,
          has_quiz: true,
          completed: false,
        },
        {
          id: publicEs.lessons[2].id,
          position: 3,
          title: 'Tercera',
          estimated_minutes: 0,
          has_quiz: false,
          completed: false,
        },
      ]);
    });

    it('after enrolling: progress, completed lessons and the enrolled flag in the cards', async () => {
      const course = `${catalog()}/${publicEs.id}`;
      await student3A.agent.post(`${course}/enroll`).expect(201);
      await student3A.agent.post(`${course}/lessons/${publicEs.lessons[0].id}/complete`).expect(200);
      const res = await student3A.agent.get(course).expect(200);
      expect(res.body.enrolled).toBe(true);
      expect(res.body.lessons.map((l: { completed: boolean }) => l.completed)).toEqual([true, false, false]);
      expect(res.body.progress).toMatchObject({
        course_id: publicEs.id,
        status: 'active',
        progress: { completed_lessons: 1, total_lessons: 3, percent: 33 },
      });
      const cards = await student3A.agent.get(catalog()).query({ tag }).expect(200);
      expect(cards.body.items.map((c: { id: string; enrolled: boolean }) => [c.id, c.enrolled])).toEqual([
        [publicEn.id, false],
        [publicEs.id, true],
      ]);
      // Enrollment is per organization: the owner of A has not enrolled.
      const other = await ownerA.agent.get(course).expect(200);
      expect([other.body.enrolled, other.body.progress]).toEqual([false, null]);
    });

    it("404 for drafts, unpublished courses, other organizations' restricted courses and unknown ids or slugs", async () => {
      for (const path of [
        `${catalog()}/${draft.id}`,
        `${catalog()}/${draft.slug}`,
        `${catalog()}/${unpublished.id}`,
        `${catalog()}/${restrictedB.id}`,
        `${catalog()}/${restrictedB.slug}`,
        `${catalog(orgB)}/${restrictedA.id}`,
        `${catalog()}/6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11`,
        `${catalog()}/no-such-course`,
      ]) {
        const agent = path.includes(orgB) ? ownerB.agent : studentA.agent;
        const res = await agent.get(path);
        expect([path, res.status, res.body.error.code]).toEqual([path, 404, 'not_found']);
      }
      await ownerB.agent.get(`${catalog(orgB)}/${restrictedB.id}`).expect(200);
      await studentA.agent.get(`${catalog()}/${restrictedA.slug}`).expect(200);
    });

    it('an enrolled learner keeps reaching a course after it is unpublished (available: false); others get 404', async () => {
      const leaving = await makeCourse(t, author.user.id, {
        title: `Leaving ${t.suffix}`,
        lessons: [{ title: 'L1' }, { title: 'L2' }],
      });
      const course = `${catalog()}/${leaving.id}`;
      await student2A.agent.post(`${course}/enroll`).expect(201);
      await t.app.get(EditorService).unpublish(leaving.id, author.user.id);
      const res = await student2A.agent.get(course).expect(200);
      expect([res.body.available, res.body.enrolled]).toEqual([false, true]);
      await student2A.agent.get(`${course}/lessons/${leaving.lessons[0].id}`).expect(200);
      expect(ids((await student2A.agent.get(catalog()).query({ limit: 200 }).expect(200)).body)).not.toContain(
        leaving.id,
      );
      await studentA.agent.get(course).expect(404);
      await studentA.agent.post(`${course}/enroll`).expect(404);
      // Re-enrolling is idempotent for the one already enrolled.
      await student2A.agent.post(`${course}/enroll`).expect(200);
    });
  });

  describe('lessons', () => {
    it('403 not_enrolled before enrolling; then the content and the quiz without its answers', async () => {
      const lesson = `${catalog()}/${publicEs.id}/lessons/${publicEs.lessons[1].id}`;
      const refused = await studentA.agent.get(lesson).expect(403);
      expect(refused.body.error.code).toBe('not_enrolled');
      await studentA.agent.post(`${catalog()}/${publicEs.id}/enroll`).expect(201);
      const res = await studentA.agent.get(lesson).expect(200);
      expect(res.body).toEqual({
        id: publicEs.lessons[1].id,
        course_id: publicEs.id,
        position: 2,
        title: 'Segunda',
        content_md: '',
        estimated_minutes: 0,
        completed: false,
        lti: null,
        previous_lesson_id: publicEs.lessons[0].id,
        next_lesson_id: publicEs.lessons[2].id,
        quiz: {
          passing_score: 100,
          questions: [
            {
              id: publicEs.lessons[1].quiz!.questions[0].id,
              position: 1,
              prompt: 'Pick A',
              kind: 'single',
              options: [
                { id: expect.any(String), position: 1, text: 'A' },
                { id: expect.any(String), position: 2, text: 'B' },
              ],
            },
          ],
        },
      });
      expect(JSON.stringify(res.body)).not.toMatch(/correct|explanation/);
      const first = await studentA.agent
        .get(`${catalog()}/${publicEs.slug}/lessons/${publicEs.lessons[0].id}`)
        .expect(200);
      expect(first.body).toMatchObject({ content_md: '# Uno', quiz: null, previous_lesson_id: null });
    });

    it('404 for a lesson of another course, a malformed id, or a course the organization does not see', async () => {
      for (const path of [
        `${catalog()}/${publicEs.id}/lessons/${publicEn.lessons[0].id}`,
        `${catalog()}/${publicEs.id}/lessons/nope`,
        `${catalog()}/${restrictedB.id}/lessons/${restrictedB.lessons[0].id}`,
        `${catalog()}/${draft.id}/lessons/${draft.lessons[0].id}`,
      ]) {
        const res = await studentA.agent.get(path);
        expect([path, res.status]).toEqual([path, 404]);
      }
    });
  });

  describe('ratings', () => {
    it('enrolled members only (403 not_enrolled), stars 1..5, comment up to 1000; one per person (replaced); averages with one decimal', async () => {
      const course = await makeCourse(t, author.user.id, { title: `Rated ${t.suffix}` });
      const path = `${catalog()}/${course.id}/ratings`;
      const refused = await studentA.agent.post(path).send({ stars: 5 }).expect(403);
      expect(refused.body.error.code).toBe('not_enrolled');
      for (const s of [studentA, student2A, student3A])
        await s.agent.post(`${catalog()}/${course.id}/enroll`).expect(201);
      for (const body of [
        { stars: 0 },
        { stars: 6 },
        { stars: 4.5 },
        { stars: '5' },
        {},
        { stars: 3, comment: 'c'.repeat(1001) },
      ]) {
        const res = await studentA.agent.post(path).send(body);
        expect([body, res.status, res.body.error?.code]).toEqual([body, 422, 'validation_error']);
      }
      const rated = await studentA.agent
        .post(path)
        .send({ stars: 1, comment: 'c'.repeat(1000) })
        .expect(200);
      expect(rated.body).toEqual({
        course_id: course.id,
        stars: 1,
        comment: 'c'.repeat(1000),
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      t.clock.advance(5000);
      const again = await studentA.agent.post(path).send({ stars: 5 }).expect(200);
      expect(again.body).toMatchObject({ stars: 5, comment: null, created_at: rated.body.created_at });
      expect(again.body.updated_at > rated.body.updated_at).toBe(true);
      await student2A.agent.post(path).send({ stars: 4, comment: null }).expect(200);
      await student3A.agent.post(`${catalog()}/${course.slug}/ratings`).send({ stars: 4 }).expect(200);
      const card = (
        await studentA.agent
          .get(catalog())
          .query({ q: `Rated ${t.suffix}` })
          .expect(200)
      ).body.items.find((c: { id: string }) => c.id === course.id);
      expect(card.rating).toEqual({ average: 4.3, count: 3 });
      const detail = await studentA.agent.get(`${catalog()}/${course.id}`).expect(200);
      expect(detail.body.rating).toEqual({ average: 4.3, count: 3 });
      await studentA.agent.post(`${catalog()}/${draft.id}/ratings`).send({ stars: 3 }).expect(404);
    });

    it('a read-only token cannot rate (403 credential_read_only)', async () => {
      const token = await personalToken(t, ownerA, orgA, 'read');
      const res = await bearer(t, token).post(`${catalog()}/${publicEs.id}/ratings`).send({ stars: 5 }).expect(403);
      expect(res.body.error.code).toBe('credential_read_only');
      await bearer(t, token).get(`${catalog()}/${publicEs.id}`).expect(200);
    });
  });
});
