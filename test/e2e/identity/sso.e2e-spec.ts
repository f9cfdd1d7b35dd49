import { createServer, type AddressInfo, type Server } from 'node:net';
import type TestAgent from 'supertest/lib/agent';
import { CryptoService } from '@/core/crypto/crypto.service';
import { requestSignInCode, setCookies, signIn, type SignedIn, stepUpByEmail, totp } from '../../support/auth';
import { TestDnsServer } from '../../support/dns-server';
import { privateInterfaceAddress } from '../../support/net';
import { CraftedOidcPeer, TestOpenIdProvider } from '../../support/oidc-provider';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const WEB = 'http://web.test';
const TENANT = '0f0e0d0c-0b0a-4908-8706-050403020100';

/**
 * Institutional SSO (interface-v1 4.2 "SSO callback steps", extensions "External sign-in and institutional SSO"):
 * administration with step-up, DNS TXT domain verification against a DNS server on loopback, discovery, start,
 * the callback step by step against a real OpenID provider (and a hand-rolled one for broken tokens), connection
 * tests, and enforcement over email-code sign-in.
 */
describe('Institutional SSO', () => {
  let t: TestApp;
  let dns: TestDnsServer;
  let institution: TestOpenIdProvider;
  let crafted: CraftedOidcPeer;
  let tenantPeer: CraftedOidcPeer;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let orgId: string;
  let domain: string;
  let connectionId: string;
  let accounts = 0;

  const base = (): string => `/api/v1/organizations/${orgId}/sso`;

  async function addConnection(
    as: SignedIn,
    org: string,
    body: Partial<{ name: string; issuer: string; client_id: string; client_secret: string; enabled: boolean }>,
  ): Promise<string> {
    const res = await as.agent
      .post(`/api/v1/organizations/${org}/sso/connections`)
      .send({ name: 'Conn', issuer: institution.issuer, client_id: 'uni-client', client_secret: 'uni-secret', ...body })
      .expect(201);
    return res.body.id as string;
  }

  function account(claims: { email: string; email_verified?: boolean }): string {
    const id = `inst-${++accounts}`;
    institution.accounts.set(id, { email_verified: true, ...claims });
    return id;
  }

  async function startSso(agent: TestAgent, connection = connectionId, query = ''): Promise<URL> {
    const res = await agent.get(`/api/v1/auth/sso/${connection}/start${query}`).expect(302);
    return new URL(res.headers.location);
  }

  async function back(
    agent: TestAgent,
    returnUrl: string,
  ): Promise<{ location: string; res: Awaited<ReturnType<TestAgent['get']>> }> {
    const url = new URL(returnUrl);
    expect(`${url.origin}${url.pathname}`).toBe(`${t.baseUrl}/api/v1/auth/sso/callback`);
    const res = await agent.get(`${url.pathname}${url.search}`).expect(302);
    return { location: res.headers.location, res };
  }

  async function ssoSignIn(
    agent: TestAgent,
    accountId: string,
    connection = connectionId,
  ): Promise<{ location: string; res: Awaited<ReturnType<TestAgent['get']>> }> {
    return back(agent, await institution.signIn((await startSso(agent, connection)).href, accountId));
  }

  beforeAll(async () => {
    dns = new TestDnsServer();
    await dns.start();
    institution = await TestOpenIdProvider.start();
    crafted = await CraftedOidcPeer.start();
    tenantPeer = await CraftedOidcPeer.start(`/${TENANT}/v2.0`);
    t = await createTestApp({ env: { DNS_RESOLVER: dns.address } });
    await institution.configure([
      {
        client_id: 'uni-client',
        client_secret: 'uni-secret',
        redirect_uris: [`${t.baseUrl}/api/v1/auth/sso/callback`],
      },
    ]);
    domain = `uni-${t.suffix}.example`;
    owner = await adult(t, `owner@${domain}`);
    orgId = await createOrganization(t, owner, 'SSO University');
    admin = await adult(t);
    teacher = await adult(t);
    await addMember(t, orgId, admin.user.id, 'admin');
    await addMember(t, orgId, teacher.user.id, 'teacher');
    await stepUpByEmail(t, owner);
    await stepUpByEmail(t, admin);
  });
  afterAll(async () => {
    await t.close();
    await institution.stop();
    await crafted.stop();
    await tenantPeer.stop();
    await dns.stop();
  });
  afterEach(() => {
    t.clock.reset();
    crafted.tamper = {};
  });

  describe('connections', () => {
    it('need a recent step-up to change', async () => {
      const fresh = await adult(t);
      await addMember(t, orgId, fresh.user.id, 'admin');
      const res = await fresh.agent
        .post(`${base()}/connections`)
        .send({ name: 'X', issuer: institution.issuer, client_id: 'a', client_secret: 'b' })
        .expect(403);
      expect(res.body.error.code).toBe('step_up_required');
      // Reading needs none.
      await fresh.agent.get(`${base()}/connections`).expect(200);
    });

    it('create: 201 without the secret, stored encrypted, audited', async () => {
      const res = await owner.agent
        .post(`${base()}/connections`)
        .send({
          name: 'University login',
          issuer: `${institution.issuer}/`,
          client_id: 'uni-client',
          client_secret: 'uni-secret',
        })
        .expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        name: 'University login',
        issuer: institution.issuer,
        client_id: 'uni-client',
        enabled: true,
        created_at: expect.any(String),
      });
      connectionId = res.body.id;
      const [row] = await t.db.query(`SELECT client_secret_encrypted FROM sso_connections WHERE id = $1`, [
        connectionId,
      ]);
      expect(row.client_secret_encrypted).toMatch(/^v1\./);
      expect(row.client_secret_encrypted).not.toContain('uni-secret');
      expect(t.app.get(CryptoService).decrypt(row.client_secret_encrypted)).toBe('uni-secret');
      const audit = await t.db.query(
        `SELECT actor_id, target_id, metadata FROM audit_log WHERE organization_id = $1 AND action = 'sso.connection_created'`,
        [orgId],
      );
      expect(audit).toEqual([{ actor_id: owner.user.id, target_id: connectionId, metadata: { enabled: true } }]);
    });

    it('list and update never return the secret; the change is audited by field name only', async () => {
      const list = await admin.agent.get(`${base()}/connections`).expect(200);
      expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0, items: [{ id: connectionId }] });
      expect(JSON.stringify(list.body)).not.toContain('secret');
      const patched = await admin.agent
        .patch(`${base()}/connections/${connectionId}`)
        .send({ name: 'Renamed', client_secret: 'uni-secret' })
        .expect(200);
      expect(patched.body).toMatchObject({ id: connectionId, name: 'Renamed' });
      expect(JSON.stringify(patched.body)).not.toContain('secret');
      const [audit] = await t.db.query(
        `SELECT metadata FROM audit_log WHERE organization_id = $1 AND action = 'sso.connection_updated'`,
        [orgId],
      );
      expect(audit.metadata).toEqual({ fields: ['name', 'client_secret'] });
    });

    it('refuses plain-http issuers off loopback and multi-tenant Microsoft issuers (422)', async () => {
      for (const issuer of [
        'http://idp.example.org',
        'https://login.microsoftonline.com/common/v2.0',
        'ftp://x.example',
      ]) {
        const res = await owner.agent
          .post(`${base()}/connections`)
          .send({ name: 'Bad', issuer, client_id: 'a', client_secret: 'b' })
          .expect(422);
        expect(res.body.error.details[0].field).toBe('issuer');
      }
    });

    it("teachers cannot see them; another organization's connection is 404; delete is 204 and audited", async () => {
      const denied = await teacher.agent.get(`${base()}/connections`).expect(403);
      expect(denied.body.error.code).toBe('forbidden');
      const otherOwner = await adult(t);
      const otherOrg = await createOrganization(t, otherOwner, 'Other');
      await stepUpByEmail(t, otherOwner);
      const foreign = await addConnection(otherOwner, otherOrg, {});
      await owner.agent.patch(`${base()}/connections/${foreign}`).send({ name: 'Mine' }).expect(404);
      await owner.agent.delete(`${base()}/connections/${foreign}`).expect(404);
      const doomed = await addConnection(owner, orgId, { name: 'Doomed' });
      await owner.agent.delete(`${base()}/connections/${doomed}`).expect(204);
      await owner.agent.patch(`${base()}/connections/${doomed}`).send({ name: 'Gone' }).expect(404);
      expect(
        await t.db.query(`SELECT 1 FROM audit_log WHERE action = 'sso.connection_deleted' AND target_id = $1`, [
          doomed,
        ]),
      ).toHaveLength(1);
    });
  });

  describe('domains', () => {
    let domainId: string;

    it('claim: 201 pending with the TXT record to publish', async () => {
      const res = await owner.agent.post(`${base()}/domains`).send({ domain: domain.toUpperCase() }).expect(201);
      expect(res.body).toEqual({
        id: expect.any(String),
        domain,
        status: 'pending',
        verification: {
          type: 'dns_txt',
          name: `_lp-sso.${domain}`,
          value: expect.stringMatching(/^lp-sso-verification=/),
        },
        enforced: false,
        verified_at: null,
        created_at: expect.any(String),
      });
      domainId = res.body.id;
      await owner.agent.post(`${base()}/domains`).send({ domain: 'not a domain' }).expect(422);
      const again = await owner.agent.post(`${base()}/domains`).send({ domain }).expect(409);
      expect(again.body.error.code).toBe('domain_already_added');
    });

    it('only verified domains can be enforced', async () => {
      const res = await owner.agent.patch(`${base()}/domains/${domainId}`).send({ enforced: true }).expect(409);
      expect(res.body.error.code).toBe('domain_not_verified');
    });

    it('verify: 409 domain_not_verified while the TXT record is missing or wrong (asked of the loopback DNS)', async () => {
      const name = `_lp-sso.${domain}`;
      const before = dns.queries.length;
      const missing = await owner.agent.post(`${base()}/domains/${domainId}/verify`).expect(409);
      expect(missing.body.error.code).toBe('domain_not_verified');
      expect(dns.queries.slice(before)).toContain(name);
      dns.setTxt(name, 'lp-sso-verification=somebody-else');
      await owner.agent.post(`${base()}/domains/${domainId}/verify`).expect(409);
    });

    it('verify: 200 verified once the record is published; audited', async () => {
      const [row] = await t.db.query(`SELECT verification_token FROM sso_domains WHERE id = $1`, [domainId]);
      dns.setTxt(`_lp-sso.${domain}`, 'v=spf1 -all', `lp-sso-verification=${row.verification_token}`);
      const res = await owner.agent.post(`${base()}/domains/${domainId}/verify`).expect(200);
      expect(res.body).toMatchObject({ id: domainId, status: 'verified', verified_at: expect.any(String) });
      expect(
        await t.db.query(`SELECT 1 FROM audit_log WHERE action = 'sso.domain_verified' AND target_id = $1`, [domainId]),
      ).toHaveLength(1);
    });

    it('a domain is verified by one organization at most: domain_taken', async () => {
      const rival = await adult(t);
      const rivalOrg = await createOrganization(t, rival, 'Rival');
      await stepUpByEmail(t, rival);
      const taken = await rival.agent
        .post(`/api/v1/organizations/${rivalOrg}/sso/domains`)
        .send({ domain })
        .expect(409);
      expect(taken.body.error.code).toBe('domain_taken');

      // Claimed by both while pending: the first to verify wins; the other gets domain_taken on verify and enforce.
      const contested = `contested-${t.suffix}.example`;
      const mine = await owner.agent.post(`${base()}/domains`).send({ domain: contested }).expect(201);
      const theirs = await rival.agent
        .post(`/api/v1/organizations/${rivalOrg}/sso/domains`)
        .send({ domain: contested })
        .expect(201);
      dns.setTxt(mine.body.verification.name, mine.body.verification.value, theirs.body.verification.value);
      await owner.agent.post(`${base()}/domains/${mine.body.id}/verify`).expect(200);
      const verify = await rival.agent
        .post(`/api/v1/organizations/${rivalOrg}/sso/domains/${theirs.body.id}/verify`)
        .expect(409);
      expect(verify.body.error.code).toBe('domain_taken');
      const enforce = await rival.agent
        .patch(`/api/v1/organizations/${rivalOrg}/sso/domains/${theirs.body.id}`)
        .send({ enforced: true })
        .expect(409);
      expect(enforce.body.error.code).toBe('domain_taken');
      await owner.agent.delete(`${base()}/domains/${mine.body.id}`).expect(204);
    });

    it('lists the domains as a page', async () => {
      const res = await admin.agent.get(`${base()}/domains`).expect(200);
      expect(res.body.items.map((d: { domain: string }) => d.domain)).toContain(domain);
    });
  });

  describe('POST /auth/sso/discover', () => {
    it('offers SSO for an address of a verified domain with an enabled connection', async () => {
      const res = await t
        .client()
        .post('/api/v1/auth/sso/discover')
        .send({ email: `Someone@${domain.toUpperCase()}` })
        .expect(200);
      expect(res.body).toEqual({
        sso: true,
        connection_id: connectionId,
        organization_name: 'SSO University',
        enforced: false,
      });
    });

    it('does not for other addresses, and not when the connection is disabled', async () => {
      const none = { sso: false, connection_id: null, organization_name: null, enforced: false };
      await t.client().post('/api/v1/auth/sso/discover').send({ email: 'x@nowhere.example' }).expect(200, none);
      await owner.agent.patch(`${base()}/connections/${connectionId}`).send({ enabled: false }).expect(200);
      await t
        .client()
        .post('/api/v1/auth/sso/discover')
        .send({ email: `x@${domain}` })
        .expect(200, none);
      await owner.agent.patch(`${base()}/connections/${connectionId}`).send({ enabled: true }).expect(200);
      await t.client().post('/api/v1/auth/sso/discover').send({ email: 'not-an-email' }).expect(422);
    });
  });

  describe('GET /auth/sso/{connection_id}/start', () => {
    it('redirects to the identity provider with PKCE, state, nonce and the login hint; binds the state to the browser', async () => {
      const agent = t.client();
      const res = await agent.get(`/api/v1/auth/sso/${connectionId}/start?login_hint=ana@${domain}`).expect(302);
      const url = new URL(res.headers.location);
      expect(`${url.origin}${url.pathname}`).toBe(`${institution.issuer}/auth`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        client_id: 'uni-client',
        response_type: 'code',
        redirect_uri: `${t.baseUrl}/api/v1/auth/sso/callback`,
        scope: 'openid email profile',
        state: expect.any(String),
        nonce: expect.any(String),
        code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        code_challenge_method: 'S256',
        login_hint: `ana@${domain}`,
      });
      const cookie = setCookies(res).get('svc_sso_state')!;
      expect(cookie.value).toBe(url.searchParams.get('state'));
      expect(cookie.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/api/v1/auth' });
    });

    it('404 for an unknown or disabled connection; 422 for a login_hint over 255', async () => {
      await t.client().get('/api/v1/auth/sso/00000000-0000-4000-8000-000000000000/start').expect(404);
      await t.client().get('/api/v1/auth/sso/not-a-uuid/start').expect(404);
      const disabled = await addConnection(owner, orgId, { name: 'Off', enabled: false });
      const res = await t.client().get(`/api/v1/auth/sso/${disabled}/start`).expect(404);
      expect(res.body.error.code).toBe('not_found');
      await t
        .client()
        .get(`/api/v1/auth/sso/${connectionId}/start?login_hint=${'a'.repeat(256)}`)
        .expect(422);
    });

    it('429 past the per-address quota', async () => {
      const agent = t.client();
      for (let i = 0; i < 20; i++) await agent.get(`/api/v1/auth/sso/${connectionId}/start`).expect(302);
      await agent.get(`/api/v1/auth/sso/${connectionId}/start`).expect(429);
    });
  });

  describe('GET /auth/sso/callback', () => {
    it('a new person: account created, membership just in time as student, session opened, organization active', async () => {
      const email = `new.${t.suffix}@${domain}`;
      const agent = t.client();
      const { location, res } = await ssoSignIn(agent, account({ email }));
      expect(location).toBe(`${WEB}/dashboard`);
      expect(setCookies(res).has('access_token')).toBe(true);
      expect(setCookies(res).get('svc_sso_state')?.attributes['max-age']).toBe('0');
      const me = (await agent.get('/api/v1/auth/me').expect(200)).body;
      expect(me).toMatchObject({ email, last_organization_id: orgId });
      expect(
        await t.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [orgId, me.id]),
      ).toEqual([{ role: 'student' }]);
      expect(
        await t.db.query(`SELECT 1 FROM audit_log WHERE action = 'member.joined_via_sso' AND target_id = $1`, [me.id]),
      ).toHaveLength(1);
      const joined = `SELECT organization_id, actor_id, payload FROM domain_events
        WHERE name = 'member.joined' AND payload->>'user_id' = $1`;
      expect(await t.db.query(joined, [me.id])).toEqual([
        { organization_id: orgId, actor_id: me.id, payload: { user_id: me.id, role: 'student' } },
      ]);
      // A second sign-in resolves the linked identity and changes nothing (no second member.joined).
      expect(
        (await ssoSignIn(t.client(), [...institution.accounts].find(([, a]) => a.email === email)![0])).location,
      ).toBe(`${WEB}/dashboard`);
      expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toHaveLength(1);
      expect(await t.db.query(joined, [me.id])).toHaveLength(1);
    });

    it('an existing member keeps their role; an account with two-factor goes to /login/two-factor', async () => {
      const staff = await adult(t, `staff.${t.suffix}@${domain}`);
      await addMember(t, orgId, staff.user.id, 'teacher');
      const setup = await staff.agent.post('/api/v1/me/two-factor/setup').expect(200);
      await staff.agent
        .post('/api/v1/me/two-factor/enable')
        .send({ code: totp(t, setup.body.secret) })
        .expect(200);
      const agent = t.client();
      const { location, res } = await ssoSignIn(agent, account({ email: staff.email }));
      expect(location).toBe(`${WEB}/login/two-factor`);
      expect(setCookies(res).has('svc_2fa')).toBe(true);
      expect(setCookies(res).has('access_token')).toBe(false);
      expect(
        await t.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
          orgId,
          staff.user.id,
        ]),
      ).toEqual([{ role: 'teacher' }]);
    });

    it('state: missing cookie, another browser, or reused', async () => {
      const invalid = `${WEB}/login?error=sso_invalid_state`;
      const a = t.client();
      const returned = await institution.signIn(
        (await startSso(a)).href,
        account({ email: `s1.${t.suffix}@${domain}` }),
      );
      expect((await back(t.client(), returned)).location).toBe(invalid);
      const b = t.client();
      await startSso(b);
      expect((await back(b, returned)).location).toBe(invalid);
      expect((await back(a, returned)).location).toBe(`${WEB}/dashboard`);
      const state = new URL(returned).searchParams.get('state');
      const replay = await t
        .client()
        .get(`/api/v1/auth/sso/callback${new URL(returned).search}`)
        .set('Cookie', `svc_sso_state=${state}`)
        .expect(302);
      expect(replay.headers.location).toBe(invalid);
    });

    it('the identity provider sent an error', async () => {
      const agent = t.client();
      const returned = await institution.signIn((await startSso(agent)).href, 'x', { deny: true });
      expect((await back(agent, returned)).location).toBe(`${WEB}/login?error=sso_provider_error`);
    });

    it("the address must be of a domain verified by the connection's organization", async () => {
      const agent = t.client();
      const email = `someone.${t.suffix}@elsewhere.example`;
      const { location } = await ssoSignIn(agent, account({ email }));
      expect(location).toBe(`${WEB}/login?error=sso_domain_not_verified`);
      expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toHaveLength(0);
    });

    it('query limits: longer values are a redirect with an error, never a 422', async () => {
      const agent = t.client();
      const state = (await startSso(agent)).searchParams.get('state');
      for (const query of [
        `code=${'c'.repeat(4097)}&state=${state}`,
        `error=${'e'.repeat(201)}&state=${state}`,
        `state=${'s'.repeat(513)}`,
      ]) {
        const res = await agent.get(`/api/v1/auth/sso/callback?${query}`).expect(302);
        expect(res.headers.location).toBe(`${WEB}/login?error=sso_invalid_request`);
      }
      // Within the limits, parameters the provider adds are ignored.
      const ok = await agent.get(`/api/v1/auth/sso/callback?code=${'c'.repeat(4096)}&session_state=x`).expect(302);
      expect(ok.headers.location).toBe(`${WEB}/login?error=sso_invalid_state`);
    });

    describe('ID token checks (a hand-rolled provider)', () => {
      let craftedConnection: string;
      let tenantConnection: string;

      beforeAll(async () => {
        craftedConnection = await addConnection(owner, orgId, {
          name: 'Crafted',
          issuer: crafted.issuer,
          client_id: crafted.clientId,
          client_secret: crafted.clientSecret,
        });
        tenantConnection = await addConnection(owner, orgId, {
          name: 'Tenant',
          issuer: tenantPeer.issuer,
          client_id: tenantPeer.clientId,
          client_secret: tenantPeer.clientSecret,
        });
      });

      async function craftedSignIn(
        peer: CraftedOidcPeer,
        connection: string,
        claims: Record<string, unknown>,
      ): Promise<string> {
        peer.claims = claims;
        const agent = t.client();
        return (await back(agent, await peer.signIn((await startSso(agent, connection)).href))).location;
      }

      it('a wrong nonce, another audience, a bad signature: sso_invalid_token', async () => {
        for (const tamper of [{ nonce: 'x' }, { aud: 'other' }, { rogueKey: true }, { expired: true }]) {
          crafted.tamper = tamper;
          const email = `tampered.${accounts++}.${t.suffix}@${domain}`;
          expect(await craftedSignIn(crafted, craftedConnection, { sub: email, email, email_verified: true })).toBe(
            `${WEB}/login?error=sso_invalid_token`,
          );
        }
        crafted.tamper = { tokenError: 'invalid_grant' };
        expect(await craftedSignIn(crafted, craftedConnection, { sub: 'z', email: `z@${domain}` })).toBe(
          `${WEB}/login?error=sso_exchange_failed`,
        );
      });

      it('hd must name a domain the organization verified; tid must be the tenant the issuer names', async () => {
        const email = `hd.${t.suffix}@${domain}`;
        expect(await craftedSignIn(crafted, craftedConnection, { sub: 'hd1', email, hd: 'evil.example' })).toBe(
          `${WEB}/login?error=sso_invalid_token`,
        );
        expect(await craftedSignIn(crafted, craftedConnection, { sub: 'hd1', email, hd: domain })).toBe(
          `${WEB}/dashboard`,
        );
        const tid = `tid.${t.suffix}@${domain}`;
        expect(
          await craftedSignIn(tenantPeer, tenantConnection, {
            sub: 'tid1',
            email: tid,
            tid: '11111111-2222-4333-8444-555555555555',
          }),
        ).toBe(`${WEB}/login?error=sso_invalid_token`);
        expect(await craftedSignIn(tenantPeer, tenantConnection, { sub: 'tid1', email: tid, tid: TENANT })).toBe(
          `${WEB}/dashboard`,
        );
      });

      it('an address the provider says is not verified: sso_email_unverified', async () => {
        const email = `unverified.${t.suffix}@${domain}`;
        expect(await craftedSignIn(crafted, craftedConnection, { sub: 'u1', email, email_verified: false })).toBe(
          `${WEB}/login?error=sso_email_unverified`,
        );
      });

      it('a connection test reports failures at /org/sso', async () => {
        crafted.tamper = { nonce: 'wrong' };
        const res = await owner.agent.post(`${base()}/connections/${craftedConnection}/test`).expect(200);
        crafted.claims = { sub: 't1', email: `t1@${domain}` };
        const returned = await crafted.signIn(res.body.authorize_url as string);
        expect((await back(owner.agent, returned)).location).toBe(`${WEB}/org/sso?test=failed&error=sso_invalid_token`);
      });
    });
  });

  describe('POST .../connections/{id}/test', () => {
    it('returns the authorize URL and sets the state cookie; the callback ends at /org/sso?test=ok without a session', async () => {
      const disabled = await addConnection(owner, orgId, { name: 'Not yet on', enabled: false });
      const res = await admin.agent.post(`${base()}/connections/${disabled}/test`).expect(200);
      const url = new URL(res.body.authorize_url as string);
      expect(`${url.origin}${url.pathname}`).toBe(`${institution.issuer}/auth`);
      expect(setCookies(res).get('svc_sso_state')?.value).toBe(url.searchParams.get('state'));
      // Someone whose domain is not even verified: a test checks the connection, not the person.
      const email = `tester.${t.suffix}@tests.example`;
      const returned = await institution.signIn(url.href, account({ email }));
      const { location, res: answer } = await back(admin.agent, returned);
      expect(location).toBe(`${WEB}/org/sso?test=ok`);
      expect(setCookies(answer).has('access_token')).toBe(false);
      expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [email])).toHaveLength(0);
      expect(
        await t.db.query(`SELECT 1 FROM audit_log WHERE action = 'sso.connection_tested' AND target_id = $1`, [
          disabled,
        ]),
      ).toHaveLength(1);
    });

    it('409 sso_discovery_failed when the issuer cannot be read', async () => {
      const dead = await addConnection(owner, orgId, { name: 'Dead', issuer: 'http://127.0.0.1:9' });
      const res = await owner.agent.post(`${base()}/connections/${dead}/test`).expect(409);
      expect(res.body.error.code).toBe('sso_discovery_failed');
    });
  });

  describe('outbound requests stay on public addresses (extensions-v3 6.7)', () => {
    // A TCP listener on this machine's private interface: the internal service an issuer must never reach.
    let inside: Server;
    let insidePort = 0;
    // A peer of its own: discovery is cached per issuer, and this one names an endpoint inside the network.
    let pointing: CraftedOidcPeer;
    const connections: string[] = [];
    const privateAddress = privateInterfaceAddress();

    beforeAll(async () => {
      inside = createServer((socket) => {
        connections.push(socket.remoteAddress ?? '');
        socket.destroy();
      });
      await new Promise<void>((resolve) => inside.listen(0, privateAddress, resolve));
      insidePort = (inside.address() as AddressInfo).port;
      pointing = await CraftedOidcPeer.start();
    });
    afterAll(async () => {
      await pointing.stop();
      await new Promise((resolve) => inside.close(resolve));
    });

    beforeEach(() => {
      connections.length = 0;
    });

    it('an https issuer on a private address: test 409 sso_discovery_failed, start goes to the login page; never connected', async () => {
      const internal = await addConnection(owner, orgId, {
        name: 'Inside',
        issuer: `https://${privateAddress}:${insidePort}`,
      });
      const res = await owner.agent.post(`${base()}/connections/${internal}/test`).expect(409);
      expect(res.body.error.code).toBe('sso_discovery_failed');
      const start = await t.client().get(`/api/v1/auth/sso/${internal}/start`).expect(302);
      expect(start.headers.location).toBe(`${WEB}/login?error=sso_provider_unavailable`);
      expect(connections).toEqual([]);
    });

    it('a discovery document naming a private token endpoint or JWKS: the exchange never connects there', async () => {
      const peerConnection = await addConnection(owner, orgId, {
        name: 'Crafted inside',
        issuer: pointing.issuer,
        client_id: pointing.clientId,
        client_secret: pointing.clientSecret,
      });
      pointing.endpoints = { token_endpoint: `https://${privateAddress}:${insidePort}/token` };
      pointing.claims = { sub: 'inside', email: `inside.${t.suffix}@${domain}`, email_verified: true };
      const agent = t.client();
      const returned = await pointing.signIn((await startSso(agent, peerConnection)).href);
      expect((await back(agent, returned)).location).toMatch(/^http:\/\/web\.test\/login\?error=sso_/);
      expect(connections).toEqual([]);
    });
  });

  describe('enforcement', () => {
    let domainId: string;

    beforeAll(async () => {
      [{ id: domainId }] = await t.db.query(`SELECT id FROM sso_domains WHERE domain = $1`, [domain]);
      await owner.agent.patch(`${base()}/domains/${domainId}`).send({ enforced: true }).expect(200);
    });
    afterAll(async () => {
      await owner.agent.patch(`${base()}/domains/${domainId}`).send({ enforced: false }).expect(200);
    });

    it('discovery says so', async () => {
      const res = await t
        .client()
        .post('/api/v1/auth/sso/discover')
        .send({ email: `a@${domain}` })
        .expect(200);
      expect(res.body).toMatchObject({ sso: true, enforced: true });
    });

    it('email-code sign-in answers 403 sso_required (request and verify) for addresses of the domain', async () => {
      const email = `learner.${t.suffix}@${domain}`;
      const agent = t.client();
      const request = await agent.post('/api/v1/auth/otp/request').send({ email }).expect(403);
      expect(request.body.error.code).toBe('sso_required');
      const verify = await agent.post('/api/v1/auth/otp/verify').send({ email, code: '123456' }).expect(403);
      expect(verify.body.error.code).toBe('sso_required');
      // Other domains are untouched.
      await t.client().post('/api/v1/auth/otp/request').send({ email: t.nextEmail() }).expect(200);
    });

    it("the organization's owners keep email-code sign-in", async () => {
      const agent = t.client();
      const code = await requestSignInCode(t, agent, owner.email);
      await agent.post('/api/v1/auth/otp/verify').send({ email: owner.email, code }).expect(200);
    });

    it('SSO itself still works', async () => {
      const { location } = await ssoSignIn(t.client(), account({ email: `via-sso.${t.suffix}@${domain}` }));
      expect(location).toBe(`${WEB}/dashboard`);
    });
  });
});

