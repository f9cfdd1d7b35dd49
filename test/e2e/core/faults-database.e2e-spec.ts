import { ADMIN_DATABASE_URL } from '../../support/test-env';
import { adult } from '../../support/tenancy';
import type { SignedIn } from '../../support/auth';
import { TcpProxy } from '../../support/tcp-proxy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

/**
 * PostgreSQL unreachable (a proxy in front of the real server is cut, as when its host goes away): `/ready`
 * answers 503 within its timeout, requests that need the database answer 503 in the envelope (never a 500, never
 * a hang), `/health` keeps answering, and everything recovers by itself when the database is back.
 */
describe('Faults: the database unreachable', () => {
  let proxy: TcpProxy;
  let t: TestApp;
  let person: SignedIn;

  beforeAll(async () => {
    const target = new URL(ADMIN_DATABASE_URL);
    proxy = new TcpProxy(target.hostname, Number(target.port || 5432));
    await proxy.start();
    t = await createTestApp({ databasePort: proxy.port });
    person = await adult(t);
  });
  afterAll(async () => {
    proxy.restore();
    await t.close();
    await proxy.stop();
  });

  it('answers 503 while it is gone, and recovers by itself when it is back', async () => {
    await t.http().get('/ready').expect(200);
    await person.agent.get('/api/v1/me/organizations').expect(200);

    proxy.cut();
    const started = Date.now();
    const ready = await t.http().get('/ready').expect(503);
    expect(ready.body.error.code).toBe('service_unavailable');
    expect(ready.body.error.message).toMatch(/database/);
    expect(Date.now() - started).toBeLessThan(5_000);

    await t.http().get('/health').expect(200);
    for (let i = 0; i < 3; i++) {
      const res = await person.agent.get('/api/v1/me/organizations');
      expect(res.status).toBe(503);
      expect(res.body.error).toEqual({
        code: 'service_unavailable',
        message: 'The database is unavailable. Try again shortly.',
        request_id: res.headers['x-request-id'],
      });
      expect(res.headers['retry-after']).toBe('5');
    }

    proxy.restore();
    await waitUntil(async () => (await t.http().get('/ready')).status === 200, { what: '/ready back to 200' });
    await person.agent.get('/api/v1/me/organizations').expect(200);
  }, 60_000);
});
