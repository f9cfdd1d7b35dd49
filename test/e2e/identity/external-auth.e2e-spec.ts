import { createHash } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import { CryptoService } from '@/core/crypto/crypto.service';
import { setCookies, signIn, totp } from '../../support/auth';
import { CraftedOidcPeer, TestOpenIdProvider } from '../../support/oidc-provider';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const TENANT = '7d4c0f5e-3f1a-4a6b-9c2d-1e2f3a4b5c6d';
const WEB = 'http://web.test';
const MINUTE = 60_000;

/**
 * Sign-in with Google and Microsoft (interface-v1 4.2, extensions "External sign-in"). Google is a real OpenID
 * provider (oidc-provider) on loopback; Microsoft is a hand-rolled peer that can sign the broken ID tokens a
 * compliant provider never would. Every callback is a redirect whose Location is read.
 */
describe('External providers (Google, Microsoft)', () => {
  let t: TestApp;
  let google: TestOpenIdProvider;
  let microsoft: CraftedOidcPeer;
  let accounts = 0;

  beforeAll(async () => {
    google = await TestOpenIdProvider.start();
    microsoft = await CraftedOidcPeer.start(`/${TENANT}/v2.0`);
    t = await createTestApp({
      env: {
        GOOGLE_CLIENT_ID: 'google-client',
        GOOGLE_CLIENT_SECRET: 'google-secret',
        GOOGLE_ISSUER: google.issuer,
        MICROSOFT_CLIENT_ID: microsoft.clientId,
        MICROSOFT_CLIENT_SECRET: microsoft.clientSecret,
        MICROSOFT_TENANT: TENANT,
        MICROSOFT_ISSUER: microsoft.issuer,
      },
    });
    await google.configure([
      {
        client_id: 'google-client',
        client_secret: 'google-secret',
        redirect_uris: [`${t.baseUrl}/api/v1/auth/oauth/google/callback`],
      },
    ]);
  });
  afterAll(async () => {
    await t.close();
    await google.stop();
    await microsoft.stop();
  });
  afterEach(() => {
    t.clock.reset();
    microsoft.tamper = {};
  });

  /** A Google account at the test provider; returns its id (the `sub`). */
  function googleAccount(claims: { email: string; email_verified?: boolean; hd?: string }): string {
    const id = `g-${++accounts}`;
    google.accounts.set(id, { email_verified: true, ...claims });
    return id;
  }

  async function start(agent: TestAgent, provider: string): Promise<{ url: URL; state: string }> {
    const res = await agent.get(`/api/v1/auth/oauth/${provider}/start`).expect(302);
    const url = new URL(res.headers.location);
    return { url, state: url.searchParams.get('state')! };
  }

  /** Follows the provider's redirect back into the service with this browser; returns the service's answer. */
  async function back(
    agent: TestAgent,
    returnUrl: string,
  ): Promise<{ location: string; res: Awaited<ReturnType<TestAgent['get']>> }> {
    const url = new URL(returnUrl);
    expect(url.origin).toBe(t.baseUrl);
    const res = await agent.get(`${url.pathname}${url.search}`).expect(302);
    return { location: res.headers.location, res };
  }

  async function googleSignIn(
    agent: TestAgent,
    accountId: string,
  ): Promise<{ location: string; res: Awaited<ReturnType<TestAgent['get']>> }> {
    const { url } = await start(agent, 'google');
    return back(agent, await google.signIn(url.href, accountId));
  }

  async function microsoftSignIn(agent: TestAgent, claims: Record<string, unknown>): Promise<string> {
    microsoft.claims = claims;
    const { url } = await start(agent, 'microsoft');
    return (await back(agent, await microsoft.signIn(url.href))).location;
  }

  const me = async (agent: TestAgent): Promise<{ id: string; email: string }> =>
    (await agent.get('/api/v1/auth/me').expect(200)).body;

  describe('GET /auth/providers', () => {
    it('lists the email code and each configured provider', async () => {
      await t
        .http()
        .get('/api/v1/auth/providers')
        .expect(200, { methods: ['email_code', 'google', 'microsoft'] });
    });
  });

  describe('GET /auth/oauth/{provider}/start', () => {
    it('redirects to the authorization endpoint with client_id, redirect_uri, scope, state, nonce and PKCE S256', async () => {
      const agent = t.client();
      const res = await agent.get('/api/v1/auth/oauth/google/start').expect(302);
      const url = new URL(res.headers.location);
      expect(`${url.origin}${url.pathname}`).toBe(`${google.issuer}/auth`);
      const q = Object.fromEntries(url.searchParams);
      expect(q).toEqual({
        client_id: 'google-client',
        response_type: 'code',
        redirect_uri: `${t.baseUrl}/api/v1/auth/oauth/google/callback`,
        scope: 'openid email profile',
        state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge_method: 'S256',
      });
      expect(res.headers['cache-control']).toBe('no-store');

      const cookie = setCookies(res).get('svc_oauth_state')!;
      expect(cookie.value).toBe(q.state);
      expect(cookie.attributes).toMatchObject({
        httponly: true,
        samesite: 'Lax',
        path: '/api/v1/auth',
        'max-age': '600',
      });

      // Only the state's SHA-256 is stored; the PKCE verifier is encrypted and matches the challenge.
      const rows = await t.db.query(`SELECT * FROM sign_in_states WHERE state_hash = $1`, [
        createHash('sha256').update(q.state).digest('hex'),
      ]);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows[0])).not.toContain(q.state);
      expect(rows[0]).toMatchObject({ kind: 'provider', provider: 'google', nonce: q.nonce, used_at: null });
      expect(rows[0].code_verifier_encrypted).toMatch(/^v1\./);
      const verifier = t.app.get(CryptoService).decrypt(rows[0].code_verifier_encrypted);
      expect(createHash('sha256').update(verifier).digest('base64url')).toBe(q.code_challenge);
    });

    it('400 unknown_provider for a provider that does not exist', async () => {
      const res = await t.client().get('/api/v1/auth/oauth/github/start').expect(400);
      expect(res.body.error.code).toBe('unknown_provider');
    });

    it('429 with Retry-After past 20 starts a minute from one address', async () => {
      const agent = t.client();
      for (let i = 0; i < 20; i++) await agent.get('/api/v1/auth/oauth/microsoft/start').expect(302);
      const res = await agent.get('/api/v1/auth/oauth/microsoft/start').expect(429);
      expect(res.body.error.code).toBe('too_many_requests');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('GET /auth/oauth/{provider}/callback: success', () => {
    it('creates the account, opens the session, links the identity and clears the state cookie', async () => {
      const email = t.nextEmail('google-new');
      const agent = t.client();
      const { location, res } = await googleSignIn(agent, googleAccount({ email }));
      expect(location).toBe(`${WEB}/dashboard`);
      const cookies = setCookies(res);
      expect([...cookies.keys()]).toEqual(expect.arrayContaining(['access_token', 'refresh_token', 'svc_session']));
      expect(cookies.get('svc_oauth_state')?.attributes['max-age']).toBe('0');
      const user = await me(agent);
      expect(user.email).toBe(email);
      const links = await t.db.query(`SELECT issuer, provider FROM external_identities WHERE user_id = $1`, [user.id]);
      expect(links).toEqual([{ issuer: google.issuer, provider: 'google' }]);
    });

    it('enters the existing account of the verified email and links it, without a duplicate', async () => {
      const existing = await signIn(t, t.nextEmail('google-existing'));
      const agent = t.client();
      expect((await googleSignIn(agent, googleAccount({ email: existing.email }))).location).toBe(`${WEB}/dashboard`);
      expect((await me(agent)).id).toBe(existing.user.id);
      expect(await t.db.query(`SELECT id FROM users WHERE email = $1`, [existing.email])).toHaveLength(1);
      expect(await t.db.query(`SELECT 1 FROM external_identities WHERE user_id = $1`, [existing.user.id])).toHaveLength(
        1,
      );
    });

    it('the linked identity wins over the email after the address changes at the provider', async () => {
      const first = t.nextEmail('linked');
      const id = googleAccount({ email: first });
      const agent = t.client();
      await googleSignIn(agent, id);
      const owner = await me(agent);
      // The provider account now carries the address of another person's account.
      const other = await signIn(t, t.nextEmail('someone-else'));
      google.accounts.set(id, { email: other.email, email_verified: true });
      const again = t.client();
      expect((await googleSignIn(again, id)).location).toBe(`${WEB}/dashboard`);
      expect((await me(again)).id).toBe(owner.id);
    });

    it('two first sign-ins of the same new address at once end on one account', async () => {
      const email = t.nextEmail('race');
      const id = googleAccount({ email });
      const [a, b] = [t.client(), t.client()];
      const urls = await Promise.all(
        [a, b].map(async (agent) => google.signIn((await start(agent, 'google')).url.href, id)),
      );
      const results = await Promise.all([back(a, urls[0]), back(b, urls[1])]);
      expect(results.map((r) => r.location)).toEqual([`${WEB}/dashboard`, `${WEB}/dashboard`]);
      expect((await me(a)).id).toBe((await me(b)).id);
      expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toHaveLength(1);
      expect(await t.db.query(`SELECT 1 FROM external_identities WHERE subject = $1`, [id])).toHaveLength(1);
    });

    it('an account with two-factor goes to /login/two-factor with the challenge cookie and no session', async () => {
      const person = await signIn(t, t.nextEmail('google-2fa'));
      const setup = await person.agent.post('/api/v1/me/two-factor/setup').expect(200);
      await person.agent
        .post('/api/v1/me/two-factor/enable')
        .send({ code: totp(t, setup.body.secret) })
        .expect(200);
      const agent = t.client();
      const { location, res } = await googleSignIn(agent, googleAccount({ email: person.email }));
      expect(location).toBe(`${WEB}/login/two-factor`);
      const cookies = setCookies(res);
      expect(cookies.get('svc_2fa')?.attributes).toMatchObject({ httponly: true, path: '/api/v1/auth' });
      expect(cookies.has('access_token')).toBe(false);
      await agent.get('/api/v1/auth/me').expect(401);
      // The challenge completes the sign-in.
      await agent
        .post('/api/v1/auth/two-factor/verify')
        .send({ code: totp(t, setup.body.secret, 1) })
        .expect(200);
      expect((await me(agent)).id).toBe(person.user.id);
    });

    it('Microsoft: a token of the configured tenant; xms_edov stands for email_verified', async () => {
      const email = t.nextEmail('ms');
      const location = await microsoftSignIn(t.client(), { sub: 'ms-1', email, tid: TENANT, xms_edov: true });
      expect(location).toBe(`${WEB}/dashboard`);
      // The service sent a PKCE verifier the peer checked against the challenge.
      expect(microsoft.verifiers[microsoft.verifiers.length - 1]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });
  });

  describe('GET /auth/oauth/{provider}/callback: state', () => {
    const invalidState = `${WEB}/login?error=oauth_invalid_state`;

    it('without a state, or without the cookie', async () => {
      const agent = t.client();
      const { url } = await start(agent, 'google');
      const returned = new URL(await google.signIn(url.href, googleAccount({ email: t.nextEmail('nostate') })));
      const code = returned.searchParams.get('code')!;
      expect((await back(agent, `${t.baseUrl}${returned.pathname}?code=${code}`)).location).toBe(invalidState);
      // Another browser (no cookie at all) with the whole return URL.
      expect((await back(t.client(), returned.href)).location).toBe(invalidState);
    });

    it('from another browser whose cookie belongs to another start; the first browser can still finish', async () => {
      const [a, b] = [t.client(), t.client()];
      const startA = await start(a, 'google');
      await start(b, 'google');
      const returned = await google.signIn(startA.url.href, googleAccount({ email: t.nextEmail('swap') }));
      expect((await back(b, returned)).location).toBe(invalidState);
      expect((await back(a, returned)).location).toBe(`${WEB}/dashboard`);
    });

    it('reused: a state works once', async () => {
      const agent = t.client();
      const { url, state } = await start(agent, 'google');
      const returned = await google.signIn(url.href, googleAccount({ email: t.nextEmail('reuse') }));
      expect((await back(agent, returned)).location).toBe(`${WEB}/dashboard`);
      const replay = new URL(returned);
      const res = await t
        .client()
        .get(`${replay.pathname}${replay.search}`)
        .set('Cookie', `svc_oauth_state=${state}`)
        .expect(302);
      expect(res.headers.location).toBe(invalidState);
    });

    it('expired: ten minutes after the start', async () => {
      const agent = t.client();
      const { url } = await start(agent, 'microsoft');
      microsoft.claims = { sub: 'ms-late', email: t.nextEmail('late'), email_verified: true, tid: TENANT };
      const returned = await microsoft.signIn(url.href);
      t.clock.advance(10 * MINUTE + 1000);
      expect((await back(agent, returned)).location).toBe(invalidState);
    });

    it('a state of the other provider is refused', async () => {
      const agent = t.client();
      const { url } = await start(agent, 'google');
      const returned = new URL(await google.signIn(url.href, googleAccount({ email: t.nextEmail('cross') })));
      const res = await agent.get(`/api/v1/auth/oauth/microsoft/callback${returned.search}`).expect(302);
      expect(res.headers.location).toBe(invalidState);
    });

    it('over-long parameters are a redirect, never a 422', async () => {
      const agent = t.client();
      const { state } = await start(agent, 'google');
      const res = await agent
        .get(`/api/v1/auth/oauth/google/callback?state=${state}&code=${'c'.repeat(4097)}`)
        .expect(302);
      expect(res.headers.location).toBe(`${WEB}/login?error=oauth_invalid_request`);
      const long = await agent.get(`/api/v1/auth/oauth/google/callback?state=${'s'.repeat(513)}`).expect(302);
      expect(long.headers.location).toBe(invalidState);
    });

    it('an unknown provider in the callback', async () => {
      const res = await t.client().get('/api/v1/auth/oauth/github/callback?code=x&state=y').expect(302);
      expect(res.headers.location).toBe(`${WEB}/login?error=unknown_provider`);
    });
  });

  describe('GET /auth/oauth/{provider}/callback: provider answers', () => {
    it('the provider sent error: oauth_provider_error', async () => {
      const agent = t.client();
      const { url } = await start(agent, 'google');
      const returned = await google.signIn(url.href, 'unused', { deny: true });
      expect(new URL(returned).searchParams.get('error')).toBe('access_denied');
      expect((await back(agent, returned)).location).toBe(`${WEB}/login?error=oauth_provider_error`);
    });

    it('the token endpoint refuses the code: oauth_exchange_failed', async () => {
      microsoft.tamper = { tokenError: 'invalid_grant' };
      const location = await microsoftSignIn(t.client(), {
        sub: 'ms-x',
        email: t.nextEmail('x'),
        email_verified: true,
        tid: TENANT,
      });
      expect(location).toBe(`${WEB}/login?error=oauth_exchange_failed`);
    });

    it.each([
      ['a wrong nonce', { nonce: 'not-the-nonce' }],
      ['another audience', { aud: 'someone-else' }],
      ['another issuer', { iss: 'http://127.0.0.1:1/evil' }],
      ['an expired token', { expired: true }],
      ['a signature by a key the provider does not publish', { rogueKey: true }],
    ])('an ID token with %s: oauth_invalid_token, no account', async (_what, tamper) => {
      microsoft.tamper = tamper;
      const email = t.nextEmail('tampered');
      const location = await microsoftSignIn(t.client(), {
        sub: `ms-${email}`,
        email,
        email_verified: true,
        tid: TENANT,
      });
      expect(location).toBe(`${WEB}/login?error=oauth_invalid_token`);
      expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toHaveLength(0);
    });

    it('Microsoft: a token of another tenant is refused', async () => {
      const email = t.nextEmail('tenant');
      const location = await microsoftSignIn(t.client(), {
        sub: 'ms-other-tenant',
        email,
        email_verified: true,
        tid: '00000000-0000-4000-8000-000000000000',
      });
      expect(location).toBe(`${WEB}/login?error=oauth_invalid_token`);
    });

    it('an unverified email: oauth_email_unverified (Google email_verified false; Microsoft without either claim)', async () => {
      const agent = t.client();
      const email = t.nextEmail('unverified');
      expect((await googleSignIn(agent, googleAccount({ email, email_verified: false }))).location).toBe(
        `${WEB}/login?error=oauth_email_unverified`,
      );
      const ms = await microsoftSignIn(t.client(), { sub: 'ms-unverified', email, tid: TENANT });
      expect(ms).toBe(`${WEB}/login?error=oauth_email_unverified`);
      expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toHaveLength(0);
    });
  });

  describe('a domain verified by an organization', () => {
    let domain: string;
    let owner: Awaited<ReturnType<typeof adult>>;
    let orgId: string;

    beforeAll(async () => {
      domain = `uni-${t.suffix}.example`;
      owner = await adult(t, `owner@${domain}`);
      orgId = await createOrganization(t, owner, 'Enforcing University');
      await t.db.query(
        `INSERT INTO sso_domains (organization_id, domain, status, verification_token, enforced, verified_at)
         VALUES ($1, $2, 'verified', 'tok', false, now())`,
        [orgId, domain],
      );
    });

    it('Google: an account outside the Workspace (no hd) cannot use an address of the domain', async () => {
      const location = (await googleSignIn(t.client(), googleAccount({ email: `consumer@${domain}` }))).location;
      expect(location).toBe(`${WEB}/login?error=oauth_email_unverified`);
      const other = (await googleSignIn(t.client(), googleAccount({ email: `x@${domain}`, hd: 'elsewhere.example' })))
        .location;
      expect(other).toBe(`${WEB}/login?error=oauth_email_unverified`);
      const member = (await googleSignIn(t.client(), googleAccount({ email: `staff@${domain}`, hd: domain }))).location;
      expect(member).toBe(`${WEB}/dashboard`);
    });

    it('enforced: sso_required for the domain, except owners of the organization', async () => {
      await t.db.query(`UPDATE sso_domains SET enforced = true WHERE domain = $1`, [domain]);
      const student = t.nextEmail('student').replace(/@.*/, `@${domain}`);
      expect((await googleSignIn(t.client(), googleAccount({ email: student, hd: domain }))).location).toBe(
        `${WEB}/login?error=sso_required`,
      );
      expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [student])).toHaveLength(0);
      const ms = await microsoftSignIn(t.client(), {
        sub: 'ms-enforced',
        email: student,
        email_verified: true,
        tid: TENANT,
      });
      expect(ms).toBe(`${WEB}/login?error=sso_required`);
      // The owner keeps a way in.
      const agent = t.client();
      expect((await googleSignIn(agent, googleAccount({ email: owner.email, hd: domain }))).location).toBe(
        `${WEB}/dashboard`,
      );
      expect((await me(agent)).id).toBe(owner.user.id);
    });
  });
});

describe('External providers not configured', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('lists only the email code', async () => {
    await t
      .http()
      .get('/api/v1/auth/providers')
      .expect(200, { methods: ['email_code'] });
  });

  it.each(['google', 'microsoft'])('503 oauth_not_configured for %s, and its callback redirects', async (provider) => {
    const res = await t.client().get(`/api/v1/auth/oauth/${provider}/start`).expect(503);
    expect(res.body.error.code).toBe('oauth_not_configured');
    const back = await t.client().get(`/api/v1/auth/oauth/${provider}/callback?code=x&state=y`).expect(302);
    expect(back.headers.location).toBe('http://web.test/login?error=oauth_not_configured');
  });
});
