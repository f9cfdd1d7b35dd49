import { randomBytes } from 'node:crypto';
import { signIn, type SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const PATH_KEYS = [
  'badge',
  'capstone',
  'courses',
  'created_at',
  'description_md',
  'id',
  'issues_certificate',
  'kind',
  'organization_ids',
  'slug',
  'status',
  'title',
  'updated_at',
  'visibility',
];
const PROGRESS_KEYS = ['capstone', 'certificate', 'completed', 'courses', 'path_id', 'title'];
const SUBMISSION_KEYS = [
  'content_md',
  'feedback',
  'graded_at',
  'graded_by',
  'id',
  'learner',
  'path_id',
  'score',
  'status',
  'submitted_at',
  'url',
];

/** A path as the editor API answers it (read loosely: asserting on it is the point). */
type PathBody = { id: string; slug: string; [field: string]: unknown };

describe('learning paths and programs', () => {
  let t: TestApp;
  let editor: SignedIn;
  let orgA: string;
  let orgB: string;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let learner: SignedIn;
  let ownerB: SignedIn;
  let c1: string;
  let c2: string;
  let c3: string;
  let draftCourse: string;
  let slugSeq = 0;

  const editorPaths = '/api/v1/editor/paths';
  const orgPaths = (org = orgA): string => `/api/v1/organizations/${org}/paths`;
  const program = (id: string, org = orgA): string => `/api/v1/organizations/${org}/programs/${id}`;
  const slug = (base = 'p'): string => `${base}-${++slugSeq}-${randomBytes(3).toString('hex')}`;

  async function course(title: string, status = 'published'): Promise<string> {
    const [row] = await t.db.query(
      `INSERT INTO courses (slug, title, language, level, status) VALUES ($1, $2, 'es', 'beginner', $3) RETURNING id`,
      [`c-${randomBytes(5).toString('hex')}`, title, status],
    );
    return row.id;
  }

  async function complete(org: string, who: SignedIn, ...courseIds: string[]): Promise<void> {
    for (const id of courseIds) {
      await t.db.query(
        `INSERT INTO enrollments (organization_id, user_id, course_id, status, completed_at) VALUES ($1, $2, $3, 'completed', now())`,
        [org, who.user.id, id],
      );
    }
  }

  async function create(body: Record<string, unknown>): Promise<PathBody> {
    const res = await editor.agent.post(editorPaths).send({
      slug: slug(),
      title: 'A program',
      kind: 'program',
      courses: [{ course_id: c1 }],
      status: 'published',
      ...body,
    });
    if (res.status !== 201) throw new Error(`create failed ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  }

  async function member(org: string, role: 'student' | 'teacher' | 'admin'): Promise<SignedIn> {
    const p = await adult(t);
    await addMember(t, org, p.user.id, role);
    return p;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'editor@platform.test' } });
    editor = await signIn(t, 'editor@platform.test');
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Org A');
    admin = await member(orgA, 'admin');
    teacher = await member(orgA, 'teacher');
    otherTeacher = await member(orgA, 'teacher');
    learner = await member(orgA, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
    c1 = await course('Uno');
    c2 = await course('Dos');
    c3 = await course('Tres');
    draftCourse = await course('Borrador', 'draft');
  });
  afterAll(() => t.close());

  describe('authoring (editor)', () => {
    it('creates a program (201) with courses in array order and defaults', async () => {
      const res = await editor.agent
        .post(editorPaths)
        .send({
          title: '  Analista de datos ',
          slug: 'analista-de-datos',
          kind: 'program',
          description_md: '# Programa',
          courses: [{ course_id: c3 }, { course_id: c1, required: false }, { course_id: draftCourse }],
          capstone: { title: 'Proyecto final', instructions_md: 'Entrega un análisis', passing_score: 70 },
          issues_certificate: true,
          badge: { name: 'Analista', icon: 'chart-bar' },
          organization_ids: [orgA],
        })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual([...PATH_KEYS].sort());
      expect(res.body).toEqual({
        id: expect.any(String),
        slug: 'analista-de-datos',
        title: 'Analista de datos',
        kind: 'program',
        description_md: '# Programa',
        courses: [
          { course_id: c3, title: 'Tres', required: true, position: 1 },
          { course_id: c1, title: 'Uno', required: false, position: 2 },
          { course_id: draftCourse, title: 'Borrador', required: true, position: 3 },
        ],
        capstone: { title: 'Proyecto final', instructions_md: 'Entrega un análisis', passing_score: 70 },
        issues_certificate: true,
        badge: { name: 'Analista', icon: 'chart-bar' },
        status: 'draft',
        visibility: 'public',
        organization_ids: [orgA],
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      const read = await editor.agent.get(`${editorPaths}/${res.body.id}`).expect(200);
      expect(read.body).toEqual(res.body);
    });

    it('refuses unknown and repeated courses, an empty list, and unknown organizations (422)', async () => {
      const base = { title: 'X', slug: slug(), kind: 'path' };
      const unknown = await editor.agent
        .post(editorPaths)
        .send({ ...base, courses: [{ course_id: c1 }, { course_id: '00000000-0000-4000-8000-000000000000' }] })
        .expect(422);
      expect(unknown.body.error.details).toEqual([
        { field: 'courses.1.course_id', message: 'course_id must be an existing course' },
      ]);
      const repeated = await editor.agent
        .post(editorPaths)
        .send({ ...base, courses: [{ course_id: c1 }, { course_id: c1 }] })
        .expect(422);
      expect(repeated.body.error.details[0].field).toBe('courses.1.course_id');
      await editor.agent
        .post(editorPaths)
        .send({ ...base, courses: [] })
        .expect(422);
      await editor.agent
        .post(editorPaths)
        .send({ ...base, courses: [{ course_id: 'x' }] })
        .expect(422);
      const orgs = await editor.agent
        .post(editorPaths)
        .send({ ...base, courses: [{ course_id: c1 }], organization_ids: ['00000000-0000-4000-8000-000000000001'] })
        .expect(422);
      expect(orgs.body.error.details[0].field).toBe('organization_ids');
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM learning_paths WHERE slug = $1`, [base.slug]);
      expect(n).toBe(0);
    });

    it('slugs are unique (409 slug_taken), well-formed and never a UUID (422)', async () => {
      const first = await create({ kind: 'path' });
      const taken = await editor.agent
        .post(editorPaths)
        .send({ title: 'Y', slug: first.slug, kind: 'path', courses: [{ course_id: c1 }] })
        .expect(409);
      expect(taken.body.error.code).toBe('slug_taken');
      for (const bad of ['AB', 'ab', 'with space', 'a'.repeat(81), '3f2c1a9e-1111-4222-8333-444455556666']) {
        const res = await editor.agent
          .post(editorPaths)
          .send({ title: 'Y', slug: bad, kind: 'path', courses: [{ course_id: c1 }] })
          .expect(422);
        expect(res.body.error.details[0].field).toBe('slug');
      }
      await editor.agent
        .post(editorPaths)
        .send({ title: 'Y', slug: 'a'.repeat(80), kind: 'path', courses: [{ course_id: c1 }] })
        .expect(201);
    });

    it('a capstone and a certificate are for programs only (422 on a path)', async () => {
      const capstone = await editor.agent
        .post(editorPaths)
        .send({
          title: 'P',
          slug: slug(),
          kind: 'path',
          courses: [{ course_id: c1 }],
          capstone: { title: 'C', instructions_md: '', passing_score: 50 },
          issues_certificate: true,
        })
        .expect(422);
      expect(capstone.body.error.details.map((d: { field: string }) => d.field)).toEqual([
        'capstone',
        'issues_certificate',
      ]);
      for (const capstoneBody of [
        { title: '', instructions_md: '', passing_score: 50 },
        { title: 'C', instructions_md: '', passing_score: 101 },
        { title: 'C', passing_score: 50 },
      ]) {
        await editor.agent
          .post(editorPaths)
          .send({ title: 'P', slug: slug(), kind: 'program', courses: [{ course_id: c1 }], capstone: capstoneBody })
          .expect(422);
      }
    });

    it('updates only the fields present; courses and organizations replace the lists; null clears', async () => {
      const p = await create({
        courses: [{ course_id: c1 }, { course_id: c2 }],
        capstone: { title: 'C', instructions_md: 'i', passing_score: 60 },
        badge: { name: 'B' },
        organization_ids: [orgA],
      });
      const res = await editor.agent
        .patch(`${editorPaths}/${p.id}`)
        .send({
          title: 'Renamed',
          courses: [{ course_id: c2, required: false }, { course_id: c3 }],
          capstone: null,
          badge: null,
          organization_ids: [orgB],
          visibility: 'restricted',
        })
        .expect(200);
      expect(res.body).toMatchObject({
        title: 'Renamed',
        slug: p.slug,
        courses: [
          { course_id: c2, required: false, position: 1 },
          { course_id: c3, required: true, position: 2 },
        ],
        capstone: null,
        badge: null,
        organization_ids: [orgB],
        visibility: 'restricted',
        status: 'published',
      });
      const untouched = await editor.agent.patch(`${editorPaths}/${p.id}`).send({}).expect(200);
      expect(untouched.body).toMatchObject({ title: 'Renamed', courses: res.body.courses });
      const other = await create({ kind: 'path' });
      expect(
        (await editor.agent.patch(`${editorPaths}/${p.id}`).send({ slug: other.slug }).expect(409)).body.error.code,
      ).toBe('slug_taken');
      await editor.agent.patch(`${editorPaths}/${p.id}`).send({ slug: p.slug }).expect(200);
      const withCapstone = await create({ capstone: { title: 'C', instructions_md: '', passing_score: 1 } });
      await editor.agent.patch(`${editorPaths}/${withCapstone.id}`).send({ kind: 'path' }).expect(422);
      await editor.agent.patch(`${editorPaths}/${withCapstone.id}`).send({ kind: 'path', capstone: null }).expect(200);
      await editor.agent.patch(`${editorPaths}/${p.id}`).send({ title: '' }).expect(422);
      await editor.agent
        .patch(`${editorPaths}/${p.id}`)
        .send({ courses: [{ course_id: draftCourse }, { course_id: draftCourse }] })
        .expect(422);
      await editor.agent.patch(`${editorPaths}/00000000-0000-4000-8000-000000000000`).send({ title: 'x' }).expect(404);
      await editor.agent.get(`${editorPaths}/nope`).expect(404);
    });

    it('lists every path, any status, most recent first, filtered by kind and status', async () => {
      const draft = await create({ kind: 'path', status: 'draft' });
      const page = await editor.agent.get(editorPaths).query({ kind: 'path', status: 'draft', limit: 200 }).expect(200);
      expect(
        page.body.items.every((p: { kind: string; status: string }) => p.kind === 'path' && p.status === 'draft'),
      ).toBe(true);
      expect(page.body.items[0].id).toBe(draft.id);
      const one = await editor.agent.get(editorPaths).query({ limit: 1, offset: 1 }).expect(200);
      expect(one.body).toMatchObject({ limit: 1, offset: 1 });
      expect(one.body.total).toBeGreaterThan(5);
      await editor.agent.get(editorPaths).query({ kind: 'course' }).expect(422);
    });

    it('needs the editor platform role (403) and a credential (401)', async () => {
      for (const [method, path] of [
        ['get', editorPaths],
        ['post', editorPaths],
        ['get', `${editorPaths}/00000000-0000-4000-8000-000000000000`],
        ['patch', `${editorPaths}/00000000-0000-4000-8000-000000000000`],
      ] as const) {
        const res = await owner.agent[method](path).send({});
        expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
        await t.http()[method](path).expect(401);
      }
    });
  });

  describe('what an organization sees', () => {
    let pub: PathBody;
    let restrictedA: PathBody;
    let restrictedB: PathBody;
    let draft: PathBody;
    let unpublished: PathBody;
    let path: PathBody;
    let viewer: SignedIn;

    beforeAll(async () => {
      pub = await create({ title: 'Public program', courses: [{ course_id: c1 }, { course_id: c2, required: false }] });
      restrictedA = await create({ title: 'Only A', visibility: 'restricted', organization_ids: [orgA] });
      restrictedB = await create({ title: 'Only B', visibility: 'restricted', organization_ids: [orgB] });
      draft = await create({ title: 'Draft', status: 'draft' });
      unpublished = await create({ title: 'Gone', status: 'unpublished' });
      path = await create({ title: 'A path', kind: 'path', courses: [{ course_id: c2 }, { course_id: c3 }] });
      viewer = await member(orgA, 'student');
      await complete(orgA, viewer, c1, c2);
    });

    it("lists published paths and programs visible to the organization with the caller's completion", async () => {
      const res = await viewer.agent.get(orgPaths()).query({ limit: 200 }).expect(200);
      const ids = res.body.items.map((i: { id: string }) => i.id);
      expect(ids).toEqual(expect.arrayContaining([pub.id, restrictedA.id, path.id]));
      for (const hidden of [restrictedB.id, draft.id, unpublished.id]) expect(ids).not.toContain(hidden);
      const item = res.body.items.find((i: { id: string }) => i.id === pub.id);
      expect(item).toEqual({
        id: pub.id,
        slug: pub.slug,
        title: 'Public program',
        kind: 'program',
        description_md: '',
        courses: [
          { course_id: c1, title: 'Uno', required: true, completed: true },
          { course_id: c2, title: 'Dos', required: false, completed: true },
        ],
        capstone: null,
        issues_certificate: false,
        badge: null,
        completed: false,
      });
      const p = res.body.items.find((i: { id: string }) => i.id === path.id);
      expect(p).toMatchObject({ kind: 'path', completed: false });
      expect(p.courses.map((c: { completed: boolean }) => c.completed)).toEqual([true, false]);
      const inB = await ownerB.agent.get(orgPaths(orgB)).query({ limit: 200 }).expect(200);
      const idsB = inB.body.items.map((i: { id: string }) => i.id);
      expect(idsB).toContain(restrictedB.id);
      expect(idsB).not.toContain(restrictedA.id);
      const programsOnly = await viewer.agent.get(orgPaths()).query({ kind: 'path', limit: 200 }).expect(200);
      expect(programsOnly.body.items.every((i: { kind: string }) => i.kind === 'path')).toBe(true);
    });

    it('a path counts as completed once its required courses are', async () => {
      await complete(orgA, viewer, c3);
      const res = await viewer.agent.get(orgPaths()).query({ kind: 'path', limit: 200 }).expect(200);
      expect(res.body.items.find((i: { id: string }) => i.id === path.id).completed).toBe(true);
    });

    it('program progress by id or slug; 404 for drafts, unpublished, other organizations, plain paths, unknown', async () => {
      const byId = await viewer.agent.get(`${program(pub.id)}/progress`).expect(200);
      expect(Object.keys(byId.body).sort()).toEqual(PROGRESS_KEYS);
      expect(byId.body).toEqual({
        path_id: pub.id,
        title: 'Public program',
        completed: false,
        courses: [
          { course_id: c1, title: 'Uno', required: true, completed: true },
          { course_id: c2, title: 'Dos', required: false, completed: true },
        ],
        capstone: null,
        certificate: null,
      });
      expect((await viewer.agent.get(`${program(pub.slug)}/progress`).expect(200)).body).toEqual(byId.body);
      await viewer.agent.get(`${program(restrictedA.id)}/progress`).expect(200);
      for (const id of [
        draft.id,
        unpublished.id,
        restrictedB.id,
        path.id,
        path.slug,
        'no-such-program',
        'x'.repeat(81),
      ]) {
        const res = await viewer.agent.get(`${program(id)}/progress`);
        expect([id, res.status, res.body.error?.code]).toEqual([id, 404, 'not_found']);
      }
      await ownerB.agent.get(`${program(restrictedB.id, orgB)}/progress`).expect(200);
    });
  });

  describe('claiming the credential (the program state table)', () => {
    let full: PathBody;
    beforeAll(async () => {
      full = await create({
        title: 'Data Analyst',
        courses: [{ course_id: c1 }, { course_id: c2 }, { course_id: c3, required: false }],
        capstone: { title: 'Final project', instructions_md: 'Analyse a data set', passing_score: 70 },
        issues_certificate: true,
        badge: { name: 'Data Analyst', icon: 'chart' },
      });
    });
    const claim = (who: SignedIn, id = full.id, org = orgA) => who.agent.post(`${program(id, org)}/credential`);

    async function passCapstone(who: SignedIn, id = full.id, score = 85): Promise<void> {
      const sub = await who.agent
        .post(`${program(id)}/capstone/submissions`)
        .send({ content_md: 'My work' })
        .expect(201);
      await owner.agent
        .post(`${program(id)}/capstone/submissions/${sub.body.id}/grade`)
        .send({ score })
        .expect(200);
    }

    async function grants(who: SignedIn, pathId = full.id) {
      const [row] = await t.db.query(
        `SELECT (SELECT count(*)::int FROM issued_certificates WHERE user_id = $1 AND path_id = $2) AS certificates,
                (SELECT count(*)::int FROM badge_awards WHERE user_id = $1 AND path_id = $2) AS badges,
                (SELECT count(*)::int FROM program_completions WHERE user_id = $1 AND path_id = $2) AS completions`,
        [who.user.id, pathId],
      );
      return row;
    }

    it('409 program_not_completed while a required course is missing (optional ones do not count)', async () => {
      const p = await member(orgA, 'student');
      expect((await claim(p).expect(409)).body.error.code).toBe('program_not_completed');
      await complete(orgA, p, c1, c3);
      expect((await claim(p).expect(409)).body.error.code).toBe('program_not_completed');
      await passCapstone(p);
      expect((await claim(p).expect(409)).body.error.code).toBe('program_not_completed');
      expect(await grants(p)).toEqual({ certificates: 0, badges: 0, completions: 0 });
    });

    it('409 capstone_required when the courses are done but no submission passed', async () => {
      const p = await member(orgA, 'student');
      await complete(orgA, p, c1, c2);
      expect((await claim(p).expect(409)).body.error.code).toBe('capstone_required');
      await passCapstone(p, full.id, 69); // graded, failed
      expect((await claim(p).expect(409)).body.error.code).toBe('capstone_required');
      const progress = await p.agent.get(`${program(full.id)}/progress`).expect(200);
      expect(progress.body.capstone).toEqual({ required: true, passed: false });
    });

    it('completes: records the completion, grants the badge and issues the program certificate; then idempotent', async () => {
      const p = await member(orgA, 'student');
      await complete(orgA, p, c1, c2);
      await passCapstone(p, full.id, 69);
      await passCapstone(p, full.id, 91);
      const res = await claim(p).expect(200);
      expect(Object.keys(res.body).sort()).toEqual(PROGRESS_KEYS);
      expect(res.body).toMatchObject({
        path_id: full.id,
        title: 'Data Analyst',
        completed: true,
        capstone: { required: true, passed: true },
        certificate: {
          type: 'program',
          status: 'active',
          code: expect.stringMatching(/^PRG-[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/),
          holder: { user_id: p.user.id, name: 'Test Person' },
          organization_id: orgA,
          path_id: full.id,
          course_id: null,
          title: 'Data Analyst',
        },
      });
      expect(await grants(p)).toEqual({ certificates: 1, badges: 1, completions: 1 });
      const [badge] = await t.db.query(`SELECT name, icon FROM badge_awards WHERE user_id = $1`, [p.user.id]);
      expect(badge).toEqual({ name: 'Data Analyst', icon: 'chart' });
      const [{ grade }] = await t.db.query(`SELECT grade FROM issued_certificates WHERE user_id = $1`, [p.user.id]);
      expect(grade).toBe(91);

      const again = await claim(p, full.slug).expect(200);
      expect(again.body).toEqual(res.body);
      expect(await grants(p)).toEqual({ certificates: 1, badges: 1, completions: 1 });
      const verified = await t
        .client()
        .get(`/api/v1/public/certificates/verify/${res.body.certificate.code}`)
        .expect(200);
      expect(verified.body).toMatchObject({ status: 'valid', credential: { type: 'program', title: 'Data Analyst' } });
      const mine = await p.agent.get('/api/v1/me/certificates').expect(200);
      expect(mine.body.items.map((i: { id: string }) => i.id)).toEqual([res.body.certificate.id]);
    });

    it('never a second certificate or badge under concurrent claims', async () => {
      const p = await member(orgA, 'student');
      await complete(orgA, p, c1, c2);
      await passCapstone(p);
      const results = await Promise.all(Array.from({ length: 8 }, () => claim(p)));
      expect(results.map((r) => r.status)).toEqual(Array(8).fill(200));
      expect(new Set(results.map((r) => r.body.certificate.id)).size).toBe(1);
      expect(await grants(p)).toEqual({ certificates: 1, badges: 1, completions: 1 });
    });

    it('a revoked program certificate stays revoked: claiming again issues no new one', async () => {
      const p = await member(orgA, 'student');
      await complete(orgA, p, c1, c2);
      await passCapstone(p);
      const first = await claim(p).expect(200);
      await owner.agent
        .post(`/api/v1/organizations/${orgA}/issued-certificates/${first.body.certificate.id}/revoke`)
        .send({ reason: 'Fraud' })
        .expect(200);
      const again = await claim(p).expect(200);
      expect(again.body.certificate).toMatchObject({ id: first.body.certificate.id, status: 'revoked' });
      expect(await grants(p)).toEqual({ certificates: 1, badges: 1, completions: 1 });
    });

    it('a program without certificate or badge still completes; one with no required course needs them all', async () => {
      const plain = await create({
        courses: [
          { course_id: c1, required: false },
          { course_id: c2, required: false },
        ],
      });
      const p = await member(orgA, 'student');
      await complete(orgA, p, c1);
      expect((await claim(p, plain.id).expect(409)).body.error.code).toBe('program_not_completed');
      await complete(orgA, p, c2);
      const res = await claim(p, plain.id).expect(200);
      expect(res.body).toMatchObject({ completed: true, capstone: null, certificate: null });
      expect(await grants(p, plain.id)).toEqual({ certificates: 0, badges: 0, completions: 1 });
    });

    it('404 for programs the organization does not see, and for plain paths', async () => {
      const hidden = await create({ visibility: 'restricted', organization_ids: [orgB] });
      const plainPath = await create({ kind: 'path' });
      for (const id of [hidden.id, plainPath.id, 'unknown-slug']) {
        expect((await claim(learner, id).expect(404)).body.error.code).toBe('not_found');
      }
    });
  });

  describe('capstone', () => {
    let prog: PathBody;
    let noCapstone: PathBody;
    let student: SignedIn;
    let classmate: SignedIn;
    let outsiderStudent: SignedIn;
    const subs = (id = prog.id): string => `${program(id)}/capstone/submissions`;

    beforeAll(async () => {
      prog = await create({ capstone: { title: 'Final', instructions_md: 'Do it', passing_score: 70 } });
      noCapstone = await create({});
      student = await member(orgA, 'student');
      classmate = await member(orgA, 'student');
      outsiderStudent = await member(orgA, 'student');
      const cohort = (
        await owner.agent.post(`/api/v1/organizations/${orgA}/cohorts`).send({ name: 'Capstone' }).expect(201)
      ).body.id;
      for (const [p, role] of [
        [teacher, 'teacher'],
        [student, 'student'],
        [classmate, 'student'],
      ] as const) {
        await owner.agent
          .post(`/api/v1/organizations/${orgA}/cohorts/${cohort}/members`)
          .send({ user_id: p.user.id, role })
          .expect(201);
      }
    });

    it('a member submits (201) in the documented shape; limits on content and url', async () => {
      const res = await student.agent
        .post(subs())
        .send({ content_md: '# My analysis', url: 'https://github.com/me/project' })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(SUBMISSION_KEYS);
      expect(res.body).toEqual({
        id: expect.any(String),
        path_id: prog.id,
        learner: { user_id: student.user.id, name: 'Test Person' },
        content_md: '# My analysis',
        url: 'https://github.com/me/project',
        status: 'submitted',
        score: null,
        feedback: null,
        graded_by: null,
        graded_at: null,
        submitted_at: expect.any(String),
      });
      await student.agent
        .post(subs())
        .send({ content_md: 'x'.repeat(20000), url: null })
        .expect(201);
      await student.agent
        .post(subs())
        .send({ content_md: 'x', url: `https://example.com/${'a'.repeat(492)}` })
        .expect(201);
      for (const body of [
        {},
        { content_md: '' },
        { content_md: '   ' },
        { content_md: 'x'.repeat(20001) },
        { content_md: 'x', url: 'ftp://example.com/a' },
        { content_md: 'x', url: 'javascript:alert(1)' },
        { content_md: 'x', url: `https://example.com/${'a'.repeat(493)}` },
      ]) {
        const r = await student.agent.post(subs()).send(body).expect(422);
        expect(r.body.error.code).toBe('validation_error');
      }
      expect(
        (await student.agent.post(subs(noCapstone.id)).send({ content_md: 'x' }).expect(404)).body.error.code,
      ).toBe('not_found');
    });

    it("lists: a learner their own, a teacher their cohorts' students, owner/admin everyone", async () => {
      const mine = await classmate.agent.post(subs()).send({ content_md: 'classmate work' }).expect(201);
      const stranger = await outsiderStudent.agent.post(subs()).send({ content_md: 'outsider work' }).expect(201);
      const owners = (res: { body: { items: { learner: { user_id: string } }[] } }) =>
        new Set(res.body.items.map((i) => i.learner.user_id));
      expect(owners(await classmate.agent.get(subs()).expect(200))).toEqual(new Set([classmate.user.id]));
      expect(owners(await teacher.agent.get(subs()).query({ limit: 200 }).expect(200))).toEqual(
        new Set([student.user.id, classmate.user.id]),
      );
      expect((await otherTeacher.agent.get(subs()).expect(200)).body.total).toBe(0);
      expect(owners(await admin.agent.get(subs()).query({ limit: 200 }).expect(200))).toEqual(
        new Set([student.user.id, classmate.user.id, outsiderStudent.user.id]),
      );
      const filtered = await teacher.agent.get(subs()).query({ user_id: classmate.user.id }).expect(200);
      expect(filtered.body.items.map((i: { id: string }) => i.id)).toEqual([mine.body.id]);
      const outOfScope = await teacher.agent.get(subs()).query({ user_id: outsiderStudent.user.id }).expect(200);
      expect(outOfScope.body.total).toBe(0);
      const newest = await admin.agent.get(subs()).query({ limit: 1 }).expect(200);
      expect(newest.body.items[0].id).toBe(stranger.body.id);
      await admin.agent.get(subs()).query({ status: 'bogus' }).expect(422);
    });

    it('grading: the teacher of the learner, at and around the passing score, audited', async () => {
      const s = await student.agent.post(subs()).send({ content_md: 'to grade' }).expect(201);
      const failed = await teacher.agent
        .post(`${subs()}/${s.body.id}/grade`)
        .send({ score: 69, feedback: 'Almost' })
        .expect(200);
      expect(failed.body).toMatchObject({
        status: 'failed',
        score: 69,
        feedback: 'Almost',
        graded_by: teacher.user.id,
      });
      const passed = await teacher.agent.post(`${subs()}/${s.body.id}/grade`).send({ score: 70 }).expect(200);
      expect(passed.body).toMatchObject({ status: 'passed', score: 70, feedback: null });
      expect(passed.body.graded_at).toEqual(expect.any(String));
      const audit = await owner.agent
        .get(`/api/v1/organizations/${orgA}/audit`)
        .query({ action: 'capstone.graded' })
        .expect(200);
      expect(audit.body.items[0]).toMatchObject({
        actor_id: teacher.user.id,
        target_id: s.body.id,
        metadata: { path_id: prog.id, user_id: student.user.id, score: 70, status: 'passed' },
      });
      expect(JSON.stringify(audit.body.items)).not.toContain('Almost');
      const progress = await student.agent.get(`${program(prog.id)}/progress`).expect(200);
      expect(progress.body.capstone).toEqual({ required: true, passed: true });
    });

    it('refuses a teacher who does not teach the learner, a student, and self-grading (403)', async () => {
      const s = await student.agent.post(subs()).send({ content_md: 'x' }).expect(201);
      for (const who of [otherTeacher, classmate]) {
        const res = await who.agent.post(`${subs()}/${s.body.id}/grade`).send({ score: 90 }).expect(403);
        expect(res.body.error.code).toBe('forbidden');
      }
      const own = await teacher.agent.post(subs()).send({ content_md: 'teacher work' }).expect(201);
      await teacher.agent.post(`${subs()}/${own.body.id}/grade`).send({ score: 100 }).expect(403);
      await admin.agent.post(`${subs()}/${own.body.id}/grade`).send({ score: 100 }).expect(200);
    });

    it('validates the grade (score 0..100, feedback up to 5000) and 404s foreign submissions', async () => {
      const s = await student.agent.post(subs()).send({ content_md: 'x' }).expect(201);
      for (const body of [
        {},
        { score: -1 },
        { score: 101 },
        { score: 50.5 },
        { score: 50, feedback: 'f'.repeat(5001) },
      ]) {
        await owner.agent.post(`${subs()}/${s.body.id}/grade`).send(body).expect(422);
      }
      await owner.agent
        .post(`${subs()}/${s.body.id}/grade`)
        .send({ score: 0, feedback: 'f'.repeat(5000) })
        .expect(200);
      await owner.agent.post(`${subs()}/${s.body.id}/grade`).send({ score: 100 }).expect(200);
      const other = await create({ capstone: { title: 'Other', instructions_md: '', passing_score: 10 } });
      await owner.agent
        .post(`${subs(other.id)}/${s.body.id}/grade`)
        .send({ score: 100 })
        .expect(404);
      await owner.agent.post(`${subs()}/00000000-0000-4000-8000-000000000000/grade`).send({ score: 1 }).expect(404);
      await owner.agent.post(`${subs()}/nope/grade`).send({ score: 1 }).expect(404);
    });
  });
});
