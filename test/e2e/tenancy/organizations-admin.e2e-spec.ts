import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ADMIN_EMAIL = 'orgs-admin@ops.test';
type Body = Record<string, unknown>;

/** extensions-v2 16.1: the platform list of organizations and the plan change. */
describe('admin organizations', () => {
  let t: TestApp;
  let admin: SignedIn;
  let owner: SignedIn;
  let org: string;
  let other: string;

  const plan = (over: Body = {}): Body => ({
    plan: 'pro',
    member_limit: 2,
    ai_monthly_tokens: 10_000_000_000,
    ai_monthly_requests: 500,
    ...over,
  });

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL } });
    admin = await adult(t, ADMIN_EMAIL);
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Zebra Academy');
    other = await createOrganization(t, owner, 'Other School');
  });
  afterAll(() => t.close());

  it('lists organizations with members_count, most recent first, filtered by q, status and plan', async () => {
    const s = await adult(t);
    await addMember(t, org, s.user.id, 'student');
    const res = await admin.agent.get('/api/v1/admin/organizations').expect(200);
    expect(res.body.items[0].id).toBe(other);
    const zebra = await admin.agent.get('/api/v1/admin/organizations').query({ q: 'zebra' }).expect(200);
    expect(zebra.body.items.map((o: Body) => [o.id, o.members_count])).toEqual([[org, 2]]);
    expect(zebra.body.items[0]).toMatchObject({ name: 'Zebra Academy', plan: 'free', status: 'active' });
    const slug = zebra.body.items[0].slug as string;
    expect((await admin.agent.get('/api/v1/admin/organizations').query({ q: slug }).expect(200)).body.total).toBe(1);
    expect((await admin.agent.get('/api/v1/admin/organizations').query({ q: '%' }).expect(200)).body.total).toBe(0);
    expect(
      (await admin.agent.get('/api/v1/admin/organizations').query({ status: 'suspended' }).expect(200)).body.items,
    ).toEqual([]);
    await admin.agent.get('/api/v1/admin/organizations').query({ status: 'gone' }).expect(422);
    await admin.agent
      .get('/api/v1/admin/organizations')
      .query({ q: 'x'.repeat(101) })
      .expect(422);
    await owner.agent.get('/api/v1/admin/organizations').expect(403);
  });

  it('changes the plan and limits, audited with old and new values; a lower limit refuses only new joins', async () => {
    const res = await admin.agent.put(`/api/v1/admin/organizations/${org}/plan`).send(plan()).expect(200);
    expect(res.body.plan).toBe('pro');
    expect(res.body.limits).toEqual({ member_limit: 2, ai_monthly_tokens: 10_000_000_000, ai_monthly_requests: 500 });
    const [entry] = await t.db.query(
      `SELECT actor_id, organization_id, metadata FROM audit_log WHERE action = 'organization.plan_changed' AND target_id = $1`,
      [org],
    );
    expect(entry).toEqual({
      actor_id: admin.user.id,
      organization_id: org,
      metadata: {
        old_plan: 'free',
        new_plan: 'pro',
        old_member_limit: null,
        new_member_limit: 2,
        old_ai_monthly_tokens: null,
        new_ai_monthly_tokens: 10_000_000_000,
        old_ai_monthly_requests: null,
        new_ai_monthly_requests: 500,
      },
    });
    // Two members already: the organization keeps them; a third is refused.
    const usage = await owner.agent.get(`/api/v1/organizations/${org}/usage`).expect(200);
    expect(usage.body.members).toEqual({ used: 2, limit: 2 });
    expect(usage.body.ai).toMatchObject({ requests_limit: 500, tokens_limit: 10_000_000_000 });
    const s = await adult(t);
    await expect(addMember(t, org, s.user.id, 'student')).rejects.toMatchObject({ code: 'member_limit_reached' });
    // null = unlimited again.
    await admin.agent
      .put(`/api/v1/admin/organizations/${org}/plan`)
      .send(plan({ member_limit: null, ai_monthly_tokens: null, ai_monthly_requests: null }))
      .expect(200);
    await addMember(t, org, s.user.id, 'student');
  });

  it('validates every field at and past its bounds; 404 for an unknown organization', async () => {
    for (const [body, status] of [
      [plan({ plan: 'Pro' }), 422],
      [plan({ plan: 'p'.repeat(41) }), 422],
      [plan({ plan: 'p'.repeat(40) }), 200],
      [plan({ member_limit: 0 }), 422],
      [plan({ member_limit: 1_000_000 }), 200],
      [plan({ member_limit: 1_000_001 }), 422],
      [plan({ ai_monthly_tokens: 10_000_000_001 }), 422],
      [plan({ ai_monthly_requests: 100_000_000 }), 200],
      [plan({ ai_monthly_requests: 100_000_001 }), 422],
      [{ plan: 'pro' }, 422],
    ] as [Body, number][]) {
      const res = await admin.agent.put(`/api/v1/admin/organizations/${other}/plan`).send(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), status]);
    }
    await admin.agent
      .put('/api/v1/admin/organizations/00000000-0000-4000-8000-000000000000/plan')
      .send(plan())
      .expect(404);
    await owner.agent.put(`/api/v1/admin/organizations/${org}/plan`).send(plan()).expect(403);
  });
});
