import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ENTRY_KEYS = ['action', 'actor_id', 'created_at', 'id', 'ip_fingerprint', 'metadata', 'target_id', 'target_type'];

/** Ids in a fixed order, so that the tie-break on id is known in advance. */
const id = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

describe('audit log', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let student: SignedIn;
  let ownerB: SignedIn;

  const path = (org = orgA): string => `/api/v1/organizations/${org}/audit`;

  async function insert(
    organizationId: string | null,
    n: number,
    action: string,
    createdAt: string,
    metadata: object = {},
  ): Promise<void> {
    await t.db.query(
      `INSERT INTO audit_log (id, action, actor_id, organization_id, target_type, target_id, metadata, created_at)
       VALUES ($1, $2, NULL, $3, 'thing', $4, $5, $6)`,
      [id(n), action, organizationId, `target-${n}`, JSON.stringify(metadata), createdAt],
    );
  }

  async function ids(query: object): Promise<string[]> {
    const res = await owner.agent.get(path()).query(query).expect(200);
    return res.body.items.map((e: { id: string }) => e.id);
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Org A');
    admin = await adult(t);
    teacher = await adult(t);
    student = await adult(t);
    await addMember(t, orgA, admin.user.id, 'admin');
    await addMember(t, orgA, teacher.user.id, 'teacher');
    await addMember(t, orgA, student.user.id, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Org B');

    // In 2020, far from the entries the requests above wrote.
    await insert(orgA, 1, 'test.alpha', '2020-01-01T10:00:00.000Z', { n: 1 });
    await insert(orgA, 2, 'test.beta', '2020-01-01T11:00:00.000Z');
    await insert(orgA, 3, 'test.alpha', '2020-01-01T12:00:00.000Z');
    // Same instant: the higher id comes first.
    await insert(orgA, 5, 'test.alpha', '2020-01-01T13:00:00.000Z');
    await insert(orgA, 4, 'test.alpha', '2020-01-01T13:00:00.000Z');
    await insert(orgA, 6, 'test.alpha_more', '2020-01-01T14:00:00.000Z');
    // Another organization's and the platform's entries, in the same window and with the same action.
    await insert(orgB, 101, 'test.alpha', '2020-01-01T10:30:00.000Z');
    await insert(orgB, 102, 'test.alpha', '2020-01-01T13:00:00.000Z');
    await insert(null, 103, 'test.alpha', '2020-01-01T13:00:00.000Z');
  });
  afterAll(() => t.close());

  const in2020 = { since: '2020-01-01T00:00:00Z', until: '2020-12-31T23:59:59.999Z' };

  it('lists the entries of the organization, most recent first (created_at, then id), with the documented shape', async () => {
    const res = await admin.agent.get(path()).query(in2020).expect(200);
    expect(res.body).toMatchObject({ total: 6, limit: 50, offset: 0 });
    expect(res.body.items.map((e: { id: string }) => e.id)).toEqual([id(6), id(5), id(4), id(3), id(2), id(1)]);
    expect(Object.keys(res.body.items[5]).sort()).toEqual(ENTRY_KEYS);
    expect(res.body.items[5]).toEqual({
      id: id(1),
      action: 'test.alpha',
      actor_id: null,
      target_type: 'thing',
      target_id: 'target-1',
      ip_fingerprint: null,
      metadata: { n: 1 },
      created_at: '2020-01-01T10:00:00.000Z',
    });
  });

  it("never shows another organization's entries, nor platform entries", async () => {
    const all = await ids({ limit: 200 });
    for (const n of [101, 102, 103]) expect(all).not.toContain(id(n));
    const res = await ownerB.agent.get(path(orgB)).query(in2020).expect(200);
    expect(res.body.items.map((e: { id: string }) => e.id)).toEqual([id(102), id(101)]);
  });

  it('filters by exact action', async () => {
    expect(await ids({ action: 'test.alpha' })).toEqual([id(5), id(4), id(3), id(1)]);
    expect(await ids({ action: 'test.alpha_more' })).toEqual([id(6)]);
    expect(await ids({ action: 'test.alph' })).toEqual([]);
    expect(await ids({ action: 'test' })).toEqual([]);
    const real = await owner.agent.get(path()).query({ action: 'organization.created' }).expect(200);
    expect(real.body.items).toEqual([
      expect.objectContaining({ actor_id: owner.user.id, target_type: 'organization', target_id: orgA }),
    ]);
  });

  it('filters by time with inclusive bounds', async () => {
    expect(await ids({ since: '2020-01-01T12:00:00Z', until: '2020-01-01T13:00:00Z' })).toEqual([id(5), id(4), id(3)]);
    expect(await ids({ since: '2020-01-01T12:00:00.001Z', until: '2020-01-01T12:59:59.999Z' })).toEqual([]);
    expect(await ids({ since: '2020-01-01T13:00:00Z', until: '2020-01-01T13:00:00Z' })).toEqual([id(5), id(4)]);
    expect(await ids({ until: '2020-01-01T11:00:00Z' })).toEqual([id(2), id(1)]);
    // An offset is honoured: 15:00+02:00 is 13:00Z.
    expect(await ids({ since: '2020-01-01T15:00:00+02:00', until: '2020-12-31T00:00:00Z' })).toEqual([
      id(6),
      id(5),
      id(4),
    ]);
    expect(await ids({ action: 'test.alpha', since: '2020-01-01T11:00:00Z', until: '2020-01-01T12:30:00Z' })).toEqual([
      id(3),
    ]);
    // Entries written now are after 2020.
    const recent = await ids({ since: '2021-01-01T00:00:00Z' });
    expect(recent.length).toBeGreaterThan(0);
    for (const n of [1, 2, 3, 4, 5, 6]) expect(recent).not.toContain(id(n));
  });

  it('pages at the boundaries', async () => {
    const page = async (limit: number, offset: number) =>
      (
        await owner.agent
          .get(path())
          .query({ ...in2020, limit, offset })
          .expect(200)
      ).body;
    expect(await page(2, 0)).toMatchObject({ total: 6, limit: 2, offset: 0 });
    expect((await page(2, 0)).items.map((e: { id: string }) => e.id)).toEqual([id(6), id(5)]);
    expect((await page(2, 2)).items.map((e: { id: string }) => e.id)).toEqual([id(4), id(3)]);
    expect((await page(2, 4)).items.map((e: { id: string }) => e.id)).toEqual([id(2), id(1)]);
    expect(await page(2, 6)).toEqual({ items: [], total: 6, limit: 2, offset: 6 });
    expect((await page(1, 5)).items.map((e: { id: string }) => e.id)).toEqual([id(1)]);
    expect((await page(200, 0)).items).toHaveLength(6);
  });

  it('refuses invalid parameters with 422', async () => {
    const bad: object[] = [
      { since: '2020-01-02T00:00:00Z', until: '2020-01-01T00:00:00Z' },
      { since: 'yesterday' },
      { since: '2020-01-01' },
      { since: '2020-01-01T10:00:00' },
      { until: '2020-02-30T10:00:00Z' },
      { action: 'Cohort.Created' },
      { action: 'cohort-created' },
      { action: `a${'.b'.repeat(50)}` },
      { limit: 0 },
      { limit: 201 },
      { offset: -1 },
      { unknown: 'x' },
    ];
    for (const query of bad) {
      const res = await owner.agent.get(path()).query(query);
      expect([query, res.status, res.body.error?.code]).toEqual([query, 422, 'validation_error']);
    }
    const reversed = await owner.agent
      .get(path())
      .query({ since: '2020-01-02T00:00:00Z', until: '2020-01-01T00:00:00Z' })
      .expect(422);
    expect(reversed.body.error.details).toEqual([{ field: 'until', message: expect.any(String) }]);
    // 100 characters is the most an action may have.
    await owner.agent
      .get(path())
      .query({ action: `a${'.b'.repeat(49)}.` })
      .expect(200);
  });

  it('403 forbidden for a teacher or a student; 404 for a non-member; 401 without a credential', async () => {
    for (const who of [teacher, student]) {
      const res = await who.agent.get(path()).expect(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await ownerB.agent.get(path()).expect(404)).body.error.code).toBe('not_found');
    await t.client().get(path()).expect(401);
  });

  it('holds no personal data: the address only as a 32-hex fingerprint, no names or emails', async () => {
    const cohort = await owner.agent
      .post(`/api/v1/organizations/${orgA}/cohorts`)
      .send({ name: 'Personal data check' })
      .expect(201);
    await owner.agent
      .post(`/api/v1/organizations/${orgA}/cohorts/${cohort.body.id}/members`)
      .send({ user_id: student.user.id, role: 'student' })
      .expect(201);
    const res = await owner.agent.get(path()).query({ since: '2021-01-01T00:00:00Z', limit: 200 }).expect(200);
    const added = res.body.items.find((e: { action: string }) => e.action === 'cohort.member_added');
    expect(added).toEqual({
      id: expect.any(String),
      action: 'cohort.member_added',
      actor_id: owner.user.id,
      target_type: 'cohort',
      target_id: cohort.body.id,
      ip_fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      metadata: { user_id: student.user.id, role: 'student', previous_role: null },
      created_at: expect.any(String),
    });
    const created = res.body.items.find((e: { action: string }) => e.action === 'cohort.created');
    // Same client address, same fingerprint.
    expect(created.ip_fingerprint).toBe(added.ip_fingerprint);
    const text = JSON.stringify(res.body);
    for (const secret of [owner.ip, owner.email, student.email, 'Test Person', 'Personal data check']) {
      expect(text).not.toContain(secret);
    }
  });
});
