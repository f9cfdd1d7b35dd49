import type Redis from 'ioredis';
import type TestAgent from 'supertest/lib/agent';
import { BudgetsService } from '@/core/budgets/budgets.service';
import { REDIS } from '@/core/redis/redis.module';
import { signIn } from '../../support/auth';
import { adult, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const TOKEN = 12;
const SESSION = 10;
const ANONYMOUS = 6;
const BUDGETS = {
  API_BUDGET_TOKEN_PER_MINUTE: String(TOKEN),
  API_BUDGET_SESSION_PER_MINUTE: String(SESSION),
  API_BUDGET_ANONYMOUS_PER_MINUTE: String(ANONYMOUS),
};

/**
 * Moves the test clocks to the start of the next budget window (they keep running in real time), so a test has a
 * whole minute of fresh budgets that cannot turn over in its middle.
 */
function freshWindow(...apps: TestApp[]): void {
  const ms = 60_000 - (apps[0].clock.nowMs() % 60_000) + 1_000;
  for (const app of apps) app.clock.advance(ms);
}

function expectFields(res: { headers: Record<string, string> }, name: string, quota: number, remaining: number): void {
  expect(res.headers['ratelimit-policy']).toBe(`"${name}";q=${quota};w=60`);
  expect(res.headers.ratelimit).toMatch(
    new RegExp(`^"${name.replace('.', '\\.')}";r=${remaining};t=([1-9]|[1-5]\\d|60)$`),
  );
}

function expectSpent(
  res: { status: number; body: { error: { code: string } }; headers: Record<string, string> },
  name: string,
  quota: number,
): void {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({ code: 'too_many_requests', request_id: res.headers['x-request-id'] });
  const retryAfter = Number(res.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expectFields(res, name, quota, 0);
}

describe('Request budgets (extensions-v3 4)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: BUDGETS });
  });
  afterAll(async () => {
    await t.close();
  });

  describe('anonymous: per client address', () => {
    it('allows exactly the budget, then 429 too_many_requests with Retry-After and the RateLimit fields', async () => {
      freshWindow(t);
      const ip = t.nextIp();
      for (let i = 0; i < ANONYMOUS; i++) {
        const ok = await t.http().get('/version').set('X-Forwarded-For', ip).expect(200);
        expectFields(ok, 'budget.anonymous', ANONYMOUS, ANONYMOUS - 1 - i);
      }
      expectSpent(await t.http().get('/version').set('X-Forwarded-For', ip), 'budget.anonymous', ANONYMOUS);
      // Every operation counts against it, not one route.
      expectSpent(
        await t.http().get('/api/v1/public/catalog').set('X-Forwarded-For', ip),
        'budget.anonymous',
        ANONYMOUS,
      );
      // Another address has its own.
      expectFields(
        await t.http().get('/version').set('X-Forwarded-For', t.nextIp()).expect(200),
        'budget.anonymous',
        ANONYMOUS,
        ANONYMOUS - 1,
      );
    });

    it('a new window gives the budget back', async () => {
      freshWindow(t);
      const ip = t.nextIp();
      for (let i = 0; i < ANONYMOUS; i++) await t.http().get('/version').set('X-Forwarded-For', ip).expect(200);
      await t.http().get('/version').set('X-Forwarded-For', ip).expect(429);
      freshWindow(t);
      await t.http().get('/version').set('X-Forwarded-For', ip).expect(200);
    });

    it('keys IPv6 addresses by their /64', async () => {
      freshWindow(t);
      const block = `2001:db8:${(process.pid & 0xffff).toString(16)}:${(Date.now() & 0xffff).toString(16)}`;
      for (let i = 0; i < ANONYMOUS; i++) {
        await t
          .http()
          .get('/version')
          .set('X-Forwarded-For', `${block}::${(i + 1).toString(16)}`)
          .expect(200);
      }
      const spent = await t.http().get('/version').set('X-Forwarded-For', `${block}:ffff:ffff:ffff:fffe`);
      expectSpent(spent, 'budget.anonymous', ANONYMOUS);
      await t
        .http()
        .get('/version')
        .set('X-Forwarded-For', `2001:db8:ffff:${(Date.now() & 0xffff).toString(16)}::1`)
        .expect(200);
    });

    it('a refused credential counts as anonymous: 401 with the fields, then 429', async () => {
      freshWindow(t);
      const ip = t.nextIp();
      for (let i = 0; i < ANONYMOUS; i++) {
        const res = await t
          .http()
          .get('/api/v1/auth/credential')
          .set('X-Forwarded-For', ip)
          .set('Authorization', `Bearer svc_live_${'x'.repeat(40)}${i}`)
          .expect(401);
        expectFields(res, 'budget.anonymous', ANONYMOUS, ANONYMOUS - 1 - i);
      }
      const res = await t
        .http()
        .get('/api/v1/auth/credential')
        .set('X-Forwarded-For', ip)
        .set('Authorization', `Bearer svc_live_${'y'.repeat(41)}`);
      expectSpent(res, 'budget.anonymous', ANONYMOUS);
    });

    it('a route limit closer to exhaustion is the one shown; the budget when it is closer', async () => {
      freshWindow(t);
      const ip = t.nextIp();
      const first = await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', ip).expect(200);
      expectFields(first, 'probe.limited', 3, 2);
      for (let i = 0; i < ANONYMOUS - 2; i++) await t.http().get('/version').set('X-Forwarded-For', ip).expect(200);
      // The budget has 0 left after this one, the route limit 1.
      const last = await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', ip).expect(200);
      expectFields(last, 'budget.anonymous', ANONYMOUS, 0);
      expectSpent(
        await t.http().get('/api/v1/_probe/limited').set('X-Forwarded-For', ip),
        'budget.anonymous',
        ANONYMOUS,
      );
    });
  });

  describe('outside budgets', () => {
    it('probes, /metrics and Swagger UI carry no fields and spend nothing', async () => {
      freshWindow(t);
      const ip = t.nextIp();
      for (let i = 0; i < ANONYMOUS + 2; i++) {
        for (const path of ['/health', '/ready', '/metrics', '/docs', '/docs-json']) {
          const res = await t.http().get(path).set('X-Forwarded-For', ip);
          expect(res.status).toBeLessThan(429);
          expect(res.headers['ratelimit-policy']).toBeUndefined();
          expect(res.headers.ratelimit).toBeUndefined();
        }
      }
      expectFields(
        await t.http().get('/version').set('X-Forwarded-For', ip).expect(200),
        'budget.anonymous',
        ANONYMOUS,
        ANONYMOUS - 1,
      );
    });
  });

  describe('own budgets (SCIM and LTI service tokens)', () => {
    it('an operation marked @OwnBudget() counts against its own limits only', async () => {
      freshWindow(t);
      const ip = t.nextIp();
      for (let i = 0; i < ANONYMOUS; i++) await t.http().get('/version').set('X-Forwarded-For', ip).expect(200);
      await t.http().get('/version').set('X-Forwarded-For', ip).expect(429);
      const res = await t.http().get('/api/v1/_probe/own-budget').set('X-Forwarded-For', ip).expect(200);
      expectFields(res, 'probe.own', 100, 99);
    });
  });

  describe('cookie session: per session', () => {
    it('allows exactly the budget, then 429; the address and a second session keep theirs', async () => {
      const a = await signIn(t);
      const b = await signIn(t);
      freshWindow(t);
      for (let i = 0; i < SESSION; i++) {
        const ok = await a.agent.get('/api/v1/auth/me').expect(200);
        expectFields(ok, 'budget.session', SESSION, SESSION - 1 - i);
      }
      expectSpent(await a.agent.get('/api/v1/auth/me'), 'budget.session', SESSION);
      expectSpent(await a.agent.get('/api/v1/me/api-keys'), 'budget.session', SESSION);
      expectFields(await b.agent.get('/api/v1/auth/me').expect(200), 'budget.session', SESSION, SESSION - 1);
      // Same address without the cookie: the anonymous budget, untouched.
      const anonymous = await t.http().get('/version').set('X-Forwarded-For', a.ip).expect(200);
      expectFields(anonymous, 'budget.anonymous', ANONYMOUS, ANONYMOUS - 1);
    });
  });

  describe('personal token: per token', () => {
    let first: TestAgent;
    let second: TestAgent;
    beforeAll(async () => {
      const owner = await adult(t);
      const org = await createOrganization(t, owner);
      const one = await personalToken(t, owner, org, 'read');
      const two = await personalToken(t, owner, org, 'read');
      // One address for both tokens: their budgets are the tokens', not the address's.
      const ip = t.nextIp();
      first = t.client(ip).set('Authorization', `Bearer ${one}`);
      second = t.client(ip).set('Authorization', `Bearer ${two}`);
    });

    it('allows exactly the budget, then 429; another token of the same person keeps its own', async () => {
      freshWindow(t);
      for (let i = 0; i < TOKEN; i++) {
        const ok = await first.get('/api/v1/auth/credential').expect(200);
        expectFields(ok, 'budget.token', TOKEN, TOKEN - 1 - i);
      }
      expectSpent(await first.get('/api/v1/auth/credential'), 'budget.token', TOKEN);
      expectFields(await second.get('/api/v1/auth/credential').expect(200), 'budget.token', TOKEN, TOKEN - 1);
    });

    it('a request refused after the budget (403, another organization) still carries the fields and counts', async () => {
      freshWindow(t);
      const res = await first.get(`/api/v1/organizations/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/members`);
      expect([403, 404]).toContain(res.status);
      expectFields(res, 'budget.token', TOKEN, TOKEN - 1);
    });
  });

  describe('OpenAPI', () => {
    it('documents the fields and 429 on every operation', async () => {
      const doc = (await t.http().get('/docs-json').expect(200)).body as {
        description?: string;
        info: { description: string };
        paths: Record<
          string,
          Record<string, { responses: Record<string, { headers?: Record<string, unknown>; description: string }> }>
        >;
      };
      expect(doc.info.description).toContain(`${TOKEN} per minute per token`);
      let operations = 0;
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, op] of Object.entries(item)) {
          if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
          operations++;
          expect([path, method, op.responses['429']?.headers?.['Retry-After'] !== undefined]).toEqual([
            path,
            method,
            true,
          ]);
          for (const [status, response] of Object.entries(op.responses)) {
            if (/^[24]/.test(status))
              expect([path, status, Boolean(response.headers?.RateLimit)]).toEqual([path, status, true]);
          }
        }
      }
      expect(operations).toBeGreaterThan(100);
      expect(doc.paths['/health'].get.responses['429'].description).toMatch(/^Never answered/);
      expect(doc.paths['/version'].get.responses['429'].description).toContain('request budget');
    });
  });

  describe('two instances on one Redis prefix', () => {
    let other: TestApp;
    beforeAll(async () => {
      other = await createTestApp({ env: BUDGETS, databaseName: t.dbName, suffix: t.suffix });
      // Both instances read the same time (this file's clock has been moved by the tests above).
      other.clock.advance(t.clock.nowMs() - other.clock.nowMs());
    });
    afterAll(async () => {
      await other.close();
    });

    it('share one budget: each learns the others’ count at its next reconcile', async () => {
      freshWindow(t, other);
      const ip = t.nextIp();
      const a = t.app.get(BudgetsService);
      const b = other.app.get(BudgetsService);
      for (let i = 0; i < 4; i++) await t.http().get('/version').set('X-Forwarded-For', ip).expect(200);
      await a.reconcile();
      await other.http().get('/version').set('X-Forwarded-For', ip).expect(200);
      await other.http().get('/version').set('X-Forwarded-For', ip).expect(200);
      await b.reconcile();
      // Alone, the second instance would allow 4 more.
      expectSpent(await other.http().get('/version').set('X-Forwarded-For', ip), 'budget.anonymous', ANONYMOUS);
      const redis = t.app.get<Redis>(REDIS);
      const keys = await redis.keys(`${t.config.redis.keyPrefix}:budget:budget.anonymous:${ip}:*`);
      expect(keys).toHaveLength(1);
      expect(await redis.get(keys[0])).toBe(String(ANONYMOUS));
      // The first instance knew 4 until its next reconcile: the documented overshoot of at most one interval.
      await t.http().get('/version').set('X-Forwarded-For', ip).expect(200);
      await a.reconcile();
      expectSpent(await t.http().get('/version').set('X-Forwarded-For', ip), 'budget.anonymous', ANONYMOUS);
      expect(await redis.get(keys[0])).toBe(String(ANONYMOUS + 1));
    });
  });
});

describe('Request budgets without Redis, and 0 = off', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      redis: false,
      env: {
        API_BUDGET_TOKEN_PER_MINUTE: '0',
        API_BUDGET_SESSION_PER_MINUTE: '3',
        API_BUDGET_ANONYMOUS_PER_MINUTE: '0',
      },
    });
  });
  afterAll(async () => {
    await t.close();
  });

  it('an off budget counts nothing and sends no fields', async () => {
    const ip = t.nextIp();
    for (let i = 0; i < 20; i++) {
      const res = await t.http().get('/version').set('X-Forwarded-For', ip).expect(200);
      expect(res.headers['ratelimit-policy']).toBeUndefined();
      expect(res.headers.ratelimit).toBeUndefined();
    }
  });

  it('counts in memory without Redis', async () => {
    const s = await signIn(t);
    freshWindow(t);
    for (let i = 0; i < 3; i++)
      expectFields(await s.agent.get('/api/v1/auth/me').expect(200), 'budget.session', 3, 2 - i);
    expectSpent(await s.agent.get('/api/v1/auth/me'), 'budget.session', 3);
  });
});
