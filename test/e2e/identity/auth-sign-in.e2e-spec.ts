import { FAILED_ATTEMPTS_ACCOUNT } from '@/modules/identity/auth/testing';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { codeFrom } from '../../support/mail-sink';
import { requestSignInCode, setCookies, signIn, totp } from '../../support/auth';
import { createTestApp, type TestApp } from '../../support/test-app';

const MINUTE = 60_000;

describe('Sign-in by email code, cookie session, refresh, logout (interface-v1 3, 4.2, 5.1)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'root@admins.test' } });
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const invalidOtp = async (agent: ReturnType<TestApp['client']>, email: string, code: string): Promise<void> => {
    const res = await agent.post('/api/v1/auth/otp/verify').send({ email, code }).expect(400);
    expect(res.body.error).toEqual({
      code: 'invalid_otp',
      message: 'The code is not valid or has expired.',
      request_id: expect.any(String),
    });
    expect(setCookies(res).has('access_token')).toBe(false);
  };

  describe('GET /auth/providers', () => {
    it('lists the email code (no external provider is configured)', async () => {
      await t
        .http()
        .get('/api/v1/auth/providers')
        .expect(200, { methods: ['email_code'] });
    });
  });

  describe('POST /auth/otp/request', () => {
    it('answers the same generic 200 for a new and an existing account, and emails a code to both', async () => {
      const existing = await signIn(t);
      const fresh = t.nextEmail('fresh');
      const a = await t.client().post('/api/v1/auth/otp/request').send({ email: existing.email }).expect(200);
      const b = await t.client().post('/api/v1/auth/otp/request').send({ email: fresh }).expect(200);
      expect(a.body).toEqual({ status: 'sent' });
      expect(b.body).toEqual(a.body);
      expect(Object.keys(a.headers).sort()).toEqual(Object.keys(b.headers).sort());
      expect(codeFrom(await t.mail.waitForTo(fresh))).toMatch(/^\d{6}$/);
      // No account exists until the first successful verification.
      expect(await t.db.query(`SELECT 1 FROM users WHERE email = $1`, [fresh])).toHaveLength(0);
    });

    it("writes the email in Spanish by default, in the requested language for a new account, in the person's own once known", async () => {
      const es = t.nextEmail('es');
      const en = t.nextEmail('en');
      await t.client().post('/api/v1/auth/otp/request').send({ email: es }).expect(200);
      await t.client().post('/api/v1/auth/otp/request').send({ email: en, locale: 'en' }).expect(200);
      expect((await t.mail.waitForTo(es)).subject).toMatch(/^Tu código de acceso: \d{6}$/);
      expect((await t.mail.waitForTo(en)).subject).toMatch(/^Your sign-in code: \d{6}$/);
      const person = await signIn(t, t.nextEmail('pref'));
      await person.agent.patch('/api/v1/me/profile').send({ locale: 'en' }).expect(200);
      const before = t.mail.count();
      await t.client().post('/api/v1/auth/otp/request').send({ email: person.email, locale: 'es' }).expect(200);
      expect((await t.mail.waitForTo(person.email, { after: before })).subject).toMatch(/^Your sign-in code/);
    });

    it('normalizes the address (case, spaces)', async () => {
      const email = t.nextEmail('case');
      await t
        .client()
        .post('/api/v1/auth/otp/request')
        .send({ email: `  ${email.toUpperCase()} ` })
        .expect(200);
      await t.mail.waitForTo(email);
    });

    it.each([
      [{}, 'email'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: 'a@b.test', locale: 'fr' }, 'locale'],
      [{ email: 'a@b.test', extra: 1 }, 'extra'],
    ])('refuses %p with 422 validation_error', async (body, field) => {
      const res = await t.client().post('/api/v1/auth/otp/request').send(body).expect(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('limits requests per email address: 5 per 15 minutes, the 6th is 429 with Retry-After', async () => {
      const email = t.nextEmail('limit');
      for (let i = 0; i < 5; i++) await t.client().post('/api/v1/auth/otp/request').send({ email }).expect(200);
      const res = await t.client().post('/api/v1/auth/otp/request').send({ email }).expect(429);
      expect(res.body.error.code).toBe('too_many_requests');
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(900);
    });

    it('limits requests per client address: 20 per 15 minutes, the 21st is 429', async () => {
      const client = t.client();
      for (let i = 0; i < 20; i++)
        await client
          .post('/api/v1/auth/otp/request')
          .send({ email: t.nextEmail('ip') })
          .expect(200);
      const res = await client
        .post('/api/v1/auth/otp/request')
        .send({ email: t.nextEmail('ip') })
        .expect(429);
      expect(res.headers['retry-after']).toBeDefined();
    });
  });

  describe('POST /auth/otp/verify', () => {
    it('creates the account at the first verification, opens a session and sets the cookies of section 5.1', async () => {
      const email = t.nextEmail('new');
      const agent = t.client();
      const code = await requestSignInCode(t, agent, email);
      const res = await agent.post('/api/v1/auth/otp/verify').send({ email, code }).expect(200);
      expect(res.body).toMatchObject({
        email,
        name: null,
        locale: 'es',
        public_profile: false,
        platform_roles: [],
        two_factor_enabled: false,
      });
      const cookies = setCookies(res);
      expect(cookies.get('access_token')!.attributes).toMatchObject({
        httponly: true,
        samesite: 'Lax',
        path: '/',
        'max-age': '900',
      });
      expect(cookies.get('refresh_token')!.attributes).toMatchObject({
        httponly: true,
        samesite: 'Lax',
        path: '/api/v1/auth',
        'max-age': '2592000',
      });
      expect(cookies.get('svc_session')!.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/' });
      for (const c of cookies.values()) expect(c.attributes.secure).toBeUndefined(); // COOKIE_SECURE is off here
      const [row] = await t.db.query(`SELECT count(*)::int AS n FROM users WHERE email = $1`, [email]);
      expect(row.n).toBe(1);
      await agent.get('/api/v1/auth/me').expect(200);
    });

    it('enters the existing account without duplicating it', async () => {
      const first = await signIn(t);
      const again = await signIn(t, first.email);
      expect(again.user.id).toBe(first.user.id);
      const [row] = await t.db.query(`SELECT count(*)::int AS n FROM users WHERE email = $1`, [first.email]);
      expect(row.n).toBe(1);
    });

    it('gives a new account another handle when its email’s local part is taken', async () => {
      const local = `handle${Date.now().toString(36)}`;
      const first = await signIn(t, `${local}@one.test`);
      const second = await signIn(t, `${local}@two.test`);
      expect(first.user.username).toBe(local);
      expect(second.user.username).toMatch(new RegExp(`^${local}-[a-z2-9]{4}$`));
      const rows = await t.db.query(`SELECT email FROM users WHERE username LIKE $1 ORDER BY email`, [`${local}%`]);
      expect(rows.map((r: { email: string }) => r.email)).toEqual([`${local}@one.test`, `${local}@two.test`]);
    });

    it('gives accounts listed in PLATFORM_ADMIN_EMAILS the platform_admin role', async () => {
      const admin = await signIn(t, 'root@admins.test');
      expect(admin.user.platform_roles).toEqual(['platform_admin']);
    });

    it('answers the same 400 invalid_otp for a wrong code, an unknown email, and an email without a pending code', async () => {
      const email = t.nextEmail('wrong');
      const agent = t.client();
      const code = await requestSignInCode(t, agent, email);
      await invalidOtp(agent, email, code === '000000' ? '111111' : '000000');
      await invalidOtp(t.client(), t.nextEmail('nobody'), '123456');
      const existing = await signIn(t);
      await invalidOtp(t.client(), existing.email, '123456'); // used code, no pending one
    });

    it('a code works once', async () => {
      const email = t.nextEmail('once');
      const agent = t.client();
      const code = await requestSignInCode(t, agent, email);
      await agent.post('/api/v1/auth/otp/verify').send({ email, code }).expect(200);
      await invalidOtp(t.client(), email, code);
    });

    it('a code lasts 10 minutes', async () => {
      const email = t.nextEmail('ttl');
      const agent = t.client();
      const code = await requestSignInCode(t, agent, email);
      t.clock.advance(10 * MINUTE - 1000);
      await agent.post('/api/v1/auth/otp/verify').send({ email, code }).expect(200);
      const email2 = t.nextEmail('ttl');
      const agent2 = t.client();
      const code2 = await requestSignInCode(t, agent2, email2);
      t.clock.advance(10 * MINUTE + 1000);
      await invalidOtp(agent2, email2, code2);
    });

    it('allows 4 wrong attempts then the right code; after 5 wrong attempts the code is exhausted', async () => {
      const wrong = (c: string): string => (c === '999999' ? '999998' : '999999');
      const email = t.nextEmail('four');
      const agent = t.client();
      const code = await requestSignInCode(t, agent, email);
      for (let i = 0; i < 4; i++) await invalidOtp(agent, email, wrong(code));
      await agent.post('/api/v1/auth/otp/verify').send({ email, code }).expect(200);

      const email2 = t.nextEmail('five');
      const agent2 = t.client();
      const code2 = await requestSignInCode(t, agent2, email2);
      for (let i = 0; i < 5; i++) await invalidOtp(agent2, email2, wrong(code2));
      await invalidOtp(agent2, email2, code2);
    });

    it('a new code voids the previous one', async () => {
      const email = t.nextEmail('void');
      const agent = t.client();
      const first = await requestSignInCode(t, agent, email);
      const second = await requestSignInCode(t, agent, email);
      if (first !== second) await invalidOtp(agent, email, first);
      await agent.post('/api/v1/auth/otp/verify').send({ email, code: second }).expect(200);
    });

    it('stores only a keyed hash of the code', async () => {
      const email = t.nextEmail('hash');
      const code = await requestSignInCode(t, t.client(), email);
      const [row] = await t.db.query(`SELECT code_hash FROM email_codes WHERE purpose = 'sign_in' AND subject = $1`, [
        email,
      ]);
      expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.code_hash).not.toContain(code);
    });

    it.each([
      [{ email: 'a@b.test' }, 'code'],
      [{ email: 'a@b.test', code: '12345' }, 'code'],
      [{ email: 'a@b.test', code: '1234567' }, 'code'],
      [{ email: 'a@b.test', code: 'abcdef' }, 'code'],
      [{ email: 'nope', code: '123456' }, 'email'],
    ])('refuses %p with 422', async (body, field) => {
      const res = await t.client().post('/api/v1/auth/otp/verify').send(body).expect(422);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('limits verifications per email: 10 per 15 minutes, the 11th is 429', async () => {
      const email = t.nextEmail('vlimit');
      for (let i = 0; i < 10; i++)
        await t.client().post('/api/v1/auth/otp/verify').send({ email, code: '000000' }).expect(400);
      await t.client().post('/api/v1/auth/otp/verify').send({ email, code: '000000' }).expect(429);
    });

    it('counts failed codes per account across flows (ASVS 2.2.1): the 100th failure in an hour is 400, the 101st 429', async () => {
      const s = await signIn(t);
      // 98 failures already counted for the account (the per-route limits would stop a single client sooner).
      await t.app.get(RateLimitService).consume(FAILED_ATTEMPTS_ACCOUNT, s.email, 98);
      const wrong = (agent: ReturnType<TestApp['client']>) =>
        agent.post('/api/v1/auth/otp/verify').send({ email: s.email, code: '000000' });
      // 99th: sign-in; 100th: step-up of the same account, from its own session. Both still answer 400.
      expect((await wrong(t.client())).status).toBe(400);
      await s.agent.post('/api/v1/auth/step-up/request').expect(200);
      const stepUp = await s.agent.post('/api/v1/auth/step-up/verify').send({ code: '000000' });
      expect(stepUp.status).toBe(400);
      expect(stepUp.body.error.code).toBe('invalid_otp');
      // 101st, from yet another client address: 429 with Retry-After, in both flows.
      const limited = await wrong(t.client()).expect(429);
      expect(limited.body.error.code).toBe('too_many_requests');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(3600);
      await s.agent.post('/api/v1/auth/step-up/verify').send({ code: '000000' }).expect(429);
      // Only failures count: the person can still sign in with a right code, so nobody can lock them out.
      await signIn(t, s.email);
      // Another account is not affected.
      await invalidOtp(t.client(), t.nextEmail('other'), '000000');
    });

    it('limits verifications per client address: 30 per 15 minutes, the 31st is 429', async () => {
      const client = t.client();
      for (let i = 0; i < 30; i++) {
        await client
          .post('/api/v1/auth/otp/verify')
          .send({ email: t.nextEmail('vip'), code: '000000' })
          .expect(400);
      }
      await client
        .post('/api/v1/auth/otp/verify')
        .send({ email: t.nextEmail('vip'), code: '000000' })
        .expect(429);
    });
  });

  describe('two-factor sign-in', () => {
    async function personWithTwoFactor(): Promise<{ email: string; secret: string; recovery: string[] }> {
      const s = await signIn(t);
      const setup = await s.agent.post('/api/v1/me/two-factor/setup').expect(200);
      const secret = setup.body.secret as string;
      const enabled = await s.agent
        .post('/api/v1/me/two-factor/enable')
        .send({ code: totp(t, secret) })
        .expect(200);
      t.clock.advance(31_000); // the enabling code's time step is spent
      return { email: s.email, secret, recovery: enabled.body.recovery_codes };
    }

    it('answers 401 two_factor_required with the svc_2fa challenge cookie and no session cookies', async () => {
      const p = await personWithTwoFactor();
      const agent = t.client();
      const code = await requestSignInCode(t, agent, p.email);
      const res = await agent.post('/api/v1/auth/otp/verify').send({ email: p.email, code }).expect(401);
      expect(res.body.error.code).toBe('two_factor_required');
      const cookies = setCookies(res);
      expect(cookies.get('svc_2fa')!.attributes).toMatchObject({
        httponly: true,
        samesite: 'Lax',
        path: '/api/v1/auth',
        'max-age': '300',
      });
      expect(cookies.has('access_token')).toBe(false);
      expect(cookies.has('refresh_token')).toBe(false);
      await agent.get('/api/v1/auth/me').expect(401);

      const bad = await agent
        .post('/api/v1/auth/two-factor/verify')
        .send({ code: totp(t, p.secret, 5) })
        .expect(400);
      expect(bad.body.error.code).toBe('invalid_totp');
      const ok = await agent
        .post('/api/v1/auth/two-factor/verify')
        .send({ code: totp(t, p.secret) })
        .expect(200);
      expect(ok.body.email).toBe(p.email);
      expect(setCookies(ok).get('svc_2fa')!.attributes['max-age']).toBe('0');
      expect(setCookies(ok).has('access_token')).toBe(true);
      await agent.get('/api/v1/auth/me').expect(200);
      // The challenge is single use.
      await agent
        .post('/api/v1/auth/two-factor/verify')
        .send({ code: totp(t, p.secret, 1) })
        .expect(401);
    });

    it('accepts a recovery code once', async () => {
      const p = await personWithTwoFactor();
      for (const expected of [200, 400]) {
        const agent = t.client();
        const code = await requestSignInCode(t, agent, p.email);
        await agent.post('/api/v1/auth/otp/verify').send({ email: p.email, code }).expect(401);
        const res = await agent.post('/api/v1/auth/two-factor/verify').send({ code: p.recovery[0] }).expect(expected);
        if (expected === 400) expect(res.body.error.code).toBe('invalid_totp');
      }
    });

    it('401 without the challenge cookie, and once the challenge has expired (5 minutes)', async () => {
      const p = await personWithTwoFactor();
      await t
        .client()
        .post('/api/v1/auth/two-factor/verify')
        .send({ code: totp(t, p.secret) })
        .expect(401);
      const agent = t.client();
      const code = await requestSignInCode(t, agent, p.email);
      await agent.post('/api/v1/auth/otp/verify').send({ email: p.email, code }).expect(401);
      t.clock.advance(5 * MINUTE + 1000);
      const res = await agent
        .post('/api/v1/auth/two-factor/verify')
        .send({ code: totp(t, p.secret) })
        .expect(401);
      expect(res.body.error.code).toBe('unauthorized');
    });

    it('a challenge allows 5 wrong codes, then it is spent', async () => {
      const p = await personWithTwoFactor();
      const agent = t.client();
      const code = await requestSignInCode(t, agent, p.email);
      await agent.post('/api/v1/auth/otp/verify').send({ email: p.email, code }).expect(401);
      for (let i = 0; i < 5; i++)
        await agent
          .post('/api/v1/auth/two-factor/verify')
          .send({ code: totp(t, p.secret, 10) })
          .expect(400);
      await agent
        .post('/api/v1/auth/two-factor/verify')
        .send({ code: totp(t, p.secret) })
        .expect(401);
    });

    it('limits verifications per client address: 20 per 15 minutes, the 21st is 429', async () => {
      const client = t.client();
      for (let i = 0; i < 20; i++)
        await client.post('/api/v1/auth/two-factor/verify').send({ code: '123456' }).expect(401);
      await client.post('/api/v1/auth/two-factor/verify').send({ code: '123456' }).expect(429);
    });

    it('422 for a code of neither form', async () => {
      await t.client().post('/api/v1/auth/two-factor/verify').send({ code: '12-34' }).expect(422);
    });
  });

  describe('POST /auth/refresh (rotation with reuse detection)', () => {
    it('rotates the refresh token and renews the access and presence cookies', async () => {
      const s = await signIn(t);
      const res = await s.agent.post('/api/v1/auth/refresh').expect(200);
      expect(res.body.id).toBe(s.user.id);
      const cookies = setCookies(res);
      expect([...cookies.keys()].sort()).toEqual(['access_token', 'refresh_token', 'svc_session']);
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM refresh_tokens r JOIN sessions s ON s.id = r.session_id WHERE s.user_id = $1 AND r.rotated_at IS NULL`,
        [s.user.id],
      );
      expect(n).toBe(1);
    });

    it('a rotated-out token answers 401, clears every cookie and revokes the whole session (reuse detection)', async () => {
      const s = await signIn(t);
      const login = await s.agent.get('/api/v1/auth/me');
      expect(login.status).toBe(200);
      const stolen = (await s.agent.post('/api/v1/auth/refresh').expect(200)) && s.agent;
      // Capture the current refresh token, rotate it once more, then replay the old one.
      const r1 = await stolen.post('/api/v1/auth/refresh').expect(200);
      const oldToken = setCookies(r1).get('refresh_token')!.value;
      await stolen.post('/api/v1/auth/refresh').expect(200); // oldToken is now rotated out
      const replay = await t.http().post('/api/v1/auth/refresh').set('Cookie', `refresh_token=${oldToken}`).expect(401);
      const cleared = setCookies(replay);
      for (const name of ['access_token', 'refresh_token', 'svc_session'])
        expect(cleared.get(name)!.attributes['max-age']).toBe('0');
      // The legitimate holder's current token died with the session.
      await s.agent.post('/api/v1/auth/refresh').expect(401);
      const [session] = await t.db.query(
        `SELECT revoked_reason FROM sessions WHERE user_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [s.user.id],
      );
      expect(session.revoked_reason).toBe('refresh_token_reuse');
    });

    it('of 20 parallel refreshes with one token exactly one succeeds', async () => {
      const s = await signIn(t);
      const token = setCookies(await s.agent.post('/api/v1/auth/refresh').expect(200)).get('refresh_token')!.value;
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          t
            .http()
            .post('/api/v1/auth/refresh')
            .set('X-Forwarded-For', t.nextIp())
            .set('Cookie', `refresh_token=${token}`),
        ),
      );
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status === 401)).toHaveLength(19);
    });

    it('401 and cleared cookies without a refresh token, or with an unknown one', async () => {
      for (const cookie of [undefined, 'refresh_token=not-a-real-token']) {
        const req = t.http().post('/api/v1/auth/refresh').set('X-Forwarded-For', t.nextIp());
        const res = await (cookie ? req.set('Cookie', cookie) : req).expect(401);
        expect(setCookies(res).get('svc_session')!.attributes['max-age']).toBe('0');
      }
    });

    it('401 once the session has expired (30 days without a refresh)', async () => {
      const s = await signIn(t);
      t.clock.advance(30 * 24 * 60 * MINUTE + MINUTE);
      await s.agent.post('/api/v1/auth/refresh').expect(401);
    });

    it('limits refreshes per client address: 60 per minute, the 61st is 429', async () => {
      const client = t.client();
      for (let i = 0; i < 60; i++) await client.post('/api/v1/auth/refresh').expect(401);
      await client.post('/api/v1/auth/refresh').expect(429);
    });
  });

  describe('access token', () => {
    it('lasts 15 minutes; the refresh token then gets a new one', async () => {
      const s = await signIn(t);
      t.clock.advance(15 * MINUTE - 2000);
      await s.agent.get('/api/v1/auth/me').expect(200);
      t.clock.advance(4000);
      await s.agent.get('/api/v1/auth/me').expect(401);
      await s.agent.post('/api/v1/auth/refresh').expect(200);
      await s.agent.get('/api/v1/auth/me').expect(200);
    });

    it('401 for a tampered or foreign token', async () => {
      const s = await signIn(t);
      const res = await s.agent.post('/api/v1/auth/refresh').expect(200);
      const token = setCookies(res).get('access_token')!.value;
      const [h, p] = token.split('.');
      const forged = `${h}.${p}.${Buffer.from('x'.repeat(32)).toString('base64url')}`;
      await t.http().get('/api/v1/auth/me').set('Cookie', `access_token=${forged}`).expect(401);
      const otherPayload = Buffer.from(
        JSON.stringify({
          ...JSON.parse(Buffer.from(p, 'base64url').toString()),
          sub: '00000000-0000-0000-0000-000000000000',
        }),
      ).toString('base64url');
      await t
        .http()
        .get('/api/v1/auth/me')
        .set('Cookie', `access_token=${h}.${otherPayload}.${token.split('.')[2]}`)
        .expect(401);
      await t.http().get('/api/v1/auth/me').set('Cookie', 'access_token=garbage').expect(401);
    });

    it('GET /auth/credential describes a session', async () => {
      const s = await signIn(t);
      const res = await s.agent.get('/api/v1/auth/credential').expect(200);
      expect(res.body).toEqual({
        kind: 'session',
        user_id: s.user.id,
        organization_id: null,
        role: null,
        access: null,
      });
      await t.http().get('/api/v1/auth/credential').expect(401);
    });
  });

  describe('POST /auth/logout', () => {
    it('revokes the session, clears the three cookies with Max-Age=0, and is idempotent', async () => {
      const s = await signIn(t);
      const res = await s.agent.post('/api/v1/auth/logout').expect(204);
      const cookies = setCookies(res);
      for (const name of ['access_token', 'refresh_token', 'svc_session'])
        expect(cookies.get(name)!.attributes['max-age']).toBe('0');
      await s.agent.post('/api/v1/auth/refresh').expect(401);
      await s.agent.post('/api/v1/auth/logout').expect(204);
      await t.http().post('/api/v1/auth/logout').expect(204);
    });
  });
});
