import { createHash, randomBytes } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { signIn, type SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const APP = 'http://app.test';
const REDIRECT = 'http://127.0.0.1:7777/callback';

interface Pkce {
  verifier: string;
  challenge: string;
}

function pkce(): Pkce {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * The OAuth 2.1 authorization server (interface-v1 5.3, extensions "OAuth 2.1 authorization server"): metadata,
 * dynamic registration, the authorization endpoint and consent, the token endpoint (PKCE, single-use codes,
 * refresh rotation with reuse detection), revocation, the `svc_oat_` credential and the integrations list.
 */
describe('OAuth 2.1 authorization server', () => {
  let t: TestApp;
  let person: SignedIn;
  let orgA: string; // person is owner
  let orgB: string; // person is a student
  let orgC: string; // person is not a member
  let orgS: string; // person is a member, but it is suspended
  let clientId: string;
  /** Who consents in the helpers; each block that consents a lot has its own (decisions are rate limited per account). */
  let current: SignedIn;

  /** Another person with the same memberships: owner of A, learner in B, admin of the suspended one. */
  async function member(): Promise<SignedIn> {
    const s = await adult(t);
    await addMember(t, orgA, s.user.id, 'owner');
    await addMember(t, orgB, s.user.id, 'student');
    await addMember(t, orgS, s.user.id, 'admin');
    return s;
  }

  const api = (): string => `${t.baseUrl}/api/v1`;

  function register(body: object, ip?: string): ReturnType<TestAgent['post']> {
    return t.client(ip).post('/api/v1/oauth/register').send(body);
  }

  function authorizePath(params: Record<string, string | undefined>): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, v);
    return `/api/v1/oauth/authorize?${q.toString()}`;
  }

  function request(p: Pkce, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
      state: 'st-123',
      scope: 'svc',
      resource: `${api()}`,
      ...extra,
    };
  }

  async function consent(
    agent: TestAgent,
    params: Record<string, string | undefined>,
  ): Promise<{ requestId: string; csrf: string; html: string }> {
    const res = await agent.get(authorizePath(params)).expect(200);
    const html = res.text;
    return {
      requestId: /name="request_id" value="([^"]+)"/.exec(html)![1],
      csrf: /name="csrf_token" value="([^"]+)"/.exec(html)![1],
      html,
    };
  }

  function decide(agent: TestAgent, form: Record<string, string>): ReturnType<TestAgent['post']> {
    return agent.post('/api/v1/oauth/authorize/decision').type('form').send(form);
  }

  /** Consent in `org` with `access`; returns the code. */
  async function authorizeCode(
    p: Pkce,
    org = orgA,
    access = 'write',
    as: SignedIn = current,
    extra: Record<string, string | undefined> = {},
  ): Promise<string> {
    const { requestId, csrf } = await consent(as.agent, request(p, extra));
    const res = await decide(as.agent, {
      request_id: requestId,
      csrf_token: csrf,
      organization_id: org,
      access,
      decision: 'approve',
    }).expect(303);
    const url = new URL(res.headers.location);
    return url.searchParams.get('code')!;
  }

  function token(form: Record<string, string>): ReturnType<TestAgent['post']> {
    return t.client().post('/api/v1/oauth/token').type('form').send(form);
  }

  async function tokens(
    org = orgA,
    access = 'write',
    as: SignedIn = current,
  ): Promise<{ access_token: string; refresh_token: string }> {
    const p = pkce();
    const code = await authorizeCode(p, org, access, as);
    const res = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: p.verifier,
    }).expect(200);
    return res.body;
  }

  beforeAll(async () => {
    t = await createTestApp();
    person = await adult(t);
    orgA = await createOrganization(t, person, 'Org A');
    const other = await adult(t);
    orgB = await createOrganization(t, other, 'Org B');
    await addMember(t, orgB, person.user.id, 'student');
    orgC = await createOrganization(t, other, 'Org C');
    orgS = await createOrganization(t, other, 'Org Suspended');
    await addMember(t, orgS, person.user.id, 'admin');
    await t.app.get(OrganizationsService).setSuspended(orgS, true, 'test', other.user.id, undefined);
    const res = await register({
      client_name: 'Remote <b>tool</b>',
      redirect_uris: [REDIRECT, 'https://tool.example/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: 'none',
    }).expect(201);
    clientId = res.body.client_id;
    current = person;
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  describe('metadata', () => {
    it('GET /.well-known/oauth-authorization-server (RFC 8414)', async () => {
      const res = await t.http().get('/.well-known/oauth-authorization-server').expect(200);
      expect(res.body).toEqual({
        issuer: APP,
        authorization_endpoint: `${api()}/oauth/authorize`,
        token_endpoint: `${api()}/oauth/token`,
        registration_endpoint: `${api()}/oauth/register`,
        revocation_endpoint: `${api()}/oauth/revoke`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        scopes_supported: ['svc'],
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${t.baseUrl}/docs`,
      });
      expect(res.headers['access-control-allow-origin']).toBe('*');
    });

    it.each(['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/v1'])(
      'GET %s (RFC 9728)',
      async (path) => {
        const res = await t.http().get(path).expect(200);
        expect(res.body).toMatchObject({
          resource: api(),
          authorization_servers: [APP],
          bearer_methods_supported: ['header'],
          scopes_supported: ['svc'],
        });
      },
    );

    it('every 401 of the API names the protected-resource metadata in WWW-Authenticate', async () => {
      const metadata = `${t.baseUrl}/.well-known/oauth-protected-resource`;
      const anonymous = await t.http().get('/api/v1/auth/me').expect(401);
      expect(anonymous.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadata}"`);
      const forged = await t
        .http()
        .get('/api/v1/auth/credential')
        .set('Authorization', `Bearer svc_oat_${'a'.repeat(49)}`)
        .expect(401);
      expect(forged.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadata}", error="invalid_token"`);
      expect(forged.body.error.code).toBe('unauthorized');
      // Not on other errors.
      const notFound = await person.agent.get(`/api/v1/organizations/${orgC}`).expect(404);
      expect(notFound.headers['www-authenticate']).toBeUndefined();
    });
  });

  describe('POST /oauth/register (RFC 7591)', () => {
    it('201: a public client with its metadata echoed', async () => {
      const res = await register({
        client_name: 'CLI',
        redirect_uris: ['http://localhost:8123/cb', 'https://tool.example/oauth'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'svc',
        software_id: 'cli',
        unknown_field: 'ignored',
      }).expect(201);
      expect(res.body).toEqual({
        client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        client_id_issued_at: expect.any(Number),
        client_name: 'CLI',
        redirect_uris: ['http://localhost:8123/cb', 'https://tool.example/oauth'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        scope: 'svc',
        software_id: 'cli',
      });
      expect(res.headers['cache-control']).toBe('no-store');
      expect(Math.abs(res.body.client_id_issued_at - Date.now() / 1000)).toBeLessThan(60);
    });

    it.each([
      ['http off loopback', { redirect_uris: ['http://tool.example/cb'] }, 'invalid_redirect_uri'],
      ['a fragment', { redirect_uris: ['https://tool.example/cb#frag'] }, 'invalid_redirect_uri'],
      ['no redirect URI', { client_name: 'x' }, 'invalid_redirect_uri'],
      [
        'a confidential client',
        { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' },
        'invalid_client_metadata',
      ],
      ['another grant', { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
      ['another scope', { redirect_uris: [REDIRECT], scope: 'admin' }, 'invalid_client_metadata'],
    ])('400 for %s, with the RFC error body (not the envelope)', async (_what, body, error) => {
      const res = await register(body).expect(400);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'error_description']);
      expect(res.body.error).toBe(error);
    });

    it('429 past 20 registrations an hour from one address', async () => {
      const ip = t.nextIp();
      for (let i = 0; i < 20; i++) await register({ redirect_uris: [REDIRECT] }, ip).expect(201);
      await register({ redirect_uris: [REDIRECT] }, ip).expect(429);
    });
  });

  describe('GET /oauth/authorize', () => {
    it('without a session: 302 to the web login with the authorize URL as next', async () => {
      const path = authorizePath(request(pkce()));
      const res = await t.client().get(path).expect(302);
      const location = new URL(res.headers.location);
      expect(`${location.origin}${location.pathname}`).toBe('http://web.test/login');
      expect(location.searchParams.get('next')).toBe(`${t.baseUrl}${path}`);
    });

    it('with a session: the consent page, escaped, not frameable, listing my active organizations', async () => {
      const res = await person.agent.get(authorizePath(request(pkce()))).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(res.headers['content-security-policy']).toContain("default-src 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.text).toContain('Remote &lt;b&gt;tool&lt;/b&gt;');
      expect(res.text).not.toContain('<b>tool</b>');
      expect(res.text).toContain(`value="${orgA}"`);
      expect(res.text).toContain(`value="${orgB}"`);
      expect(res.text).not.toContain(orgC);
      expect(res.text).not.toContain(orgS);
      expect(res.text).toContain('action="' + `${api()}/oauth/authorize/decision"`);
    });

    it.each([
      ['PKCE missing', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
      ['PKCE plain', { code_challenge_method: 'plain' }, 'invalid_request'],
      ['PKCE method missing', { code_challenge_method: undefined }, 'invalid_request'],
      ['another response type', { response_type: 'token' }, 'unsupported_response_type'],
      ['another resource', { resource: 'https://evil.example/api' }, 'invalid_target'],
      ['another scope', { scope: 'svc admin' }, 'invalid_scope'],
    ])('%s: redirects back with error, state and iss', async (_what, change, error) => {
      const res = await person.agent.get(authorizePath(request(pkce(), change))).expect(302);
      const url = new URL(res.headers.location);
      expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
      expect(url.searchParams.get('error')).toBe(error);
      expect(url.searchParams.get('state')).toBe('st-123');
      expect(url.searchParams.get('iss')).toBe(APP);
    });

    it.each([
      ['an unknown client', { client_id: '00000000-0000-4000-8000-000000000000' }],
      ['no client', { client_id: undefined }],
      ['a different path', { redirect_uri: 'http://127.0.0.1:7777/other' }],
      ['an extra query', { redirect_uri: `${REDIRECT}?x=1` }],
      ['http off loopback', { redirect_uri: 'http://tool.example/cb' }],
      ['a fragment', { redirect_uri: `${REDIRECT}#f` }],
      ['another host', { redirect_uri: 'https://evil.example/cb' }],
    ])('%s: an HTML error page, never a redirect', async (_what, change) => {
      const res = await person.agent.get(authorizePath(request(pkce(), change))).expect(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['x-frame-options']).toBe('DENY');
    });

    it('a loopback IP redirect may use another port (RFC 8252)', async () => {
      await person.agent
        .get(authorizePath(request(pkce(), { redirect_uri: 'http://127.0.0.1:40123/callback' })))
        .expect(200);
    });
  });

  describe('POST /oauth/authorize/decision', () => {
    it('approve: 303 to the client with code, state and iss', async () => {
      const { requestId, csrf } = await consent(person.agent, request(pkce()));
      const res = await decide(person.agent, {
        request_id: requestId,
        csrf_token: csrf,
        organization_id: orgA,
        access: 'read',
        decision: 'approve',
      }).expect(303);
      const url = new URL(res.headers.location);
      expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
      expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(url.searchParams.get('state')).toBe('st-123');
      expect(url.searchParams.get('iss')).toBe(APP);
      // A request is decided once.
      const again = await decide(person.agent, {
        request_id: requestId,
        csrf_token: csrf,
        organization_id: orgA,
        access: 'read',
        decision: 'approve',
      }).expect(400);
      expect(again.headers.location).toBeUndefined();
    });

    it('deny: 303 with error=access_denied and the state', async () => {
      const { requestId, csrf } = await consent(person.agent, request(pkce()));
      const res = await decide(person.agent, { request_id: requestId, csrf_token: csrf, decision: 'deny' }).expect(303);
      const url = new URL(res.headers.location);
      expect(url.searchParams.get('error')).toBe('access_denied');
      expect(url.searchParams.get('state')).toBe('st-123');
      expect(url.searchParams.has('code')).toBe(false);
    });

    it('a wrong CSRF token, or one of another session, is refused and issues nothing', async () => {
      const { requestId, csrf } = await consent(person.agent, request(pkce()));
      const form = { request_id: requestId, organization_id: orgA, access: 'read', decision: 'approve' };
      const grants = async (): Promise<number> =>
        (await t.db.query(`SELECT 1 FROM oauth_grants WHERE user_id = $1`, [person.user.id])).length;
      const before = await grants();
      const wrong = await decide(person.agent, { ...form, csrf_token: 'x'.repeat(64) }).expect(403);
      expect(wrong.headers.location).toBeUndefined();
      expect(wrong.text).toContain('Request refused');
      // The same person in another browser session holds the right token but not the right session.
      const otherSession = await signIn(t, person.email);
      await decide(otherSession.agent, { ...form, csrf_token: csrf }).expect(403);
      expect(await grants()).toBe(before);
      // The request is still good for the session that saw it.
      await decide(person.agent, { ...form, csrf_token: csrf }).expect(303);
    });

    it('an organization that is not mine, or suspended, is refused', async () => {
      for (const org of [orgC, orgS]) {
        const { requestId, csrf } = await consent(person.agent, request(pkce()));
        const res = await decide(person.agent, {
          request_id: requestId,
          csrf_token: csrf,
          organization_id: org,
          access: 'read',
          decision: 'approve',
        }).expect(403);
        expect(res.headers.location).toBeUndefined();
      }
    });

    it('a learner cannot grant write access; read is fine', async () => {
      const { requestId, csrf } = await consent(person.agent, request(pkce()));
      const form = { request_id: requestId, csrf_token: csrf, organization_id: orgB, decision: 'approve' };
      const res = await decide(person.agent, { ...form, access: 'write' }).expect(403);
      expect(res.text).toContain('read-only');
      await decide(person.agent, { ...form, access: 'read' }).expect(303);
    });

    it('a bearer token cannot answer the consent', async () => {
      const { requestId, csrf } = await consent(person.agent, request(pkce()));
      const pat = await personalToken(t, person, orgA, 'write');
      await bearer(t, pat)
        .post('/api/v1/oauth/authorize/decision')
        .type('form')
        .send({ request_id: requestId, csrf_token: csrf, organization_id: orgA, access: 'read', decision: 'approve' })
        .expect(403);
    });
  });

  describe('POST /oauth/token', () => {
    beforeAll(async () => {
      current = await member();
    });

    it('exchanges a code for svc_oat_ / svc_ort_ tokens; only their hashes are stored', async () => {
      const p = pkce();
      const code = await authorizeCode(p);
      const res = await token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: p.verifier,
        resource: api(),
      }).expect(200);
      expect(res.body).toEqual({
        access_token: expect.stringMatching(/^svc_oat_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/),
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: expect.stringMatching(/^svc_ort_[A-Za-z0-9_-]{49}$/),
        scope: 'svc',
      });
      expect(res.headers['cache-control']).toBe('no-store');
      const [row] = await t.db.query(`SELECT * FROM oauth_access_tokens WHERE token_hash = $1`, [
        sha256(res.body.access_token),
      ]);
      expect(row).toMatchObject({ organization_id: orgA, access: 'write', resource: api() });
      expect(JSON.stringify(row)).not.toContain(res.body.access_token);
      expect(
        await t.db.query(`SELECT 1 FROM oauth_refresh_tokens WHERE token_hash = $1`, [sha256(res.body.refresh_token)]),
      ).toHaveLength(1);
      expect(await t.db.query(`SELECT 1 FROM oauth_codes WHERE code_hash = $1`, [sha256(code)])).toHaveLength(1);
    });

    const exchange = (p: Pkce, code: string, change: Record<string, string> = {}): ReturnType<typeof token> =>
      token({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: p.verifier,
        ...change,
      });

    it("codes and refresh tokens carry their grant's organization, and can carry no other", async () => {
      const p = pkce();
      const code = await authorizeCode(p);
      const res = await exchange(p, code).expect(200);
      const [codeRow] = await t.db.query(
        `SELECT c.organization_id, g.organization_id AS grant_org FROM oauth_codes c
         JOIN oauth_grants g ON g.id = c.grant_id WHERE c.code_hash = $1`,
        [sha256(code)],
      );
      expect(codeRow).toEqual({ organization_id: orgA, grant_org: orgA });
      const [refreshRow] = await t.db.query(`SELECT organization_id FROM oauth_refresh_tokens WHERE token_hash = $1`, [
        sha256(res.body.refresh_token),
      ]);
      expect(refreshRow).toEqual({ organization_id: orgA });
      for (const table of ['oauth_codes', 'oauth_refresh_tokens']) {
        await expect(
          t.db.query(`UPDATE ${table} SET organization_id = $1 WHERE organization_id = $2`, [orgB, orgA]),
        ).rejects.toMatchObject({ driverError: { code: '23503' } });
      }
    });

    it('a wrong verifier, another redirect URI or another client: invalid_grant', async () => {
      const changes: Record<string, string>[] = [
        { code_verifier: pkce().verifier },
        { redirect_uri: 'https://tool.example/cb' },
      ];
      for (const change of changes) {
        const p = pkce();
        const res = await exchange(p, await authorizeCode(p), change).expect(400);
        expect(res.body.error).toBe('invalid_grant');
      }
      const other = (await register({ redirect_uris: [REDIRECT] }).expect(201)).body.client_id;
      const p = pkce();
      const res = await exchange(p, await authorizeCode(p), { client_id: other }).expect(400);
      expect(res.body.error).toBe('invalid_grant');
    });

    it('a reused code is refused and revokes every token it produced', async () => {
      const p = pkce();
      const code = await authorizeCode(p);
      const first = await exchange(p, code).expect(200);
      await bearer(t, first.body.access_token).get('/api/v1/auth/credential').expect(200);
      const second = await exchange(p, code).expect(400);
      expect(second.body.error).toBe('invalid_grant');
      await bearer(t, first.body.access_token).get('/api/v1/auth/credential').expect(401);
      const refresh = await token({
        grant_type: 'refresh_token',
        refresh_token: first.body.refresh_token,
        client_id: clientId,
      }).expect(400);
      expect(refresh.body.error).toBe('invalid_grant');
    });

    it('a code expires after 60 seconds', async () => {
      const p = pkce();
      const code = await authorizeCode(p);
      t.clock.advance(61_000);
      const res = await exchange(p, code).expect(400);
      expect(res.body).toEqual({ error: 'invalid_grant', error_description: 'The code has expired.' });
    });

    it('protocol errors: unknown client (401), grant type, resource, scope, form encoding', async () => {
      const p = pkce();
      const code = await authorizeCode(p);
      const unknown = await exchange(p, code, { client_id: '00000000-0000-4000-8000-000000000000' }).expect(401);
      expect(unknown.body.error).toBe('invalid_client');
      expect((await exchange(p, code, { grant_type: 'client_credentials' }).expect(400)).body.error).toBe(
        'unsupported_grant_type',
      );
      expect((await exchange(p, code, { resource: 'https://evil.example' }).expect(400)).body.error).toBe(
        'invalid_target',
      );
      expect((await exchange(p, code, { scope: 'admin' }).expect(400)).body.error).toBe('invalid_scope');
      const json = await t
        .client()
        .post('/api/v1/oauth/token')
        .send({ grant_type: 'authorization_code', client_id: clientId })
        .expect(400);
      expect(json.body.error).toBe('invalid_request');
      const missing = await token({ grant_type: 'authorization_code', client_id: clientId }).expect(400);
      expect(missing.body.error).toBe('invalid_request');
    });

    it('refresh rotates; presenting a rotated-out refresh token revokes the whole grant', async () => {
      const first = await tokens();
      const rotated = await token({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: clientId,
      }).expect(200);
      expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
      expect(rotated.body.access_token).not.toBe(first.access_token);
      await bearer(t, rotated.body.access_token).get('/api/v1/auth/credential').expect(200);
      // The old one again: reuse.
      const reuse = await token({
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: clientId,
      }).expect(400);
      expect(reuse.body.error).toBe('invalid_grant');
      await bearer(t, rotated.body.access_token).get('/api/v1/auth/credential').expect(401);
      await bearer(t, first.access_token).get('/api/v1/auth/credential').expect(401);
      const latest = await token({
        grant_type: 'refresh_token',
        refresh_token: rotated.body.refresh_token,
        client_id: clientId,
      }).expect(400);
      expect(latest.body.error).toBe('invalid_grant');
    });

    it('of parallel refreshes with one token exactly one succeeds', async () => {
      const first = await tokens();
      const results = await Promise.all(
        Array.from({ length: 8 }, () =>
          token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: clientId }),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 400)).toHaveLength(7);
    });

    it('a refresh token of another client is refused', async () => {
      const first = await tokens();
      const other = (
        await register({ redirect_uris: [REDIRECT], grant_types: ['authorization_code', 'refresh_token'] }).expect(201)
      ).body.client_id;
      await token({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: other }).expect(400);
    });
  });

  describe('POST /oauth/revoke (RFC 7009)', () => {
    beforeAll(async () => {
      current = await member();
    });

    it('an access token: it stops working; the refresh token keeps working', async () => {
      const issued = await tokens();
      await t
        .client()
        .post('/api/v1/oauth/revoke')
        .type('form')
        .send({ token: issued.access_token, client_id: clientId })
        .expect(200);
      await bearer(t, issued.access_token).get('/api/v1/auth/credential').expect(401);
      await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token, client_id: clientId }).expect(
        200,
      );
    });

    it('a refresh token: the whole grant stops working', async () => {
      const issued = await tokens();
      await t.client().post('/api/v1/oauth/revoke').type('form').send({ token: issued.refresh_token }).expect(200);
      await bearer(t, issued.access_token).get('/api/v1/auth/credential').expect(401);
    });

    it('200 for unknown tokens; 400 invalid_request without a token', async () => {
      await t.client().post('/api/v1/oauth/revoke').type('form').send({ token: 'nonsense' }).expect(200);
      const res = await t.client().post('/api/v1/oauth/revoke').type('form').send({}).expect(400);
      expect(res.body.error).toBe('invalid_request');
    });
  });

  describe('the svc_oat_ credential', () => {
    beforeAll(async () => {
      current = await member();
    });

    it('/auth/credential reports oauth_token with the organization, role and access', async () => {
      const issued = await tokens(orgA, 'write');
      const res = await bearer(t, issued.access_token).get('/api/v1/auth/credential').expect(200);
      expect(res.body).toEqual({
        kind: 'oauth_token',
        user_id: current.user.id,
        organization_id: orgA,
        role: 'owner',
        access: 'write',
      });
    });

    it('acts in its organization only: another organization is 404 although the person is a member there', async () => {
      const issued = await tokens(orgA, 'write');
      await bearer(t, issued.access_token).get(`/api/v1/organizations/${orgA}`).expect(200);
      const res = await bearer(t, issued.access_token).get(`/api/v1/organizations/${orgB}`).expect(404);
      expect(res.body.error.code).toBe('not_found');
      await current.agent.get(`/api/v1/organizations/${orgB}`).expect(200);
    });

    it('read-only cannot write (credential_read_only); write can, with the role there', async () => {
      const read = await tokens(orgA, 'read');
      const refused = await bearer(t, read.access_token)
        .patch(`/api/v1/organizations/${orgA}`)
        .send({ name: 'Renamed' })
        .expect(403);
      expect(refused.body.error.code).toBe('credential_read_only');
      const write = await tokens(orgA, 'write');
      await bearer(t, write.access_token).patch(`/api/v1/organizations/${orgA}`).send({ name: 'Org A' }).expect(200);
      // In B the person is a learner: the token has that role.
      const learner = await tokens(orgB, 'read');
      const credential = await bearer(t, learner.access_token).get('/api/v1/auth/credential').expect(200);
      expect(credential.body).toMatchObject({ organization_id: orgB, role: 'student', access: 'read' });
    });

    it('expires after an hour', async () => {
      const issued = await tokens();
      t.clock.advance(3601_000);
      await bearer(t, issued.access_token).get('/api/v1/auth/credential').expect(401);
    });
  });

  describe('/me/integrations', () => {
    beforeAll(async () => {
      current = await member();
    });

    it('lists each grant and DELETE revokes its tokens at once', async () => {
      const issued = await tokens(orgA, 'read');
      const [grant] = await t.db.query(
        `SELECT g.id, g.created_at FROM oauth_grants g JOIN oauth_access_tokens a ON a.grant_id = g.id WHERE a.token_hash = $1`,
        [sha256(issued.access_token)],
      );
      const list = await current.agent.get('/api/v1/me/integrations').expect(200);
      expect(list.body.items).toContainEqual({
        id: grant.id,
        kind: 'oauth_client',
        name: 'Remote <b>tool</b>',
        shared_since: null,
        publishing_enabled: false,
        created_at: new Date(grant.created_at).toISOString(),
      });
      // Someone else cannot revoke it.
      const stranger = await signIn(t);
      await stranger.agent.delete(`/api/v1/me/integrations/${grant.id}`).expect(404);
      await bearer(t, issued.access_token).get('/api/v1/auth/credential').expect(200);
      await current.agent.delete(`/api/v1/me/integrations/${grant.id}`).expect(204);
      await bearer(t, issued.access_token).get('/api/v1/auth/credential').expect(401);
      const refresh = await token({
        grant_type: 'refresh_token',
        refresh_token: issued.refresh_token,
        client_id: clientId,
      }).expect(400);
      expect(refresh.body.error).toBe('invalid_grant');
      const after = await current.agent.get('/api/v1/me/integrations').expect(200);
      expect(after.body.items.map((i: { id: string }) => i.id)).not.toContain(grant.id);
      await current.agent.delete(`/api/v1/me/integrations/${grant.id}`).expect(404);
      await current.agent.delete('/api/v1/me/integrations/not-a-uuid').expect(404);
    });

    it('a new consent for the same application and organization replaces the previous grant', async () => {
      const before = await tokens(orgA, 'read');
      const after = await tokens(orgA, 'write');
      await bearer(t, before.access_token).get('/api/v1/auth/credential').expect(401);
      await bearer(t, after.access_token).get('/api/v1/auth/credential').expect(200);
    });

    it('leaving the organization revokes the tools connected to it, for good', async () => {
      const leaver = await member();
      const issued = await tokens(orgB, 'read', leaver);
      await bearer(t, issued.access_token).get(`/api/v1/organizations/${orgB}`).expect(200);
      await leaver.agent.delete(`/api/v1/organizations/${orgB}/members/${leaver.user.id}`).expect(204);
      await bearer(t, issued.access_token).get('/api/v1/auth/credential').expect(401);
      const refresh = await token({
        grant_type: 'refresh_token',
        refresh_token: issued.refresh_token,
        client_id: clientId,
      }).expect(400);
      expect(refresh.body.error).toBe('invalid_grant');
      await addMember(t, orgB, leaver.user.id, 'student');
      await bearer(t, issued.access_token).get(`/api/v1/organizations/${orgB}`).expect(401);
      // Grants of other organizations are untouched.
      const kept = await tokens(orgA, 'read', leaver);
      await bearer(t, kept.access_token).get(`/api/v1/organizations/${orgA}`).expect(200);
    });
  });

  describe('CORS for third-party tools', () => {
    it('the token, registration and revocation endpoints and the discovery documents answer any origin, without credentials', async () => {
      for (const path of ['/api/v1/oauth/token', '/api/v1/oauth/register', '/api/v1/oauth/revoke']) {
        const res = await t
          .http()
          .options(path)
          .set('Origin', 'https://tool.example')
          .set('Access-Control-Request-Method', 'POST');
        expect(res.status).toBe(204);
        expect(res.headers['access-control-allow-origin']).toBe('*');
        expect(res.headers['access-control-allow-credentials']).toBeUndefined();
      }
      const meta = await t
        .http()
        .get('/.well-known/oauth-authorization-server')
        .set('Origin', 'https://tool.example')
        .expect(200);
      expect(meta.headers['access-control-allow-origin']).toBe('*');
    });

    it('the rest of the API keeps its allow-list', async () => {
      const res = await t
        .http()
        .options('/api/v1/oauth/authorize/decision')
        .set('Origin', 'https://tool.example')
        .set('Access-Control-Request-Method', 'POST');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    });
  });
});
