import { randomUUID } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import { accessTable } from '@/core/http/access-table';
import { signIn, type SignedIn, stepUpByEmail } from '../../support/auth';
import { adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

type Operation = Record<string, unknown> & { description?: string; security?: unknown[]; responses: object };
type Doc = { paths: Record<string, Record<string, Operation>> };
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * The declarative access rules of issue 9: `@BrowserSessionOnly()`, `@CookieSessionOnly()` and
 * `@NotWhileImpersonating()` are enforced by the credential guard for every operation that carries them (found in
 * the OpenAPI description, which the same decorators write), shown in the access table and the "Access" line; and
 * the OAuth protocol endpoints answer malformed bodies with their RFC error body.
 */
describe('access rules and protocol errors', () => {
  let t: TestApp;
  let doc: Doc;
  let owner: SignedIn;
  let orgId: string;
  let writeToken: string;
  let readToken: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'rules-admin@ops.test' } });
    doc = (await t.http().get('/docs-json').expect(200)).body as Doc;
    owner = await adult(t);
    orgId = await createOrganization(t, owner);
    writeToken = await personalToken(t, owner, orgId, 'write');
    readToken = await personalToken(t, owner, orgId, 'read');
  });
  afterAll(() => t.close());

  const marked = (extension: string, value?: unknown): { method: (typeof METHODS)[number]; path: string }[] =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      METHODS.filter((m) => item[m] && (value === undefined ? item[m][extension] : item[m][extension] === value)).map(
        (method) => ({ method, path }),
      ),
    );
  const url = (path: string): string =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === 'org_id' ? orgId : randomUUID()));
  const send = (agent: TestAgent, method: (typeof METHODS)[number], path: string) => agent[method](url(path)).send({});

  describe('browser session only', () => {
    it('marks exactly the operations that only a person at the browser may call', () => {
      expect(marked('x-session-only', 'forbidden')).toEqual(
        expect.arrayContaining([
          { method: 'post', path: '/api/v1/auth/step-up/request' },
          { method: 'post', path: '/api/v1/auth/step-up/verify' },
          { method: 'post', path: '/api/v1/invitations/accept' },
          { method: 'post', path: '/api/v1/me/api-keys' },
          { method: 'post', path: '/api/v1/oauth/authorize/decision' },
          { method: 'post', path: '/api/v1/organizations' },
          // Privacy (extensions-v2 17.7): the "session" rows.
          { method: 'post', path: '/api/v1/me/privacy/consents' },
          { method: 'post', path: '/api/v1/me/privacy/exports' },
          { method: 'get', path: '/api/v1/me/privacy/exports' },
          { method: 'get', path: '/api/v1/me/privacy/exports/{export_id}' },
          { method: 'get', path: '/api/v1/me/privacy/exports/{export_id}/download' },
          { method: 'post', path: '/api/v1/me/privacy/erasure' },
          { method: 'delete', path: '/api/v1/me/privacy/erasure' },
          { method: 'put', path: '/api/v1/me/privacy/age-bracket' },
          { method: 'post', path: '/api/v1/me/privacy/guardian-consent' },
          // The calendar feed (extensions-v2 25.2): "session".
          { method: 'get', path: '/api/v1/me/calendar-feed' },
          { method: 'post', path: '/api/v1/me/calendar-feed' },
          { method: 'delete', path: '/api/v1/me/calendar-feed' },
          // Passkeys (extensions-v3 3): the "session" rows and the passkey step-up.
          { method: 'post', path: '/api/v1/me/passkeys/registration-options' },
          { method: 'get', path: '/api/v1/me/passkeys' },
          { method: 'post', path: '/api/v1/me/passkeys' },
          { method: 'patch', path: '/api/v1/me/passkeys/{passkey_id}' },
          { method: 'delete', path: '/api/v1/me/passkeys/{passkey_id}' },
          { method: 'post', path: '/api/v1/auth/step-up/passkey/options' },
          { method: 'post', path: '/api/v1/auth/step-up/passkey/verify' },
          // LTI (extensions-v3 1.4): the editor's deep-linking start is bound to the browser session.
          { method: 'get', path: '/api/v1/editor/courses/{course_id}/lti/deep-linking' },
        ]),
      );
      expect(marked('x-session-only', 'forbidden')).toHaveLength(26);
      expect(marked('x-session-only', 'unauthorized')).toEqual([{ method: 'get', path: '/api/v1/auth/me' }]);
    });

    it('answers 403 forbidden to a write token on every such operation, and nothing is created', async () => {
      const orgsBefore = (await owner.agent.get('/api/v1/me/organizations').expect(200)).body;
      const keyIds = async (): Promise<string[]> =>
        ((await owner.agent.get('/api/v1/me/api-keys').expect(200)).body.items as { id: string }[]).map((k) => k.id);
      const keysBefore = await keyIds();
      for (const { method, path } of marked('x-session-only', 'forbidden')) {
        const res = await send(bearer(t, writeToken), method, path);
        expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({
          method,
          path,
          status: 403,
          code: 'forbidden',
        });
      }
      // With a valid body too: the refusal does not depend on what is sent.
      await bearer(t, writeToken).post('/api/v1/organizations').send({ name: 'By token' }).expect(403);
      expect((await owner.agent.get('/api/v1/me/organizations').expect(200)).body).toEqual(orgsBefore);
      expect(await keyIds()).toEqual(keysBefore);
    });

    it('a read-only token keeps its read-only refusal on writes, and gets forbidden on read operations', async () => {
      const org = await bearer(t, readToken).post('/api/v1/organizations').send({ name: 'Read' }).expect(403);
      expect(org.body.error.code).toBe('credential_read_only');
      const stepUp = await bearer(t, readToken).post('/api/v1/auth/step-up/request').expect(403);
      expect(stepUp.body.error.code).toBe('forbidden');
    });

    it('a browser session still passes (the rule changes nothing for it)', async () => {
      const s = await adult(t);
      await s.agent.post('/api/v1/organizations').send({ name: 'By session' }).expect(201);
      await s.agent.post('/api/v1/auth/step-up/request').expect(200);
    });
  });

  describe('GET /api/v1/auth/me is a cookie operation (interface-v1 4.2)', () => {
    it('answers 401 unauthorized to a bearer token, which /auth/credential accepts', async () => {
      for (const token of [writeToken, readToken]) {
        const res = await bearer(t, token).get('/api/v1/auth/me').expect(401);
        expect(res.body.error.code).toBe('unauthorized');
        expect(res.body).not.toHaveProperty('id');
        const credential = await bearer(t, token).get('/api/v1/auth/credential').expect(200);
        expect(credential.body).toMatchObject({ user_id: owner.user.id, organization_id: orgId });
      }
    });

    it('answers the cookie session, even when a bearer header comes along', async () => {
      expect((await owner.agent.get('/api/v1/auth/me').expect(200)).body.id).toBe(owner.user.id);
      const both = await owner.agent.get('/api/v1/auth/me').set('Authorization', `Bearer ${writeToken}`).expect(200);
      expect(both.body.id).toBe(owner.user.id);
      await t.client().get('/api/v1/auth/me').expect(401);
    });

    it('documents the cookie as its only security scheme', () => {
      const op = doc.paths['/api/v1/auth/me'].get;
      expect(op.security).toEqual([{ cookieAuth: [] }]);
      expect(op.description).toContain('cookie session only');
    });
  });

  describe('not while impersonating', () => {
    let impersonated: TestAgent;
    let target: SignedIn;

    beforeAll(async () => {
      target = await adult(t);
      const admin = await signIn(t, 'rules-admin@ops.test');
      await stepUpByEmail(t, admin);
      await admin.agent.post(`/api/v1/admin/users/${target.user.id}/impersonate`).expect(200);
      impersonated = admin.agent;
    });

    it('marks what only the person does: sign-in factors, address, tokens, connecting apps, impersonating', () => {
      expect(marked('x-not-while-impersonating').sort((a, b) => a.path.localeCompare(b.path))).toEqual([
        { method: 'post', path: '/api/v1/admin/users/{user_id}/impersonate' },
        { method: 'post', path: '/api/v1/me/api-keys' },
        { method: 'delete', path: '/api/v1/me/api-keys/{id}' },
        { method: 'post', path: '/api/v1/me/email-change' },
        { method: 'post', path: '/api/v1/me/email-change/verify' },
        { method: 'post', path: '/api/v1/me/passkeys' },
        { method: 'delete', path: '/api/v1/me/passkeys/{passkey_id}' },
        { method: 'post', path: '/api/v1/me/passkeys/registration-options' },
        { method: 'post', path: '/api/v1/me/two-factor/disable' },
        { method: 'post', path: '/api/v1/me/two-factor/enable' },
        { method: 'post', path: '/api/v1/me/two-factor/recovery-codes' },
        { method: 'post', path: '/api/v1/me/two-factor/setup' },
        { method: 'post', path: '/api/v1/oauth/authorize/decision' },
      ]);
    });

    it('answers 403 impersonation_restricted on each, before step-up is asked', async () => {
      expect((await impersonated.get('/api/v1/auth/me').expect(200)).body.id).toBe(target.user.id);
      for (const { method, path } of marked('x-not-while-impersonating')) {
        const res = await send(impersonated, method, path);
        // Starting an impersonation needs platform_admin, which an impersonated person never has: that refusal
        // comes first there.
        const expected = path.startsWith('/api/v1/admin/') ? 'forbidden' : 'impersonation_restricted';
        expect({ method, path, status: res.status, code: res.body.error?.code }).toEqual({
          method,
          path,
          status: 403,
          code: expected,
        });
      }
      const twoFactor = await target.agent.get('/api/v1/me/two-factor').expect(200);
      expect(twoFactor.body.enabled).toBe(false);
    });

    it('the person themself is not refused', async () => {
      await target.agent.post('/api/v1/me/two-factor/setup').expect(200);
    });
  });

  describe('documentation', () => {
    it('the access table has the Session and Impersonation columns filled from the decorators', () => {
      const table = accessTable(doc as never);
      expect(table).toContain(
        '| Method | Path | Auth | Scope | Roles | Platform | Step-up | Session | Impersonation |',
      );
      expect(table).toContain('| GET | `/api/v1/auth/me` | credential |  |  |  |  | cookie |  |  | yes |  |');
      expect(table).toContain(
        '| POST | `/api/v1/me/api-keys` | credential |  |  |  | yes | yes | refused | yes | no |',
      );
      expect(table).toContain('| POST | `/api/v1/organizations` | credential |  |  |  |  | yes |  | yes | no |');
    });

    it('the OpenAPI Access line and 403 response name the refusals', () => {
      const create = doc.paths['/api/v1/me/api-keys'].post;
      expect(create.description).toContain('browser session only (bearer tokens get `forbidden`)');
      expect(create.description).toContain('not while impersonating (`impersonation_restricted`)');
      const setup = doc.paths['/api/v1/me/two-factor/setup'].post;
      expect(setup.description).toContain('not while impersonating (`impersonation_restricted`)');
      const responses = doc.paths['/api/v1/organizations'].post.responses as Record<string, { description: string }>;
      expect(responses['403'].description).toContain('`credential_read_only`');
    });
  });

  describe('OAuth protocol endpoints answer malformed bodies with the RFC error body', () => {
    const rfc = { error: 'invalid_request', error_description: expect.any(String) };
    const big = 'x'.repeat(1_100_000);

    it.each(['token', 'revoke'])('/oauth/%s: malformed JSON, JSON, text, oversized', async (endpoint) => {
      const path = `/api/v1/oauth/${endpoint}`;
      const cases = [
        t.client().post(path).set('Content-Type', 'application/json').send('{"token": '),
        t.client().post(path).send({ token: 'x', grant_type: 'refresh_token' }),
        t.client().post(path).set('Content-Type', 'text/plain').send('token=x'),
        t
          .client()
          .post(path)
          .type('form')
          .send(`token=${'y'.repeat(200_000)}`),
        t.client().post(path).set('Content-Type', 'application/json').send(`{"token": "${big}"}`),
      ];
      const statuses = [400, 400, 400, 413, 413];
      for (const [i, pending] of cases.entries()) {
        const res = await pending;
        expect({ i, status: res.status, body: res.body }).toEqual({ i, status: statuses[i], body: rfc });
        expect(res.headers['cache-control']).toBe('no-store');
      }
    });

    it('/oauth/register: malformed JSON, a form, text, no body, oversized', async () => {
      const path = '/api/v1/oauth/register';
      const cases = [
        t.client().post(path).set('Content-Type', 'application/json').send('{"redirect_uris": ['),
        t.client().post(path).type('form').send('redirect_uris=https://app.example/cb'),
        t.client().post(path).set('Content-Type', 'text/plain').send('{}'),
        t.client().post(path),
        t.client().post(path).set('Content-Type', 'application/json').send(`{"client_name": "${big}"}`),
      ];
      const statuses = [400, 400, 400, 400, 413];
      for (const [i, pending] of cases.entries()) {
        const res = await pending;
        expect({ i, status: res.status, body: res.body }).toEqual({ i, status: statuses[i], body: rfc });
      }
      const ok = await t
        .client()
        .post(path)
        .send({ redirect_uris: ['https://app.example/cb'] })
        .expect(201);
      expect(ok.body.client_id).toEqual(expect.any(String));
    });

    it('other routes keep the envelope for the same mistakes', async () => {
      const res = await owner.agent
        .post('/api/v1/organizations')
        .set('Content-Type', 'application/json')
        .send('{"name": ')
        .expect(400);
      expect(res.body.error.code).toBe('malformed_json');
    });
  });
});
