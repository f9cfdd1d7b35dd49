import { AuditService } from '@/core/audit/audit.service';
import type { SignedIn } from '../../support/auth';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ADMIN_EMAIL = 'audit-admin@ops.test';
type Body = Record<string, unknown>;

/** extensions-v2 16.3: the platform audit list. */
describe('platform audit', () => {
  let t: TestApp;
  let admin: SignedIn;
  let owner: SignedIn;
  let orgA: string;
  let orgB: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL } });
    admin = await adult(t, ADMIN_EMAIL);
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Audit A');
    orgB = await createOrganization(t, owner, 'Audit B');
    const audit = t.app.get(AuditService);
    await audit.record({ action: 'probe.platform', actorId: admin.user.id, organizationId: null });
    await audit.record({ action: 'probe.org', actorId: owner.user.id, organizationId: orgA });
    await audit.record({ action: 'probe.org', actorId: owner.user.id, organizationId: orgB });
  });
  afterAll(() => t.close());

  const list = (query: Body = {}) => admin.agent.get('/api/v1/admin/audit').query(query);

  it('lists every entry with organization_id, newest first', async () => {
    const res = await list({ limit: 200 }).expect(200);
    const actions = res.body.items.map((e: Body) => e.action);
    expect(actions.slice(0, 3)).toEqual(['probe.org', 'probe.org', 'probe.platform']);
    expect(res.body.items[0].organization_id).toBe(orgB);
    const times = res.body.items.map((e: Body) => Date.parse(e.created_at as string));
    expect(times).toEqual([...times].sort((x: number, y: number) => y - x));
  });

  it('filters by organization, none, actor, action and instants', async () => {
    const a = await list({ organization_id: orgA, action: 'probe.org' }).expect(200);
    expect(a.body.items.map((e: Body) => e.organization_id)).toEqual([orgA]);
    const none = await list({ organization_id: 'none' }).expect(200);
    expect(none.body.items.every((e: Body) => e.organization_id === null)).toBe(true);
    expect(none.body.items.map((e: Body) => e.action)).toContain('probe.platform');
    const byActor = await list({ actor_id: admin.user.id, action: 'probe.platform' }).expect(200);
    expect(byActor.body.total).toBe(1);
    const future = new Date(t.clock.nowMs() + 3_600_000).toISOString();
    expect((await list({ since: future }).expect(200)).body.total).toBe(0);
    await list({ organization_id: 'nobody' }).expect(422);
    await list({ since: future, until: '2020-01-01T00:00:00Z' }).expect(422);
    await list({ since: '2026-01-01' }).expect(422);
    await owner.agent.get('/api/v1/admin/audit').expect(403);
  });
});
