import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const COHORT_KEYS = ['ends_on', 'id', 'institute_id', 'members_count', 'name', 'starts_on', 'teachers'];

describe('cohorts', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let otherTeacher: SignedIn;
  let student: SignedIn;
  let ownerB: SignedIn;
  let cohortB: string;

  const base = (org = orgA): string => `/api/v1/organizations/${org}/cohorts`;

  async function create(body: object, by: SignedIn = owner): Promise<{ id: string; [k: string]: unknown }> {
    const res = await by.agent.post(base()).send(body).expect(201);
    return res.body;
  }

  async function auditOf(action: string): Promise<{ action: string; target_id: string; metadata: object }[]> {
    const res = await owner.agent.get(`/api/v1/organizations/${orgA}/audit`).query({ action, limit: 200 }).expect(200);
    return res.body.items;
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Org A');
    admin = await adult(t);
    teacher = await adult(t);
    otherTeacher = await adult(t);
    student = await adult(t);
    await addMember(t, orgA, admin.user.id, 'admin');
    await addMember(t, orgA, teacher.user.id, 'teacher');
    await addMember(t, orgA, otherTeacher.user.id, 'teacher');
    await addMember(t, orgA, student.user.id, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
    cohortB = (await ownerB.agent.post(base(orgB)).send({ name: 'B cohort' }).expect(201)).body.id;
  });
  afterAll(() => t.close());

  describe('create and read', () => {
    it('creates a cohort (201) with the documented shape, and reads it back', async () => {
      const res = await admin.agent
        .post(base())
        .send({ name: '  Grupo A 2026 ', starts_on: '2026-09-01', ends_on: '2027-06-30' })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(COHORT_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Grupo A 2026',
        institute_id: null,
        starts_on: '2026-09-01',
        ends_on: '2027-06-30',
        members_count: 0,
        teachers: [],
      });
      const read = await owner.agent.get(`${base()}/${res.body.id}`).expect(200);
      expect(read.body).toEqual(res.body);
    });

    it('accepts names of 1 and 120 characters and refuses 0 and 121 (422 on name)', async () => {
      expect((await create({ name: 'x' })).name).toBe('x');
      expect((await create({ name: 'y'.repeat(120) })).name).toBe('y'.repeat(120));
      for (const name of ['', '   ', 'z'.repeat(121), null, 5]) {
        const res = await owner.agent.post(base()).send({ name }).expect(422);
        expect(res.body.error.code).toBe('validation_error');
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain('name');
      }
      await owner.agent.post(base()).send({}).expect(422);
    });

    it('validates the dates: real YYYY-MM-DD days, ends_on not before starts_on, null allowed', async () => {
      for (const [field, value] of [
        ['starts_on', '2026/09/01'],
        ['starts_on', '2026-02-30'],
        ['ends_on', '2026-9-1'],
        ['ends_on', '2026-09-01T00:00:00Z'],
      ]) {
        const res = await owner.agent
          .post(base())
          .send({ name: 'Dates', [field]: value })
          .expect(422);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      const before = await owner.agent
        .post(base())
        .send({ name: 'Dates', starts_on: '2026-09-02', ends_on: '2026-09-01' })
        .expect(422);
      expect(before.body.error).toMatchObject({
        code: 'validation_error',
        details: [{ field: 'ends_on', message: expect.any(String) }],
      });
      const same = await create({ name: 'One day', starts_on: '2026-09-01', ends_on: '2026-09-01' });
      expect([same.starts_on, same.ends_on]).toEqual(['2026-09-01', '2026-09-01']);
      const open = await create({ name: 'Open', starts_on: null, ends_on: null, institute_id: null });
      expect([open.starts_on, open.ends_on, open.institute_id]).toEqual([null, null, null]);
    });

    it('refuses unknown fields and an institute not linked to the organization (422 on institute_id)', async () => {
      await owner.agent.post(base()).send({ name: 'X', color: 'red' }).expect(422);
      const malformed = await owner.agent.post(base()).send({ name: 'X', institute_id: 'nope' }).expect(422);
      expect(malformed.body.error.details[0].field).toBe('institute_id');
      const unknown = await owner.agent
        .post(base())
        .send({ name: 'X', institute_id: '6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11' })
        .expect(422);
      expect(unknown.body.error.details).toEqual([{ field: 'institute_id', message: expect.any(String) }]);
      // An institute created by organization B is B's, not A's.
      const ofB = (await ownerB.agent.post('/api/v1/institutes').send({ name: 'B institute' }).expect(201)).body.id;
      const res = await owner.agent.post(base()).send({ name: 'X', institute_id: ofB }).expect(422);
      expect(res.body.error.details[0].field).toBe('institute_id');
    });

    it('accepts an institute the organization created', async () => {
      const institute = (await owner.agent.post('/api/v1/institutes').send({ name: 'A institute' }).expect(201)).body;
      const cohort = await create({ name: 'With institute', institute_id: institute.id.toUpperCase() });
      expect(cohort.institute_id).toBe(institute.id);
    });
  });

  describe('update and delete', () => {
    it('PATCH applies only the fields present; null clears the nullable ones', async () => {
      const institute = (await owner.agent.post('/api/v1/institutes').send({ name: 'Patch institute' }).expect(201))
        .body;
      const c = await create({
        name: 'Before',
        starts_on: '2026-01-10',
        ends_on: '2026-06-30',
        institute_id: institute.id,
      });
      const renamed = await admin.agent.patch(`${base()}/${c.id}`).send({ name: 'After' }).expect(200);
      expect(renamed.body).toEqual({ ...c, name: 'After' });
      const cleared = await owner.agent
        .patch(`${base()}/${c.id}`)
        .send({ starts_on: null, institute_id: null })
        .expect(200);
      expect(cleared.body).toEqual({ ...c, name: 'After', starts_on: null, institute_id: null });
      const unchanged = await owner.agent.patch(`${base()}/${c.id}`).send({}).expect(200);
      expect(unchanged.body).toEqual(cleared.body);
      expect((await owner.agent.get(`${base()}/${c.id}`).expect(200)).body).toEqual(cleared.body);
    });

    it('PATCH checks the resulting cohort: dates in order, name not null, linked institute', async () => {
      const c = await create({ name: 'Checked', starts_on: '2026-03-01' });
      const res = await owner.agent.patch(`${base()}/${c.id}`).send({ ends_on: '2026-02-28' }).expect(422);
      expect(res.body.error.details[0].field).toBe('ends_on');
      await owner.agent.patch(`${base()}/${c.id}`).send({ name: null }).expect(422);
      await owner.agent.patch(`${base()}/${c.id}`).send({ name: '' }).expect(422);
      await owner.agent
        .patch(`${base()}/${c.id}`)
        .send({ name: 'n'.repeat(121) })
        .expect(422);
      const inst = await owner.agent
        .patch(`${base()}/${c.id}`)
        .send({ institute_id: '6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11' })
        .expect(422);
      expect(inst.body.error.details[0].field).toBe('institute_id');
      expect((await owner.agent.get(`${base()}/${c.id}`).expect(200)).body).toEqual(c);
    });

    it('DELETE answers 204, then the cohort is gone (404) and a second DELETE is 404', async () => {
      const c = await create({ name: 'Doomed' });
      await owner.agent
        .post(`${base()}/${c.id}/members`)
        .send({ user_id: student.user.id, role: 'student' })
        .expect(201);
      const res = await admin.agent.delete(`${base()}/${c.id}`).expect(204);
      expect(res.text).toBe('');
      expect((await owner.agent.get(`${base()}/${c.id}`).expect(404)).body.error.code).toBe('not_found');
      await owner.agent.delete(`${base()}/${c.id}`).expect(404);
      // The person stays a member of the organization.
      const rows = await t.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
        orgA,
        student.user.id,
      ]);
      expect(rows).toEqual([{ role: 'student' }]);
    });
  });

  describe('tenancy', () => {
    it("an owner of another organization gets 404 for A's cohorts", async () => {
      const c = await create({ name: 'Private to A' });
      for (const req of [
        ownerB.agent.get(base()),
        ownerB.agent.get(`${base()}/${c.id}`),
        ownerB.agent.patch(`${base()}/${c.id}`).send({ name: 'Hacked' }),
        ownerB.agent.delete(`${base()}/${c.id}`),
        ownerB.agent.post(`${base()}/${c.id}/members`).send({ user_id: ownerB.user.id, role: 'student' }),
      ]) {
        const res = await req;
        expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
      }
      // Nor through the path of their own organization.
      await ownerB.agent.get(`${base(orgB)}/${c.id}`).expect(404);
      await ownerB.agent.delete(`${base(orgB)}/${c.id}`).expect(404);
      expect((await owner.agent.get(`${base()}/${c.id}`).expect(200)).body.name).toBe('Private to A');
    });

    it("a cohort id of organization B under organization A's path is 404 for every operation", async () => {
      for (const req of [
        owner.agent.get(`${base()}/${cohortB}`),
        owner.agent.patch(`${base()}/${cohortB}`).send({ name: 'Hijacked' }),
        owner.agent.delete(`${base()}/${cohortB}`),
        owner.agent.post(`${base()}/${cohortB}/members`).send({ user_id: student.user.id, role: 'student' }),
        owner.agent.delete(`${base()}/${cohortB}/members/${ownerB.user.id}`),
      ]) {
        const res = await req;
        expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
      }
      const list = await owner.agent.get(base()).query({ limit: 200 }).expect(200);
      expect(list.body.items.map((c: { id: string }) => c.id)).not.toContain(cohortB);
      const b = await ownerB.agent.get(`${base(orgB)}/${cohortB}`).expect(200);
      expect(b.body).toMatchObject({ name: 'B cohort', members_count: 0 });
    });

    it('a malformed cohort or user id is 404', async () => {
      await owner.agent.get(`${base()}/not-a-uuid`).expect(404);
      await owner.agent.patch(`${base()}/not-a-uuid`).send({ name: 'x' }).expect(404);
      await owner.agent.delete(`${base()}/not-a-uuid`).expect(404);
      const c = await create({ name: 'Ids' });
      await owner.agent.delete(`${base()}/${c.id}/members/not-a-uuid`).expect(404);
    });
  });

  describe('roles', () => {
    let taught: string;
    let notTaught: string;

    beforeAll(async () => {
      taught = (await create({ name: 'Taught by teacher' })).id;
      notTaught = (await create({ name: 'Taught by the other teacher' })).id;
      await owner.agent
        .post(`${base()}/${taught}/members`)
        .send({ user_id: teacher.user.id, role: 'teacher' })
        .expect(201);
      await owner.agent
        .post(`${base()}/${notTaught}/members`)
        .send({ user_id: otherTeacher.user.id, role: 'teacher' })
        .expect(201);
      // Being a student of a cohort does not show it to a teacher.
      await owner.agent
        .post(`${base()}/${notTaught}/members`)
        .send({ user_id: teacher.user.id, role: 'student' })
        .expect(201);
    });

    it('a teacher lists only the cohorts they teach', async () => {
      const res = await teacher.agent.get(base()).expect(200);
      expect(res.body.items.map((c: { id: string }) => c.id)).toEqual([taught]);
      expect(res.body.total).toBe(1);
      const other = await otherTeacher.agent.get(base()).expect(200);
      expect(other.body.items.map((c: { id: string }) => c.id)).toEqual([notTaught]);
      const all = await admin.agent.get(base()).query({ limit: 200 }).expect(200);
      expect(all.body.items.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([taught, notTaught]));
    });

    it('a teacher gets 403 on reading, changing or deleting a cohort by id, even one they teach', async () => {
      for (const req of [
        teacher.agent.get(`${base()}/${taught}`),
        teacher.agent.patch(`${base()}/${taught}`).send({ name: 'Mine now' }),
        teacher.agent.delete(`${base()}/${taught}`),
        teacher.agent.post(base()).send({ name: 'New' }),
        teacher.agent.post(`${base()}/${taught}/members`).send({ user_id: student.user.id, role: 'student' }),
        teacher.agent.delete(`${base()}/${notTaught}/members/${teacher.user.id}`),
      ]) {
        const res = await req;
        expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
      }
    });

    it('a student gets 403 everywhere, the list included', async () => {
      for (const req of [
        student.agent.get(base()),
        student.agent.get(`${base()}/${taught}`),
        student.agent.post(base()).send({ name: 'New' }),
        student.agent.patch(`${base()}/${taught}`).send({ name: 'x' }),
        student.agent.delete(`${base()}/${taught}`),
      ]) {
        const res = await req;
        expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
      }
    });

    it('without a credential: 401', async () => {
      expect((await t.client().get(base()).expect(401)).body.error.code).toBe('unauthorized');
    });
  });

  describe('members', () => {
    it('adds (201), repeats idempotently (200, same body), counts members and shows teachers', async () => {
      const c = await create({ name: 'Members' });
      const path = `${base()}/${c.id}/members`;
      const added = await admin.agent.post(path).send({ user_id: student.user.id, role: 'student' }).expect(201);
      expect(added.body).toEqual({ cohort_id: c.id, user_id: student.user.id, role: 'student' });
      const again = await admin.agent
        .post(path)
        .send({ user_id: student.user.id.toUpperCase(), role: 'student' })
        .expect(200);
      expect(again.body).toEqual(added.body);
      await owner.agent.post(path).send({ user_id: teacher.user.id, role: 'teacher' }).expect(201);
      const read = await owner.agent.get(`${base()}/${c.id}`).expect(200);
      expect(read.body.members_count).toBe(2);
      expect(read.body.teachers).toEqual([{ user_id: teacher.user.id, name: 'Test Person' }]);
      // A change of role answers 200 with the new role.
      const rerole = await owner.agent.post(path).send({ user_id: student.user.id, role: 'teacher' }).expect(200);
      expect(rerole.body).toEqual({ cohort_id: c.id, user_id: student.user.id, role: 'teacher' });
      const after = await owner.agent.get(`${base()}/${c.id}`).expect(200);
      expect(after.body.members_count).toBe(2);
      expect(after.body.teachers.map((x: { user_id: string }) => x.user_id).sort()).toEqual(
        [teacher.user.id, student.user.id].sort(),
      );
      const rows = await t.db.query(`SELECT count(*)::int AS n FROM cohort_members WHERE cohort_id = $1`, [c.id]);
      expect(rows[0].n).toBe(2);
    });

    it('refuses a person who is not a member of the organization (422 validation_error on user_id)', async () => {
      const c = await create({ name: 'Outsiders' });
      const path = `${base()}/${c.id}/members`;
      for (const userId of [ownerB.user.id, '6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11']) {
        const res = await owner.agent.post(path).send({ user_id: userId, role: 'student' }).expect(422);
        expect(res.body.error).toMatchObject({
          code: 'validation_error',
          details: [{ field: 'user_id', message: expect.any(String) }],
        });
      }
      for (const body of [
        { user_id: 'nope', role: 'student' },
        { user_id: student.user.id, role: 'admin' },
        { user_id: student.user.id },
      ]) {
        await owner.agent.post(path).send(body).expect(422);
      }
      expect((await owner.agent.get(`${base()}/${c.id}`).expect(200)).body.members_count).toBe(0);
      // A missing cohort is 404, not 422.
      await owner.agent
        .post(`${base()}/6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11/members`)
        .send({ user_id: student.user.id, role: 'student' })
        .expect(404);
    });

    it('removes a member (204); someone not in the cohort is 404', async () => {
      const c = await create({ name: 'Removal' });
      const path = `${base()}/${c.id}/members`;
      await owner.agent.post(path).send({ user_id: student.user.id, role: 'student' }).expect(201);
      await owner.agent.post(path).send({ user_id: teacher.user.id, role: 'teacher' }).expect(201);
      await admin.agent.delete(`${path}/${student.user.id}`).expect(204);
      await admin.agent.delete(`${path}/${student.user.id}`).expect(404);
      await admin.agent.delete(`${path}/${admin.user.id}`).expect(404);
      const read = await owner.agent.get(`${base()}/${c.id}`).expect(200);
      expect(read.body).toMatchObject({
        members_count: 1,
        teachers: [{ user_id: teacher.user.id, name: 'Test Person' }],
      });
      await admin.agent.delete(`${path}/${teacher.user.id}`).expect(204);
      const empty = await owner.agent.get(`${base()}/${c.id}`).expect(200);
      expect(empty.body).toMatchObject({ members_count: 0, teachers: [] });
    });
  });

  describe('list', () => {
    let org: string;
    let boss: SignedIn;
    let ids: string[];
    let instituteId: string;

    beforeAll(async () => {
      boss = await adult(t);
      org = await createOrganization(t, boss, 'List org');
      instituteId = (await boss.agent.post('/api/v1/institutes').send({ name: 'List institute' }).expect(201)).body.id;
      ids = [];
      for (const [name, withInstitute] of [
        ['Alpha 2026', true],
        ['Beta 2026', false],
        ['alphabet soup', false],
        ['100% online', true],
        ['Gamma_1', false],
      ] as const) {
        t.clock.advance(1000);
        const res = await boss.agent
          .post(base(org))
          .send({ name, institute_id: withInstitute ? instituteId : null })
          .expect(201);
        ids.push(res.body.id);
      }
    });
    afterAll(() => t.clock.reset());

    it('pages most recent first', async () => {
      const all = await boss.agent.get(base(org)).expect(200);
      expect(all.body).toMatchObject({ total: 5, limit: 50, offset: 0 });
      expect(all.body.items.map((c: { id: string }) => c.id)).toEqual([...ids].reverse());
      expect(Object.keys(all.body.items[0]).sort()).toEqual(COHORT_KEYS);
      const first = await boss.agent.get(base(org)).query({ limit: 2 }).expect(200);
      expect(first.body).toMatchObject({ total: 5, limit: 2, offset: 0 });
      expect(first.body.items.map((c: { id: string }) => c.id)).toEqual([ids[4], ids[3]]);
      const last = await boss.agent.get(base(org)).query({ limit: 2, offset: 4 }).expect(200);
      expect(last.body.items.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
      const beyond = await boss.agent.get(base(org)).query({ limit: 2, offset: 5 }).expect(200);
      expect(beyond.body).toEqual({ items: [], total: 5, limit: 2, offset: 5 });
      for (const query of [{ limit: 0 }, { limit: 201 }, { offset: -1 }, { limit: 'x' }]) {
        await boss.agent.get(base(org)).query(query).expect(422);
      }
    });

    it('filters by institute and by name (case-insensitive contains, wildcards taken literally)', async () => {
      const names = async (query: object): Promise<string[]> =>
        (await boss.agent.get(base(org)).query(query).expect(200)).body.items.map((c: { name: string }) => c.name);
      expect(await names({ institute_id: instituteId })).toEqual(['100% online', 'Alpha 2026']);
      expect(await names({ q: 'ALPHA' })).toEqual(['alphabet soup', 'Alpha 2026']);
      expect(await names({ q: '%' })).toEqual(['100% online']);
      expect(await names({ q: '_' })).toEqual(['Gamma_1']);
      expect(await names({ q: 'alpha', institute_id: instituteId })).toEqual(['Alpha 2026']);
      expect(await names({ q: 'nothing like it' })).toEqual([]);
      expect(await names({ q: '  ' })).toHaveLength(5);
      expect(await names({ institute_id: '6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11' })).toEqual([]);
      await boss.agent.get(base(org)).query({ institute_id: 'nope' }).expect(422);
      await boss.agent
        .get(base(org))
        .query({ q: 'q'.repeat(121) })
        .expect(422);
    });
  });

  describe('audit', () => {
    it('records every change with ids and roles only', async () => {
      const c = await create({ name: 'Audited cohort' });
      await owner.agent.patch(`${base()}/${c.id}`).send({ name: 'Audited again', ends_on: '2027-01-01' }).expect(200);
      await owner.agent
        .post(`${base()}/${c.id}/members`)
        .send({ user_id: student.user.id, role: 'student' })
        .expect(201);
      await owner.agent
        .post(`${base()}/${c.id}/members`)
        .send({ user_id: student.user.id, role: 'student' })
        .expect(200);
      await owner.agent.delete(`${base()}/${c.id}/members/${student.user.id}`).expect(204);
      await owner.agent.delete(`${base()}/${c.id}`).expect(204);

      const mine = async (action: string) => (await auditOf(action)).filter((e) => e.target_id === c.id);
      expect(await mine('cohort.created')).toEqual([
        expect.objectContaining({ actor_id: owner.user.id, target_type: 'cohort', metadata: { institute_id: null } }),
      ]);
      expect(await mine('cohort.updated')).toEqual([
        expect.objectContaining({ metadata: { fields: ['name', 'ends_on'], institute_id: null } }),
      ]);
      // The idempotent repeat records nothing.
      expect(await mine('cohort.member_added')).toEqual([
        expect.objectContaining({ metadata: { user_id: student.user.id, role: 'student', previous_role: null } }),
      ]);
      expect(await mine('cohort.member_removed')).toEqual([
        expect.objectContaining({ metadata: { user_id: student.user.id, role: 'student' } }),
      ]);
      expect(await mine('cohort.deleted')).toEqual([expect.objectContaining({ metadata: { institute_id: null } })]);
      const text = JSON.stringify(await auditOf('cohort.updated'));
      expect(text).not.toContain('Audited');
      expect(text).not.toContain(owner.email);
    });

    it('refused and failed changes record nothing', async () => {
      const before = (await auditOf('cohort.created')).length;
      await owner.agent.post(base()).send({ name: '' }).expect(422);
      await student.agent.post(base()).send({ name: 'No' }).expect(403);
      expect((await auditOf('cohort.created')).length).toBe(before);
    });
  });
});
