import { CohortsService } from '@/modules/tenancy/cohorts';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECOND = 1000;

interface Org {
  id: string;
  owner: SignedIn;
}

describe('Members: list, role changes, removal, colleague profiles', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  async function org(): Promise<Org> {
    const owner = await adult(t);
    return { id: await createOrganization(t, owner), owner };
  }

  /** A member with a name of their own; joins one second after the previous one (a clear order). */
  async function person(o: Org, role: 'owner' | 'admin' | 'teacher' | 'student', name?: string): Promise<SignedIn> {
    const s = await adult(t);
    if (name) await s.agent.patch('/api/v1/me/profile').send({ name }).expect(200);
    t.clock.advance(SECOND);
    await addMember(t, o.id, s.user.id, role);
    return s;
  }

  async function cohort(orgId: string, name = 'Grupo'): Promise<string> {
    const [row] = await t.db.query(`INSERT INTO cohorts (organization_id, name) VALUES ($1, $2) RETURNING id`, [
      orgId,
      name,
    ]);
    return row.id as string;
  }

  async function place(orgId: string, cohortId: string, userId: string, role: 'student' | 'teacher'): Promise<void> {
    await t.app.get(CohortsService).addMember(orgId, cohortId, userId, role);
  }

  async function roleOf(orgId: string, userId: string): Promise<string | null> {
    const rows = await t.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
      orgId,
      userId,
    ]);
    return rows[0]?.role ?? null;
  }

  async function audit(
    orgId: string,
    action: string,
  ): Promise<{ actor_id: string; target_id: string; metadata: object }[]> {
    return t.db.query(
      `SELECT actor_id, target_id, metadata FROM audit_log WHERE organization_id = $1 AND action = $2 ORDER BY created_at`,
      [orgId, action],
    );
  }

  const ids = (res: { body: { items: { user_id: string }[] } }): string[] => res.body.items.map((m) => m.user_id);

  describe('GET /organizations/{org_id}/members', () => {
    let o: Org;
    let admin: SignedIn;
    let teacher: SignedIn;
    let ana: SignedIn;
    let bruno: SignedIn;
    let carla: SignedIn;
    let group: string;
    let otherGroup: string;
    const list = (s: SignedIn, query = '') => s.agent.get(`/api/v1/organizations/${o.id}/members${query}`);

    beforeAll(async () => {
      o = await org();
      admin = await person(o, 'admin', 'Admin Uno');
      teacher = await person(o, 'teacher', 'Profe Tres');
      ana = await person(o, 'student', 'Ana García');
      bruno = await person(o, 'student', 'Bruno Díaz');
      carla = await person(o, 'student', 'Carla 100%_Real');
      group = await cohort(o.id, 'A');
      otherGroup = await cohort(o.id, 'B');
      await place(o.id, group, teacher.user.id, 'teacher');
      await place(o.id, group, ana.user.id, 'student');
      await place(o.id, group, bruno.user.id, 'student');
      await place(o.id, otherGroup, carla.user.id, 'student');
      await place(o.id, otherGroup, ana.user.id, 'student');
    });
    afterAll(() => t.clock.reset());

    it('owners and admins see every member, newest first, with the member shape', async () => {
      const res = await list(admin).expect(200);
      expect(res.body).toMatchObject({ total: 6, limit: 50, offset: 0 });
      expect(ids(res)).toEqual([carla, bruno, ana, teacher, admin, o.owner].map((s) => s.user.id));
      const first = res.body.items.find((m: { user_id: string }) => m.user_id === ana.user.id);
      expect(first).toEqual({
        user_id: ana.user.id,
        name: 'Ana García',
        email: ana.email,
        role: 'student',
        minor: false,
        cohort_ids: [group, otherGroup].sort(),
        joined_at: expect.any(String),
        // Never provisioned by a SCIM directory (test/scim.e2e-spec.ts shows a provisioned one).
        directory: null,
      });
      expect(ids(await list(o.owner).expect(200))).toHaveLength(6);
    });

    it('filters by role', async () => {
      expect(ids(await list(admin, '?role=student').expect(200))).toEqual([carla.user.id, bruno.user.id, ana.user.id]);
      expect(ids(await list(admin, '?role=owner').expect(200))).toEqual([o.owner.user.id]);
      await list(admin, '?role=boss').expect(422);
    });

    it('q matches part of the name or of the email, case-insensitive; LIKE wildcards are literal', async () => {
      expect(ids(await list(admin, '?q=GARC').expect(200))).toEqual([ana.user.id]);
      expect(ids(await list(admin, `?q=${encodeURIComponent(bruno.email.toUpperCase())}`).expect(200))).toEqual([
        bruno.user.id,
      ]);
      expect(ids(await list(admin, `?q=${encodeURIComponent('100%_r')}`).expect(200))).toEqual([carla.user.id]);
      expect((await list(admin, `?q=${encodeURIComponent('%')}`).expect(200)).body.total).toBe(1);
      expect((await list(admin, '?q=nobody-like-this').expect(200)).body).toMatchObject({ items: [], total: 0 });
      await list(admin, '?q=').expect(422);
      await list(admin, `?q=${'x'.repeat(101)}`).expect(422);
      await list(admin, `?q=${'x'.repeat(100)}`).expect(200);
    });

    it("filters by cohort; another organization's cohort is 404, a malformed one 422", async () => {
      expect(ids(await list(admin, `?cohort_id=${group}`).expect(200))).toEqual([
        bruno.user.id,
        ana.user.id,
        teacher.user.id,
      ]);
      expect(ids(await list(admin, `?cohort_id=${otherGroup}&role=student`).expect(200))).toEqual([
        carla.user.id,
        ana.user.id,
      ]);
      const other = await org();
      const foreign = await cohort(other.id);
      const res = await list(admin, `?cohort_id=${foreign}`).expect(404);
      expect(res.body.error.code).toBe('not_found');
      await list(admin, '?cohort_id=00000000-0000-4000-8000-000000000000').expect(404);
      await list(admin, '?cohort_id=nope').expect(422);
    });

    it('pages with limit/offset (1..200, >= 0) in a stable order', async () => {
      const all = ids(await list(admin).expect(200));
      const first = await list(admin, '?limit=2&offset=0').expect(200);
      const second = await list(admin, '?limit=2&offset=2').expect(200);
      const last = await list(admin, '?limit=2&offset=4').expect(200);
      expect(first.body).toMatchObject({ total: 6, limit: 2, offset: 0 });
      expect([...ids(first), ...ids(second), ...ids(last)]).toEqual(all);
      expect((await list(admin, '?offset=6').expect(200)).body).toMatchObject({ items: [], total: 6 });
      expect((await list(admin, '?limit=200').expect(200)).body.limit).toBe(200);
      expect((await list(admin, '?limit=1').expect(200)).body.items).toHaveLength(1);
      for (const bad of ['?limit=201', '?limit=0', '?offset=-1', '?limit=abc']) {
        const res = await list(admin, bad).expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
    });

    it('ties in joined_at are ordered by user id', async () => {
      const o2 = await org();
      const a = await adult(t);
      const b = await adult(t);
      const c = await adult(t);
      for (const s of [a, b, c]) await addMember(t, o2.id, s.user.id, 'student');
      await t.db.query(
        `UPDATE memberships SET joined_at = '2026-01-01T00:00:00Z' WHERE organization_id = $1 AND role = 'student'`,
        [o2.id],
      );
      const res = await o2.owner.agent.get(`/api/v1/organizations/${o2.id}/members?role=student`).expect(200);
      expect(ids(res)).toEqual([a, b, c].map((s) => s.user.id).sort());
    });

    it('a teacher sees only the students of the cohorts they teach (filters apply within them)', async () => {
      expect(ids(await list(teacher).expect(200))).toEqual([bruno.user.id, ana.user.id]);
      expect(ids(await list(teacher, '?q=ana').expect(200))).toEqual([ana.user.id]);
      expect(ids(await list(teacher, '?role=admin').expect(200))).toEqual([]);
      expect(ids(await list(teacher, `?cohort_id=${otherGroup}`).expect(200))).toEqual([ana.user.id]);
      const lonely = await person(o, 'teacher');
      expect((await list(lonely).expect(200)).body).toMatchObject({ items: [], total: 0 });
    });

    it('403 for a student', async () => {
      const res = await list(carla).expect(403);
      expect(res.body.error.code).toBe('forbidden');
    });
  });

  describe('PATCH /organizations/{org_id}/members/{user_id}', () => {
    const patch = (s: SignedIn, o: Org, userId: string, role: string) =>
      s.agent.patch(`/api/v1/organizations/${o.id}/members/${userId}`).send({ role });

    it('an owner changes a role: 200 member, audited with {from, to} only', async () => {
      const o = await org();
      const s = await person(o, 'student', 'Eva');
      const res = await patch(o.owner, o, s.user.id, 'teacher').expect(200);
      expect(res.body).toEqual({
        user_id: s.user.id,
        name: 'Eva',
        email: s.email,
        role: 'teacher',
        minor: false,
        cohort_ids: [],
        joined_at: expect.any(String),
        directory: null,
      });
      expect(await roleOf(o.id, s.user.id)).toBe('teacher');
      // The new role applies at once (the membership cache is invalidated).
      await s.agent.get(`/api/v1/organizations/${o.id}/members`).expect(200);
      await patch(o.owner, o, s.user.id, 'admin').expect(200);
      await patch(o.owner, o, s.user.id, 'owner').expect(200);
      expect(await audit(o.id, 'member.role_changed')).toEqual([
        { actor_id: o.owner.user.id, target_id: s.user.id, metadata: { from: 'student', to: 'teacher' } },
        { actor_id: o.owner.user.id, target_id: s.user.id, metadata: { from: 'teacher', to: 'admin' } },
        { actor_id: o.owner.user.id, target_id: s.user.id, metadata: { from: 'admin', to: 'owner' } },
      ]);
    });

    it('an admin changes teachers and students, but never grants or removes owner/admin (403)', async () => {
      const o = await org();
      const admin = await person(o, 'admin');
      const other = await person(o, 'admin');
      const s = await person(o, 'student');
      await patch(admin, o, s.user.id, 'teacher').expect(200);
      await patch(admin, o, s.user.id, 'student').expect(200);
      for (const [target, role] of [
        [s.user.id, 'admin'],
        [s.user.id, 'owner'],
        [other.user.id, 'student'],
        [o.owner.user.id, 'student'],
        [admin.user.id, 'teacher'],
      ]) {
        const res = await patch(admin, o, target, role).expect(403);
        expect(res.body.error.code).toBe('forbidden');
      }
      expect(await roleOf(o.id, other.user.id)).toBe('admin');
      expect(await roleOf(o.id, o.owner.user.id)).toBe('owner');
      expect(await roleOf(o.id, s.user.id)).toBe('student');
    });

    it('teachers and students get 403', async () => {
      const o = await org();
      const teacher = await person(o, 'teacher');
      const s = await person(o, 'student');
      await patch(teacher, o, s.user.id, 'teacher').expect(403);
      await patch(s, o, s.user.id, 'teacher').expect(403);
    });

    it('409 last_owner when the only owner would be demoted; with two owners one may step down', async () => {
      const o = await org();
      const res = await patch(o.owner, o, o.owner.user.id, 'admin').expect(409);
      expect(res.body.error.code).toBe('last_owner');
      expect(await roleOf(o.id, o.owner.user.id)).toBe('owner');
      const second = await person(o, 'owner');
      await patch(o.owner, o, o.owner.user.id, 'admin').expect(200);
      expect((await patch(second, o, second.user.id, 'student').expect(409)).body.error.code).toBe('last_owner');
    });

    it('concurrent demotions of the two owners: exactly one succeeds, the other is 409 last_owner', async () => {
      for (let round = 0; round < 3; round++) {
        const o = await org();
        const second = await person(o, 'owner');
        const results = await Promise.all([
          patch(o.owner, o, o.owner.user.id, 'admin'),
          patch(second, o, second.user.id, 'admin'),
        ]);
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        expect(results.find((r) => r.status === 409)!.body.error.code).toBe('last_owner');
        const [{ n }] = await t.db.query(
          `SELECT count(*)::int AS n FROM memberships WHERE organization_id = $1 AND role = 'owner'`,
          [o.id],
        );
        expect(n).toBe(1);
      }
    });

    it("404 for someone who is not a member (also another organization's member, or a malformed id); 422 for a bad role; same role is a no-op", async () => {
      const o = await org();
      const other = await org();
      const outsider = await person(other, 'student');
      expect((await patch(o.owner, o, outsider.user.id, 'teacher').expect(404)).body.error.code).toBe('not_found');
      await patch(o.owner, o, '00000000-0000-4000-8000-000000000000', 'teacher').expect(404);
      await patch(o.owner, o, 'nope', 'teacher').expect(404);
      const s = await person(o, 'student');
      await patch(o.owner, o, s.user.id, 'boss').expect(422);
      await o.owner.agent.patch(`/api/v1/organizations/${o.id}/members/${s.user.id}`).send({}).expect(422);
      await patch(o.owner, o, s.user.id, 'student').expect(200);
      expect(await audit(o.id, 'member.role_changed')).toEqual([]);
    });
  });

  describe('DELETE /organizations/{org_id}/members/{user_id}', () => {
    const remove = (s: SignedIn, o: Org, userId: string) =>
      s.agent.delete(`/api/v1/organizations/${o.id}/members/${userId}`);

    it('an admin removes a student: 204, cohort places gone, access ends, audited', async () => {
      const o = await org();
      const admin = await person(o, 'admin');
      const s = await person(o, 'student');
      const group = await cohort(o.id);
      await place(o.id, group, s.user.id, 'student');
      await s.agent.get(`/api/v1/organizations/${o.id}`).expect(200);
      await remove(admin, o, s.user.id).expect(204);
      expect(await roleOf(o.id, s.user.id)).toBeNull();
      expect(await t.db.query(`SELECT 1 FROM cohort_members WHERE user_id = $1`, [s.user.id])).toEqual([]);
      await s.agent.get(`/api/v1/organizations/${o.id}`).expect(404);
      await remove(admin, o, s.user.id).expect(404);
      expect(await audit(o.id, 'member.removed')).toEqual([
        { actor_id: admin.user.id, target_id: s.user.id, metadata: { role: 'student', self: false } },
      ]);
    });

    it("a removed member's personal tokens for the organization are revoked for good, also after re-joining", async () => {
      const o = await org();
      const admin = await person(o, 'admin');
      const s = await person(o, 'student');
      const token = await personalToken(t, s, o.id, 'read');
      await bearer(t, token).get(`/api/v1/organizations/${o.id}`).expect(200);
      await remove(admin, o, s.user.id).expect(204);
      await bearer(t, token).get(`/api/v1/organizations/${o.id}`).expect(401);
      await addMember(t, o.id, s.user.id, 'student');
      await bearer(t, token).get(`/api/v1/organizations/${o.id}`).expect(401);
      expect((await s.agent.get('/api/v1/me/api-keys').expect(200)).body.items).toEqual([]);
    });

    it('anyone may leave; the organization stops being their active one (another active one is kept)', async () => {
      const o = await org();
      const s = await person(o, 'student');
      await s.agent.put('/api/v1/me/active-organization').send({ organization_id: o.id }).expect(200);
      await remove(s, o, s.user.id).expect(204);
      const [row] = await t.db.query(`SELECT last_organization_id FROM users WHERE id = $1`, [s.user.id]);
      expect(row.last_organization_id).toBeNull();
      expect((await s.agent.get('/api/v1/me/organizations').expect(200)).body).toEqual({
        organizations: [],
        active_organization_id: null,
      });
      // Leaving an organization that is not the active one keeps the active one.
      const a = await org();
      const b = await org();
      const teacher = await person(a, 'teacher');
      await addMember(t, b.id, teacher.user.id, 'student');
      await teacher.agent.put('/api/v1/me/active-organization').send({ organization_id: b.id }).expect(200);
      await remove(teacher, a, teacher.user.id).expect(204);
      const [kept] = await t.db.query(`SELECT last_organization_id FROM users WHERE id = $1`, [teacher.user.id]);
      expect(kept.last_organization_id).toBe(b.id);
      expect((await audit(a.id, 'member.removed'))[0].metadata).toEqual({ role: 'teacher', self: true });
    });

    it('admins cannot remove owners or admins (403); teachers and students cannot remove others (403)', async () => {
      const o = await org();
      const admin = await person(o, 'admin');
      const admin2 = await person(o, 'admin');
      const teacher = await person(o, 'teacher');
      const s = await person(o, 'student');
      const s2 = await person(o, 'student');
      for (const [actor, target] of [
        [admin, o.owner],
        [admin, admin2],
        [teacher, s],
        [s, s2],
        [s, o.owner],
      ]) {
        const res = await remove(actor, o, target.user.id).expect(403);
        expect(res.body.error.code).toBe('forbidden');
        expect(await roleOf(o.id, target.user.id)).not.toBeNull();
      }
      // A student asking about someone who is not a member learns nothing either: 403, not 404.
      await remove(s, o, '00000000-0000-4000-8000-000000000000').expect(403);
      await remove(admin, o, '00000000-0000-4000-8000-000000000000').expect(404);
    });

    it('409 last_owner for the only owner leaving; an owner may remove another owner', async () => {
      const o = await org();
      const res = await remove(o.owner, o, o.owner.user.id).expect(409);
      expect(res.body.error.code).toBe('last_owner');
      const second = await person(o, 'owner');
      const admin = await person(o, 'admin');
      await remove(o.owner, o, admin.user.id).expect(204);
      await remove(o.owner, o, second.user.id).expect(204);
      expect(await roleOf(o.id, second.user.id)).toBeNull();
    });
  });

  describe('GET /organizations/{org_id}/profiles/{username}', () => {
    const profile = (s: SignedIn, orgId: string, username: string) =>
      s.agent.get(`/api/v1/organizations/${orgId}/profiles/${encodeURIComponent(username)}`);

    it("a colleague's public profile: 200 with the profile fields only", async () => {
      const o = await org();
      const colleague = await person(o, 'teacher');
      await colleague.agent
        .patch('/api/v1/me/profile')
        .send({ name: 'Lucía', headline: 'Física', bio: 'Hola', location: 'Madrid', public_profile: true })
        .expect(200);
      const s = await person(o, 'student');
      const res = await profile(s, o.id, colleague.user.username as string).expect(200);
      expect(res.body).toEqual({
        username: colleague.user.username,
        name: 'Lucía',
        headline: 'Física',
        bio: 'Hola',
        location: 'Madrid',
        avatar_url: null,
        avatar_svg_url: expect.stringMatching(new RegExp(`/api/v1/users/${colleague.user.id}/avatar\\.svg\\?v=`)),
        gamification: { xp: 0, level: 1, title: null, streak_current: 0, badges: [] },
      });
      await profile(s, o.id, (colleague.user.username as string).toUpperCase()).expect(200);
    });

    it('404 when the profile is not public (one’s own is always visible), for a non-member, an unknown username, or across organizations', async () => {
      const o = await org();
      const hidden = await person(o, 'student');
      const viewer = await person(o, 'student');
      expect((await profile(viewer, o.id, hidden.user.username as string).expect(404)).body.error.code).toBe(
        'not_found',
      );
      await profile(hidden, o.id, hidden.user.username as string).expect(200);
      const elsewhere = await org();
      const publicOutsider = await person(elsewhere, 'student');
      await publicOutsider.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
      await profile(viewer, o.id, publicOutsider.user.username as string).expect(404);
      await profile(viewer, o.id, 'no-such-person').expect(404);
      // A member of this organization looking through another organization's path: 404 (not a member there).
      await profile(viewer, elsewhere.id, publicOutsider.user.username as string).expect(404);
      // Removed from the organization: no longer visible to its members.
      const leaver = await person(o, 'student');
      await leaver.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
      await profile(viewer, o.id, leaver.user.username as string).expect(200);
      await leaver.agent.delete(`/api/v1/organizations/${o.id}/members/${leaver.user.id}`).expect(204);
      await profile(viewer, o.id, leaver.user.username as string).expect(404);
    });
  });

  it('suspended organizations answer 403 organization_suspended', async () => {
    const o = await org();
    const s = await person(o, 'student');
    await t.app.get(OrganizationsService).setSuspended(o.id, true, 'testing', o.owner.user.id, undefined);
    const res = await o.owner.agent
      .patch(`/api/v1/organizations/${o.id}/members/${s.user.id}`)
      .send({ role: 'teacher' });
    expect([res.status, res.body.error.code]).toEqual([403, 'organization_suspended']);
  });
});
