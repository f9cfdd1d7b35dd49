import { InvalidationBus } from '@/core/cache/invalidation-bus';
import { PersonalDataRegistry } from '@/core/privacy/personal-data';
import { TransactionRunner } from '@/core/database/transaction';
import { AiUsageService } from '@/modules/assistant/ai-usage';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import { signIn, type SignedIn } from '../../support/auth';
import { postSse, type SseAnswer } from '../../support/sse';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { PYTHON_LESSONS } from '../../support/tutor-fixtures';

const DAY_MS = 86_400_000;

describe('AI usage and quotas', () => {
  let t: TestApp;
  let admin: SignedIn;
  let author: SignedIn;
  let python: MadeCourse;

  const usage = (): AiUsageService => t.app.get(AiUsageService);
  /** A metered call of `tokens` (split in and out) at `at` (default now). */
  const meter = (organizationId: string | null, userId: string | null, tokens: number, at?: Date) =>
    usage().record({
      organizationId,
      userId,
      feature: 'tutor',
      provider: 'local',
      model: 'local-extractive-1',
      inputTokens: Math.ceil(tokens / 2),
      outputTokens: Math.floor(tokens / 2),
      status: 'ok',
      occurredAt: at,
    });
  const setPlan = async (orgId: string, limits: { tokens?: number | null; requests?: number | null }) => {
    await t.db.query(`UPDATE organizations SET ai_monthly_tokens = $2, ai_monthly_requests = $3 WHERE id = $1`, [
      orgId,
      limits.tokens ?? null,
      limits.requests ?? null,
    ]);
    // Plan changes belong to the platform's plan route; here the row is set directly and the cache told.
    await t.app.get(InvalidationBus).publish('organization', orgId);
  };

  interface World {
    org: string;
    owner: SignedIn;
    member: SignedIn;
    conversation: string;
  }
  async function world(): Promise<World> {
    const owner = await adult(t);
    const org = await createOrganization(t, owner, 'Quota org');
    const member = await adult(t);
    await addMember(t, org, member.user.id, 'student');
    await member.agent.post(`/api/v1/organizations/${org}/courses/${python.id}/enroll`).expect(201);
    const conversation = (
      await member.agent
        .post(`/api/v1/organizations/${org}/tutor/conversations`)
        .send({ course_id: python.id })
        .expect(201)
    ).body.id as string;
    return { org, owner, member, conversation };
  }
  const ask = (w: World, who: SignedIn = w.member, conversation = w.conversation): Promise<SseAnswer> =>
    postSse(who.agent, `/api/v1/organizations/${w.org}/tutor/conversations/${conversation}/messages`, {
      content: 'What is a list?',
    });
  const secondsTo = (end: Date): number => Math.ceil((end.getTime() - t.clock.nowMs()) / 1000);
  const nextUtcMidnight = (): Date => {
    const n = t.clock.now();
    return new Date(Date.UTC(n.getUTCFullYear(), n.getUTCMonth(), n.getUTCDate() + 1));
  };
  const nextUtcMonth = (): Date => {
    const n = t.clock.now();
    return new Date(Date.UTC(n.getUTCFullYear(), n.getUTCMonth() + 1, 1));
  };
  const startOfUtcDay = (): Date => new Date(nextUtcMidnight().getTime() - DAY_MS);
  const startOfUtcMonth = (): Date => {
    const n = t.clock.now();
    return new Date(Date.UTC(n.getUTCFullYear(), n.getUTCMonth(), 1));
  };
  function expectQuota(res: SseAnswer, quota: string, end: Date): void {
    expect([res.status, res.body?.error?.code]).toEqual([429, 'ai_quota_exceeded']);
    expect(res.headers['x-ai-quota']).toBe(quota);
    const retry = Number(res.headers['retry-after']);
    expect(retry).toBeLessThanOrEqual(secondsTo(end) + 1);
    expect(retry).toBeGreaterThanOrEqual(secondsTo(end) - 2);
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'root@platform.test' } });
    admin = await signIn(t, 'root@platform.test');
    author = await adult(t);
    python = await makeCourse(t, author.user.id, { title: 'Python basics', lessons: PYTHON_LESSONS });
  });
  afterAll(() => t.close());

  describe('settings (extensions-v2 24.2)', () => {
    it('defaults, then a partial PUT keeps what it leaves out, is audited, and null removes the daily limit', async () => {
      const w = await world();
      const path = `/api/v1/organizations/${w.org}/ai-settings`;
      const defaults = {
        tutor_enabled: true,
        minors_allowed: false,
        per_member_daily_tokens: null,
        monthly_tokens_limit: null,
        monthly_requests_limit: null,
        provider: 'local',
      };
      expect((await w.owner.agent.get(path).expect(200)).body).toEqual(defaults);
      const changed = await w.owner.agent.put(path).send({ per_member_daily_tokens: 5000 }).expect(200);
      expect(changed.body).toEqual({ ...defaults, per_member_daily_tokens: 5000 });
      await w.owner.agent.put(path).send({ minors_allowed: true }).expect(200);
      await setPlan(w.org, { tokens: 900000, requests: 300 });
      expect((await w.owner.agent.get(path).expect(200)).body).toEqual({
        ...defaults,
        minors_allowed: true,
        per_member_daily_tokens: 5000,
        monthly_tokens_limit: 900000,
        monthly_requests_limit: 300,
      });
      // Nothing changes: nothing audited.
      await w.owner.agent.put(path).send({}).expect(200);
      await w.owner.agent.put(path).send({ minors_allowed: true }).expect(200);
      await w.owner.agent.put(path).send({ per_member_daily_tokens: null }).expect(200);
      const audits = await t.db.query(
        `SELECT action, actor_id, target_type, target_id, metadata FROM audit_log
         WHERE organization_id = $1 AND action = 'ai_settings.updated' ORDER BY created_at, id`,
        [w.org],
      );
      expect(audits).toEqual([
        {
          action: 'ai_settings.updated',
          actor_id: w.owner.user.id,
          target_type: 'organization',
          target_id: w.org,
          metadata: {
            fields: ['per_member_daily_tokens'],
            per_member_daily_tokens_before: null,
            per_member_daily_tokens_after: 5000,
          },
        },
        expect.objectContaining({
          metadata: { fields: ['minors_allowed'], minors_allowed_before: false, minors_allowed_after: true },
        }),
        expect.objectContaining({
          metadata: {
            fields: ['per_member_daily_tokens'],
            per_member_daily_tokens_before: 5000,
            per_member_daily_tokens_after: null,
          },
        }),
      ]);
    });

    it('422 for values out of range or of the wrong type, and nothing changes', async () => {
      const w = await world();
      const path = `/api/v1/organizations/${w.org}/ai-settings`;
      for (const body of [
        { per_member_daily_tokens: 999 },
        { per_member_daily_tokens: 10_000_001 },
        { per_member_daily_tokens: 1500.5 },
        { tutor_enabled: null },
        { minors_allowed: 'yes' },
        { monthly_tokens_limit: 10 },
        { provider: 'openai_compatible' },
      ]) {
        const res = await w.owner.agent.put(path).send(body).expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
      await w.owner.agent.put(path).send({ per_member_daily_tokens: 1000 }).expect(200);
      await w.owner.agent.put(path).send({ per_member_daily_tokens: 10_000_000 }).expect(200);
      expect((await w.owner.agent.get(path).expect(200)).body.per_member_daily_tokens).toBe(10_000_000);
    });
  });

  describe('quotas (extensions-v2 24.3), exactly at the limit and one past', () => {
    it("the member's tokens today: 999 of 1000 answers; 1000 and 1001 are refused until the next UTC midnight", async () => {
      const w = await world();
      await w.owner.agent.put(`/api/v1/organizations/${w.org}/ai-settings`).send({ per_member_daily_tokens: 1000 });
      // Yesterday's tokens and the member's tokens in another organization do not count.
      await meter(w.org, w.member.user.id, 5000, new Date(startOfUtcDay().getTime() - 1));
      const elsewhere = await world();
      await addMember(t, elsewhere.org, w.member.user.id, 'student');
      await meter(elsewhere.org, w.member.user.id, 5000);
      await meter(w.org, w.member.user.id, 999);
      expect((await ask(w)).status).toBe(200);

      await t.db.query(`DELETE FROM ai_usage WHERE organization_id = $1`, [w.org]);
      await meter(w.org, w.member.user.id, 1000);
      const before = (await w.member.agent.get(`/api/v1/organizations/${w.org}/tutor/conversations/${w.conversation}`))
        .body.messages_count;
      const at = await ask(w);
      expectQuota(at, 'member_daily_tokens', nextUtcMidnight());
      // Refused before anything: no question stored, nothing metered.
      expect(
        (await w.member.agent.get(`/api/v1/organizations/${w.org}/tutor/conversations/${w.conversation}`)).body
          .messages_count,
      ).toBe(before);
      await meter(w.org, w.member.user.id, 1);
      expectQuota(await ask(w), 'member_daily_tokens', nextUtcMidnight());
      // Another member of the organization has their own day.
      const other = await adult(t);
      await addMember(t, w.org, other.user.id, 'student');
      await other.agent.post(`/api/v1/organizations/${w.org}/courses/${python.id}/enroll`).expect(201);
      const theirs = (
        await other.agent.post(`/api/v1/organizations/${w.org}/tutor/conversations`).send({ course_id: python.id })
      ).body.id as string;
      expect((await ask(w, other, theirs)).status).toBe(200);
    });

    it("the organization's tokens this month: one under answers; at the limit and past it, refused until next month", async () => {
      const w = await world();
      await setPlan(w.org, { tokens: 5000 });
      await meter(w.org, null, 100_000, new Date(startOfUtcMonth().getTime() - 1)); // last month
      await meter(w.org, w.owner.user.id, 4999);
      expect((await ask(w)).status).toBe(200);
      await t.db.query(`DELETE FROM ai_usage WHERE organization_id = $1 AND occurred_at >= $2`, [
        w.org,
        startOfUtcMonth(),
      ]);
      await meter(w.org, w.owner.user.id, 5000);
      expectQuota(await ask(w), 'organization_monthly_tokens', nextUtcMonth());
      await meter(w.org, null, 1);
      expectQuota(await ask(w), 'organization_monthly_tokens', nextUtcMonth());
    });

    it("the organization's requests this month: 2 of 3 answers; 3 and 4 are refused", async () => {
      const w = await world();
      await setPlan(w.org, { requests: 3 });
      await meter(w.org, w.owner.user.id, 10, new Date(startOfUtcMonth().getTime() - 1));
      await meter(w.org, w.owner.user.id, 10);
      await meter(w.org, w.owner.user.id, 10);
      expect((await ask(w)).status).toBe(200); // the third request of the month
      expectQuota(await ask(w), 'organization_monthly_requests', nextUtcMonth());
      await meter(w.org, w.owner.user.id, 10);
      expectQuota(await ask(w), 'organization_monthly_requests', nextUtcMonth());
      const usageBlock = (await w.owner.agent.get(`/api/v1/organizations/${w.org}/usage`).expect(200)).body.ai;
      expect(usageBlock).toMatchObject({ requests_used: 4, requests_limit: 3, tokens_limit: null });
    });

    it('20 messages at once (20 conversations) cannot pass a quota together: each reserves before the call (v3 6.8)', async () => {
      const w = await world();
      await setPlan(w.org, { requests: 5 });
      const conversations = [w.conversation];
      for (let i = 1; i < 20; i++) {
        const res = await w.member.agent
          .post(`/api/v1/organizations/${w.org}/tutor/conversations`)
          .send({ course_id: python.id })
          .expect(201);
        conversations.push(res.body.id as string);
      }
      const answers = await Promise.all(conversations.map((c) => ask(w, w.member, c)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
      const [metered] = await t.db.query(`SELECT count(*)::int AS n FROM ai_usage WHERE organization_id = $1`, [w.org]);
      expect(metered.n).toBeLessThanOrEqual(5);
      expect(statuses.filter((s) => s === 200).length).toBe(metered.n);
      expect(metered.n).toBeGreaterThanOrEqual(1);
      // Reservations are returned once the answers are stored: nothing is held any more.
      const held = await t.db.query(
        `SELECT count(*)::int AS n FROM tutor_conversations
         WHERE organization_id = $1 AND (answering_until IS NOT NULL OR answering_reserved_tokens <> 0)`,
        [w.org],
      );
      expect(held[0].n).toBe(0);
      await setPlan(w.org, {});
    });

    it('checked in order: the member day, then the month’s tokens, then its requests', async () => {
      const w = await world();
      await w.owner.agent.put(`/api/v1/organizations/${w.org}/ai-settings`).send({ per_member_daily_tokens: 1000 });
      await setPlan(w.org, { tokens: 1000, requests: 1 });
      await meter(w.org, w.member.user.id, 1000);
      expectQuota(await ask(w), 'member_daily_tokens', nextUtcMidnight());
      await w.owner.agent.put(`/api/v1/organizations/${w.org}/ai-settings`).send({ per_member_daily_tokens: null });
      expectQuota(await ask(w), 'organization_monthly_tokens', nextUtcMonth());
      await setPlan(w.org, { tokens: null, requests: 1 });
      expectQuota(await ask(w), 'organization_monthly_requests', nextUtcMonth());
      await setPlan(w.org, {});
      expect((await ask(w)).status).toBe(200);
    });
  });

  describe('usage views', () => {
    let w: World;
    let today: string;

    beforeAll(async () => {
      w = await world();
      today = t.clock.now().toISOString().slice(0, 10);
      await ask(w);
      await meter(w.org, w.owner.user.id, 400);
      await usage().record({
        organizationId: null,
        userId: w.member.user.id,
        feature: 'quiz_proposal',
        provider: 'local',
        model: 'local-extractive-1',
        inputTokens: 70,
        outputTokens: 30,
        status: 'ok',
      });
    });

    it('my usage: totals, every date of the current month, by organization (platform work under null), today', async () => {
      const metered = await t.db.query(
        `SELECT coalesce(sum(input_tokens), 0)::int AS i, coalesce(sum(output_tokens), 0)::int AS o, count(*)::int AS n
         FROM ai_usage WHERE user_id = $1`,
        [w.member.user.id],
      );
      const mine = (await w.member.agent.get('/api/v1/me/ai-usage').expect(200)).body;
      const start = startOfUtcMonth().toISOString().slice(0, 10);
      const end = new Date(nextUtcMonth().getTime() - DAY_MS).toISOString().slice(0, 10);
      expect(mine.period).toEqual({ from: start, to: end });
      expect(mine.totals).toEqual({ requests: metered[0].n, input_tokens: metered[0].i, output_tokens: metered[0].o });
      expect(mine.by_day[0].date).toBe(start);
      expect(mine.by_day.at(-1).date).toBe(end);
      const todays = mine.by_day.find((d: { date: string }) => d.date === today);
      expect(todays).toEqual({ date: today, requests: metered[0].n, tokens: metered[0].i + metered[0].o });
      expect(mine.by_organization).toEqual([
        {
          organization_id: w.org,
          name: 'Quota org',
          requests: metered[0].n - 1,
          tokens: metered[0].i + metered[0].o - 100,
        },
        { organization_id: null, name: null, requests: 1, tokens: 100 },
      ]);
      // The active organization is the last one joined with a session: the member's daily figure in it.
      await w.member.agent.put('/api/v1/me/active-organization').send({ organization_id: w.org }).expect(200);
      const again = (await w.member.agent.get('/api/v1/me/ai-usage').expect(200)).body;
      expect(again.today).toEqual({ tokens: metered[0].i + metered[0].o - 100, limit: null });
    });

    it('a bearer token counts its own organization only', async () => {
      const token = await personalToken(t, w.member, w.org, 'read');
      const mine = (await bearer(t, token).get('/api/v1/me/ai-usage').expect(200)).body;
      expect(mine.by_organization.map((o: { organization_id: string | null }) => o.organization_id)).toEqual([w.org]);
    });

    it('periods: explicit dates, at most 366 days, never backwards; bad dates are 422', async () => {
      const one = (await w.member.agent.get('/api/v1/me/ai-usage').query({ from: today, to: today }).expect(200)).body;
      expect(one.by_day).toHaveLength(1);
      await w.member.agent.get('/api/v1/me/ai-usage').query({ from: '2025-01-01', to: '2026-01-01' }).expect(200);
      for (const query of [
        { from: '2025-01-01', to: '2026-01-02' },
        { from: '2026-03-02', to: '2026-03-01' },
        { from: '2026-02-30' },
        { to: '2026/03/01' },
      ]) {
        expect((await w.member.agent.get('/api/v1/me/ai-usage').query(query).expect(422)).body.error.code).toBe(
          'validation_error',
        );
      }
    });

    it("the organization's usage by day, member (with names) and feature, with this month's quota", async () => {
      await setPlan(w.org, { tokens: 1_000_000, requests: 1000 });
      const path = `/api/v1/organizations/${w.org}/ai-usage`;
      const [spent] = await t.db.query(
        `SELECT count(*)::int AS n, sum(input_tokens)::int AS i, sum(output_tokens)::int AS o FROM ai_usage
         WHERE organization_id = $1`,
        [w.org],
      );
      const byDay = (await w.owner.agent.get(path).expect(200)).body;
      expect(byDay.totals).toEqual({ requests: spent.n, input_tokens: spent.i, output_tokens: spent.o });
      expect(byDay.groups).toEqual([
        { key: today, label: today, requests: spent.n, input_tokens: spent.i, output_tokens: spent.o },
      ]);
      expect(byDay.quota).toEqual({
        monthly_tokens_limit: 1_000_000,
        monthly_tokens_used: spent.i + spent.o,
        monthly_requests_limit: 1000,
        monthly_requests_used: spent.n,
        resets_at: nextUtcMonth().toISOString(),
      });
      const byMember = (await w.owner.agent.get(path).query({ group_by: 'member' }).expect(200)).body.groups;
      expect(byMember.map((g: { key: string; label: string }) => [g.key, g.label]).sort()).toEqual(
        [
          [w.member.user.id, 'Test Person'],
          [w.owner.user.id, 'Test Person'],
        ].sort(),
      );
      const byFeature = (await w.owner.agent.get(path).query({ group_by: 'feature' }).expect(200)).body.groups;
      expect(byFeature.map((g: { key: string }) => g.key)).toEqual(['tutor']);
      await w.owner.agent.get(path).query({ group_by: 'provider' }).expect(422);
    });

    it('the platform view (platform admins): by organization (platform work under null), provider, feature', async () => {
      const path = '/api/v1/admin/ai-usage';
      await w.owner.agent.get(path).expect(403);
      const byOrg = (await admin.agent.get(path).expect(200)).body;
      expect(byOrg.groups).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ key: w.org, label: 'Quota org' }),
          expect.objectContaining({ key: null, label: null }),
        ]),
      );
      const sum = byOrg.groups.reduce((n: number, g: { requests: number }) => n + g.requests, 0);
      expect(sum).toBe(byOrg.totals.requests);
      const byProvider = (await admin.agent.get(path).query({ group_by: 'provider' }).expect(200)).body.groups;
      expect(byProvider.map((g: { key: string }) => g.key)).toEqual(['local']);
      const byFeature = (await admin.agent.get(path).query({ group_by: 'feature' }).expect(200)).body.groups;
      expect(byFeature.map((g: { key: string }) => g.key).sort()).toEqual(['quiz_proposal', 'tutor']);
      await admin.agent.get(path).query({ group_by: 'member' }).expect(422);
    });
  });

  it('personal data: conversations exported and deleted; AI usage exported and kept without the person', async () => {
    const w = await world();
    await ask(w);
    const registry = t.app.get(PersonalDataRegistry);
    const covered = registry.coveredTables();
    for (const table of ['ai_usage', 'tutor_conversations', 'tutor_messages', 'quiz_proposals']) {
      expect(covered.has(table)).toBe(true);
    }
    const handlers = registry.handlers().filter((h) => ['tutor', 'ai_usage'].includes(h.area));
    const exported = Object.fromEntries(
      await Promise.all(
        handlers.map(async (h) => [`${h.area}.${h.key}`, await h.handler.export(w.member.user.id, t.db.manager)]),
      ),
    );
    expect(exported['tutor.conversations']).toEqual([
      expect.objectContaining({
        id: w.conversation,
        organization_id: w.org,
        messages: [
          expect.objectContaining({ role: 'user', content: 'What is a list?' }),
          expect.objectContaining({ role: 'assistant' }),
        ],
      }),
    ]);
    expect(exported['ai_usage.calls']).toEqual([expect.objectContaining({ organization_id: w.org, feature: 'tutor' })]);
    expect(JSON.stringify(exported)).not.toContain(w.member.email);

    const before = await t.db.query(`SELECT count(*)::int AS n FROM ai_usage WHERE organization_id = $1`, [w.org]);
    await t.app.get(TransactionRunner).run(async (tx) => {
      for (const h of handlers)
        await h.handler.erase({ userId: w.member.user.id, tx, now: t.clock.now(), keepCertificateNames: false });
    });
    expect(await t.db.query(`SELECT 1 FROM tutor_conversations WHERE user_id = $1`, [w.member.user.id])).toEqual([]);
    expect(await t.db.query(`SELECT 1 FROM tutor_messages WHERE conversation_id = $1`, [w.conversation])).toEqual([]);
    expect(await t.db.query(`SELECT 1 FROM ai_usage WHERE user_id = $1`, [w.member.user.id])).toEqual([]);
    expect(await t.db.query(`SELECT count(*)::int AS n FROM ai_usage WHERE organization_id = $1`, [w.org])).toEqual(
      before,
    );
  });
});
