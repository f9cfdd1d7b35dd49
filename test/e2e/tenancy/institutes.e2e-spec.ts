import { OrganizationsService } from '@/modules/tenancy/organizations';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const INSTITUTE_KEYS = ['city', 'cohorts_count', 'contact_email', 'created_at', 'id', 'name', 'website'];
const MISSING = '6f1c2a6e-3b0e-4b8a-9d7e-2a9d0f6c1b11';

type Institute = { id: string; name: string; cohorts_count: number; cohorts?: { id: string }[] };

describe('institutes', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let student: SignedIn;
  let ownerB: SignedIn;

  /** An institute created outside the API (a legacy import): linked to nobody. */
  async function legacyInstitute(name: string): Promise<string> {
    const rows = await t.db.query(`INSERT INTO institutes (name) VALUES ($1) RETURNING id`, [name]);
    return rows[0].id as string;
  }

  async function setLegacy(organizationId: string, instituteId: string | null): Promise<void> {
    await t.db.query(`UPDATE organizations SET legacy_institute_id = $2 WHERE id = $1`, [organizationId, instituteId]);
  }

  async function listed(who: SignedIn): Promise<Institute[]> {
    return (await who.agent.get('/api/v1/institutes').expect(200)).body.institutes;
  }

  async function cohort(who: SignedIn, org: string, instituteId: string | null, name = 'Cohort'): Promise<string> {
    const res = await who.agent
      .post(`/api/v1/organizations/${org}/cohorts`)
      .send({ name, institute_id: instituteId })
      .expect(201);
    return res.body.id as string;
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Org A');
    admin = await adult(t);
    teacher = await adult(t);
    student = await adult(t);
    for (const [who, role] of [
      [admin, 'admin'],
      [teacher, 'teacher'],
      [student, 'student'],
    ] as const) {
      await addMember(t, orgA, who.user.id, role);
      await who.agent.put('/api/v1/me/active-organization').send({ organization_id: orgA }).expect(200);
    }
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');
  });
  afterAll(() => t.close());

  describe('linkage', () => {
    it('an institute the organization creates is linked to it (201, cohorts_count 0) and only to it', async () => {
      const res = await admin.agent
        .post('/api/v1/institutes')
        .send({
          name: ' Facultad de Ciencias ',
          city: 'Madrid',
          contact_email: 'info@ciencias.example',
          website: 'https://ciencias.example',
        })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(INSTITUTE_KEYS);
      expect(res.body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Facultad de Ciencias',
        city: 'Madrid',
        contact_email: 'info@ciencias.example',
        website: 'https://ciencias.example',
        cohorts_count: 0,
        created_at: expect.any(String),
      });
      expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
      const mine = await listed(student);
      expect(mine).toContainEqual(res.body);
      for (const entry of mine) expect(entry).not.toHaveProperty('cohorts');
      const read = await teacher.agent.get(`/api/v1/institutes/${res.body.id}`).expect(200);
      expect(read.body).toEqual({ ...res.body, cohorts: [] });
      // Organization B does not see it.
      expect((await listed(ownerB)).map((i) => i.id)).not.toContain(res.body.id);
      expect((await ownerB.agent.get(`/api/v1/institutes/${res.body.id}`).expect(404)).body.error.code).toBe(
        'not_found',
      );
    });

    it("the organization's legacy institute is linked to it", async () => {
      const id = await legacyInstitute('Legacy only');
      await owner.agent.get(`/api/v1/institutes/${id}`).expect(404);
      expect((await listed(owner)).map((i) => i.id)).not.toContain(id);
      await setLegacy(orgA, id);
      const read = await owner.agent.get(`/api/v1/institutes/${id}`).expect(200);
      expect(read.body).toMatchObject({ id, name: 'Legacy only', city: null, cohorts_count: 0, cohorts: [] });
      expect((await listed(owner)).map((i) => i.id)).toContain(id);
      await owner.agent.get(`/api/v1/institutes/${id}`).expect(200);
      await ownerB.agent.get(`/api/v1/institutes/${id}`).expect(404);
      await setLegacy(orgA, null);
    });

    it('an institute one of the organization’s cohorts belongs to is linked to it', async () => {
      const id = await legacyInstitute('Through a cohort');
      await setLegacy(orgA, id);
      const cohortId = await cohort(owner, orgA, id, 'Cohort of the legacy institute');
      // The legacy link goes; the cohort keeps the institute linked.
      await setLegacy(orgA, null);
      const read = await owner.agent.get(`/api/v1/institutes/${id}`).expect(200);
      expect(read.body.cohorts_count).toBe(1);
      expect(read.body.cohorts).toEqual([
        {
          id: cohortId,
          name: 'Cohort of the legacy institute',
          institute_id: id,
          starts_on: null,
          ends_on: null,
          members_count: 0,
          teachers: [],
        },
      ]);
      expect((await listed(owner)).find((i) => i.id === id)?.cohorts_count).toBe(1);
      // A second cohort may name it, since it is linked.
      await cohort(owner, orgA, id, 'Second cohort');
      expect((await listed(owner)).find((i) => i.id === id)?.cohorts_count).toBe(2);
      await ownerB.agent.get(`/api/v1/institutes/${id}`).expect(404);
      // The same holds for a cohort written by a data import.
      const imported = await legacyInstitute('Imported cohort institute');
      await t.db.query(`INSERT INTO cohorts (organization_id, institute_id, name) VALUES ($1, $2, 'Imported')`, [
        orgA,
        imported,
      ]);
      expect((await listed(owner)).find((i) => i.id === imported)?.cohorts_count).toBe(1);
    });

    it("counts and lists only the institute's cohorts in the organization of the request", async () => {
      const shared = await legacyInstitute('Shared legacy institute');
      await setLegacy(orgA, shared);
      await setLegacy(orgB, shared);
      const inA = [await cohort(owner, orgA, shared, 'A1'), await cohort(owner, orgA, shared, 'A2')];
      const inB = [
        await cohort(ownerB, orgB, shared, 'B1'),
        await cohort(ownerB, orgB, shared, 'B2'),
        await cohort(ownerB, orgB, shared, 'B3'),
      ];
      // Cohorts of A without an institute or of another institute are not counted either.
      await cohort(owner, orgA, null, 'No institute');

      expect((await listed(owner)).find((i) => i.id === shared)?.cohorts_count).toBe(2);
      expect((await listed(ownerB)).find((i) => i.id === shared)?.cohorts_count).toBe(3);
      const a = (await owner.agent.get(`/api/v1/institutes/${shared}`).expect(200)).body;
      expect(a.cohorts_count).toBe(2);
      expect(a.cohorts.map((c: { id: string }) => c.id).sort()).toEqual([...inA].sort());
      const b = (await ownerB.agent.get(`/api/v1/institutes/${shared}`).expect(200)).body;
      expect(b.cohorts.map((c: { id: string }) => c.id).sort()).toEqual([...inB].sort());
      for (const id of inB) expect(JSON.stringify(a)).not.toContain(id);
      await setLegacy(orgB, null);
      await setLegacy(orgA, null);
    });

    it('an unlinked, missing or malformed id is 404 not_found', async () => {
      const ofB = (await ownerB.agent.post('/api/v1/institutes').send({ name: 'Only B' }).expect(201)).body.id;
      const unlinked = await legacyInstitute('Nobody’s');
      for (const id of [ofB, unlinked, MISSING, 'not-a-uuid', '123']) {
        const res = await owner.agent.get(`/api/v1/institutes/${id}`);
        expect([id, res.status, res.body.error?.code]).toEqual([id, 404, 'not_found']);
      }
      for (const id of [ofB, unlinked, 'not-a-uuid']) {
        await owner.agent.patch(`/api/v1/institutes/${id}`).send({ name: 'Mine' }).expect(404);
        await owner.agent.delete(`/api/v1/institutes/${id}`).expect(404);
      }
      const rows = await t.db.query(`SELECT name FROM institutes WHERE id = ANY($1) ORDER BY name`, [[ofB, unlinked]]);
      expect(rows.map((r: { name: string }) => r.name)).toEqual(['Nobody’s', 'Only B']);
    });
  });

  describe('the organization of the request', () => {
    it('without a credential: 401', async () => {
      await t.client().get('/api/v1/institutes').expect(401);
      await t.client().post('/api/v1/institutes').send({ name: 'x' }).expect(401);
    });

    it('404 without an active organization, or when no longer a member of it', async () => {
      const loner = await adult(t);
      const res = await loner.agent.get('/api/v1/institutes').expect(404);
      expect(res.body.error.code).toBe('not_found');
      await loner.agent.post('/api/v1/institutes').send({ name: 'x' }).expect(404);
      await loner.agent.get(`/api/v1/institutes/${MISSING}`).expect(404);

      const leaver = await adult(t);
      await addMember(t, orgA, leaver.user.id, 'admin');
      await leaver.agent.put('/api/v1/me/active-organization').send({ organization_id: orgA }).expect(200);
      await leaver.agent.get('/api/v1/institutes').expect(200);
      await t.app.get(OrganizationsService).removeMember(orgA, leaver.user.id, leaver.user.id);
      await leaver.agent.get('/api/v1/institutes').expect(404);
      await leaver.agent.post('/api/v1/institutes').send({ name: 'x' }).expect(404);
    });

    it('403 organization_suspended when the active organization is suspended', async () => {
      const boss = await adult(t);
      const org = await createOrganization(t, boss, 'Soon suspended');
      const inst = (await boss.agent.post('/api/v1/institutes').send({ name: 'Suspended inst' }).expect(201)).body;
      await t.app.get(OrganizationsService).setSuspended(org, true, 'testing', boss.user.id, undefined);
      for (const req of [
        boss.agent.get('/api/v1/institutes'),
        boss.agent.get(`/api/v1/institutes/${inst.id}`),
        boss.agent.post('/api/v1/institutes').send({ name: 'x' }),
        boss.agent.patch(`/api/v1/institutes/${inst.id}`).send({ name: 'x' }),
        boss.agent.delete(`/api/v1/institutes/${inst.id}`),
      ]) {
        const res = await req;
        expect([res.status, res.body.error?.code]).toEqual([403, 'organization_suspended']);
      }
    });

    it("a personal token acts in its own organization, not the session's active one", async () => {
      const both = await adult(t);
      await addMember(t, orgA, both.user.id, 'admin');
      await addMember(t, orgB, both.user.id, 'admin');
      await both.agent.put('/api/v1/me/active-organization').send({ organization_id: orgB }).expect(200);
      const ofA = (await owner.agent.post('/api/v1/institutes').send({ name: 'Seen through the A token' }).expect(201))
        .body;
      const ofB = (await ownerB.agent.post('/api/v1/institutes').send({ name: 'Seen in the B session' }).expect(201))
        .body;
      const token = bearer(t, await personalToken(t, both, orgA, 'write'));
      const viaToken = (await token.get('/api/v1/institutes').expect(200)).body.institutes.map((i: Institute) => i.id);
      expect(viaToken).toContain(ofA.id);
      expect(viaToken).not.toContain(ofB.id);
      const viaSession = (await listed(both)).map((i) => i.id);
      expect(viaSession).toContain(ofB.id);
      expect(viaSession).not.toContain(ofA.id);
      await token.get(`/api/v1/institutes/${ofB.id}`).expect(404);
      // Created through the token: linked to the token's organization.
      const created = (await token.post('/api/v1/institutes').send({ name: 'Token-made' }).expect(201)).body;
      expect((await listed(owner)).map((i) => i.id)).toContain(created.id);
      expect((await listed(ownerB)).map((i) => i.id)).not.toContain(created.id);
      const readOnly = bearer(t, await personalToken(t, both, orgA, 'read'));
      await readOnly.get('/api/v1/institutes').expect(200);
      const refused = await readOnly.post('/api/v1/institutes').send({ name: 'No' }).expect(403);
      expect(refused.body.error.code).toBe('credential_read_only');
    });
  });

  describe('administration', () => {
    it('403 forbidden for a teacher or student on POST, PATCH and DELETE', async () => {
      const inst = (await owner.agent.post('/api/v1/institutes').send({ name: 'Guarded' }).expect(201)).body;
      for (const who of [teacher, student]) {
        for (const req of [
          who.agent.post('/api/v1/institutes').send({ name: 'Mine' }),
          who.agent.patch(`/api/v1/institutes/${inst.id}`).send({ name: 'Mine' }),
          who.agent.delete(`/api/v1/institutes/${inst.id}`),
        ]) {
          const res = await req;
          expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
        }
      }
      expect((await owner.agent.get(`/api/v1/institutes/${inst.id}`).expect(200)).body.name).toBe('Guarded');
    });

    it('validates the fields', async () => {
      const bad: object[] = [
        {},
        { name: '' },
        { name: 'n'.repeat(201) },
        { name: 'x', city: 'c'.repeat(121) },
        { name: 'x', contact_email: 'not-an-email' },
        { name: 'x', website: 'ftp://files.example' },
        { name: 'x', website: 'example.org' },
        { name: 'x', website: `https://example.org/${'p'.repeat(500)}` },
        { name: 'x', extra: true },
      ];
      for (const body of bad) {
        const res = await owner.agent.post('/api/v1/institutes').send(body);
        expect([JSON.stringify(body).slice(0, 60), res.status, res.body.error?.code]).toEqual([
          JSON.stringify(body).slice(0, 60),
          422,
          'validation_error',
        ]);
      }
      const edge = await owner.agent
        .post('/api/v1/institutes')
        .send({ name: 'n'.repeat(200), city: 'c'.repeat(120), contact_email: null, website: 'http://example.org' })
        .expect(201);
      expect(edge.body).toMatchObject({ city: 'c'.repeat(120), contact_email: null, website: 'http://example.org' });
    });

    it('PATCH applies only the fields present, null clears; DELETE keeps the cohorts without an institute', async () => {
      const inst = (
        await owner.agent
          .post('/api/v1/institutes')
          .send({ name: 'To change', city: 'Sevilla', website: 'https://old.example' })
          .expect(201)
      ).body;
      const cohortId = await cohort(owner, orgA, inst.id, 'Survives its institute');
      const patched = await admin.agent
        .patch(`/api/v1/institutes/${inst.id}`)
        .send({ name: 'Changed', city: null })
        .expect(200);
      expect(patched.body).toEqual({ ...inst, name: 'Changed', city: null, cohorts_count: 1 });
      await admin.agent.patch(`/api/v1/institutes/${inst.id}`).send({ name: null }).expect(422);
      await admin.agent.patch(`/api/v1/institutes/${inst.id}`).send({ contact_email: 'nope' }).expect(422);
      expect((await admin.agent.patch(`/api/v1/institutes/${inst.id}`).send({}).expect(200)).body).toEqual(
        patched.body,
      );

      await admin.agent.delete(`/api/v1/institutes/${inst.id}`).expect(204);
      await owner.agent.get(`/api/v1/institutes/${inst.id}`).expect(404);
      await owner.agent.delete(`/api/v1/institutes/${inst.id}`).expect(404);
      const survivor = await owner.agent.get(`/api/v1/organizations/${orgA}/cohorts/${cohortId}`).expect(200);
      expect(survivor.body).toMatchObject({ name: 'Survives its institute', institute_id: null });
    });

    it('an institute another organization is linked to as well cannot be changed or deleted (409)', async () => {
      const shared = await legacyInstitute('Shared for writes');
      await setLegacy(orgA, shared);
      await setLegacy(orgB, shared);
      const renamed = await owner.agent.patch(`/api/v1/institutes/${shared}`).send({ name: 'Taken over' }).expect(409);
      expect(renamed.body.error.code).toBe('institute_shared');
      await owner.agent.delete(`/api/v1/institutes/${shared}`).expect(409);
      // B's use through a cohort counts as well.
      await cohort(ownerB, orgB, shared, 'B keeps using it');
      await setLegacy(orgB, null);
      await owner.agent.patch(`/api/v1/institutes/${shared}`).send({ name: 'Taken over' }).expect(409);
      await owner.agent.delete(`/api/v1/institutes/${shared}`).expect(409);
      expect((await ownerB.agent.get(`/api/v1/institutes/${shared}`).expect(200)).body.name).toBe('Shared for writes');
      await setLegacy(orgA, null);
      // A's own legacy institute is A's to manage.
      const own = await legacyInstitute('Only A legacy');
      await setLegacy(orgA, own);
      await owner.agent.patch(`/api/v1/institutes/${own}`).send({ city: 'Bilbao' }).expect(200);
      await owner.agent.delete(`/api/v1/institutes/${own}`).expect(204);
      const rows = await t.db.query(`SELECT legacy_institute_id FROM organizations WHERE id = $1`, [orgA]);
      expect(rows[0].legacy_institute_id).toBeNull();
    });

    it('audits creation, update and deletion in the organization of the request, without personal data', async () => {
      const inst = (
        await owner.agent
          .post('/api/v1/institutes')
          .send({ name: 'Audited institute', contact_email: 'dean@audited.example' })
          .expect(201)
      ).body;
      await owner.agent.patch(`/api/v1/institutes/${inst.id}`).send({ city: 'Vigo' }).expect(200);
      await owner.agent.delete(`/api/v1/institutes/${inst.id}`).expect(204);
      const rows = await t.db.query(
        `SELECT action, actor_id, organization_id, target_type, metadata FROM audit_log
         WHERE target_id = $1 ORDER BY created_at`,
        [inst.id],
      );
      expect(rows).toEqual([
        {
          action: 'institute.created',
          actor_id: owner.user.id,
          organization_id: orgA,
          target_type: 'institute',
          metadata: {},
        },
        {
          action: 'institute.updated',
          actor_id: owner.user.id,
          organization_id: orgA,
          target_type: 'institute',
          metadata: { fields: ['city'] },
        },
        {
          action: 'institute.deleted',
          actor_id: owner.user.id,
          organization_id: orgA,
          target_type: 'institute',
          metadata: { cohorts_count: 0 },
        },
      ]);
      expect(JSON.stringify(rows)).not.toContain('dean@');
    });
  });
});