describe('SSO disabled in the deployment', () => {
  let t: TestApp;
  let owner: SignedIn;
  let orgId: string;
  let connectionId: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { SSO_ENABLED: 'false' } });
    owner = await adult(t);
    orgId = await createOrganization(t, owner, 'No SSO here');
    await stepUpByEmail(t, owner);
    const res = await owner.agent
      .post(`/api/v1/organizations/${orgId}/sso/connections`)
      .send({ name: 'X', issuer: 'https://idp.example.org', client_id: 'a', client_secret: 'b' })
      .expect(201);
    connectionId = res.body.id;
  });
  afterAll(() => t.close());

  it('start: 404 feature_disabled; callback: redirect with feature_disabled; discover: no SSO', async () => {
    const res = await t.client().get(`/api/v1/auth/sso/${connectionId}/start`).expect(404);
    expect(res.body.error.code).toBe('feature_disabled');
    const back = await t.client().get('/api/v1/auth/sso/callback?code=x&state=y').expect(302);
    expect(back.headers.location).toBe(`${WEB}/login?error=feature_disabled`);
    await t
      .client()
      .post('/api/v1/auth/sso/discover')
      .send({ email: 'a@idp.example.org' })
      .expect(200, { sso: false, connection_id: null, organization_name: null, enforced: false });
  });

  it('email-code sign-in is never refused for SSO', async () => {
    const person = await signIn(t);
    expect(person.user.email).toBe(person.email);
  });
});
