import { codeFrom } from '../../support/mail-sink';
import { setCookies, signIn, type SignedIn, startOfTotpStep, stepUpByEmail, totp } from '../../support/auth';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const MINUTE = 60_000;

describe('Own account: sessions, two-factor, step-up, email change, profile, onboarding, impersonation', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'admin@ops.test,admin2@ops.test' } });
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  async function enableTwoFactor(s: SignedIn): Promise<{ secret: string; recovery: string[] }> {
    const setup = await s.agent.post('/api/v1/me/two-factor/setup').expect(200);
    const res = await s.agent
      .post('/api/v1/me/two-factor/enable')
      .send({ code: totp(t, setup.body.secret) })
      .expect(200);
    t.clock.advance(31_000);
    return { secret: setup.body.secret, recovery: res.body.recovery_codes };
  }

  async function auditActions(userId: string): Promise<string[]> {
    const rows = await t.db.query(
      `SELECT action FROM audit_log WHERE actor_id = $1 OR target_id = $2 ORDER BY created_at`,
      [userId, userId],
    );
    return rows.map((r: { action: string }) => r.action);
  }

  describe('sessions', () => {
    it('lists one session per device with a user-agent summary, the current one marked', async () => {
      const a = await signIn(t);
      const b = t.client();
      const before = t.mail.count();
      await b.post('/api/v1/auth/otp/request').send({ email: a.email }).expect(200);
      const code = codeFrom(await t.mail.waitForTo(a.email, { after: before }));
      await b
        .post('/api/v1/auth/otp/verify')
        .set('User-Agent', 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0')
        .send({ email: a.email, code })
        .expect(200);
      const res = await a.agent.get('/api/v1/me/sessions').expect(200);
      expect(res.body.items).toHaveLength(2);
      expect(res.body.items.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
      expect(res.body.items.map((s: { device: string }) => s.device)).toContain('Firefox 132 on Ubuntu');
      expect(res.body.items[0]).toEqual({
        id: expect.any(String),
        device: expect.any(String),
        created_at: expect.any(String),
        last_seen_at: expect.any(String),
        current: expect.any(Boolean),
      });
    });

    it("DELETE one of my other sessions ends it; the current one also clears the cookies; another person's is 404", async () => {
      const a = await signIn(t);
      const a2 = await signIn(t, a.email);
      const other = await signIn(t);
      const list = (await a.agent.get('/api/v1/me/sessions').expect(200)).body.items as {
        id: string;
        current: boolean;
      }[];
      const second = list.find((s) => !s.current)!;
      await a.agent.delete(`/api/v1/me/sessions/${second.id}`).expect(204);
      await a2.agent.post('/api/v1/auth/refresh').expect(401);
      // Another person's session, a random id and a malformed id are all 404.
      const theirs = (await other.agent.get('/api/v1/me/sessions').expect(200)).body.items[0].id;
      await a.agent.delete(`/api/v1/me/sessions/${theirs}`).expect(404);
      await other.agent.get('/api/v1/auth/me').expect(200);
      await a.agent.delete('/api/v1/me/sessions/00000000-0000-4000-8000-000000000000').expect(404);
      await a.agent.delete('/api/v1/me/sessions/not-a-uuid').expect(404);
      const current = list.find((s) => s.current)!;
      const res = await a.agent.delete(`/api/v1/me/sessions/${current.id}`).expect(204);
      expect(setCookies(res).get('access_token')!.attributes['max-age']).toBe('0');
    });

    it('revoke-others closes every other session, raises token_version (their access tokens stop at once) and renews this one', async () => {
      const a = await signIn(t);
      const b = await signIn(t, a.email);
      const c = await signIn(t, a.email);
      await b.agent.get('/api/v1/auth/me').expect(200);
      const res = await a.agent.post('/api/v1/me/sessions/revoke-others').expect(200);
      expect(res.body).toEqual({ revoked: 2 });
      expect([...setCookies(res).keys()].sort()).toEqual(['access_token', 'refresh_token', 'svc_session']);
      await b.agent.get('/api/v1/auth/me').expect(401); // well before the 15 minutes
      await c.agent.post('/api/v1/auth/refresh').expect(401);
      await a.agent.get('/api/v1/auth/me').expect(200);
      await a.agent.post('/api/v1/auth/refresh').expect(200);
      const [{ token_version }] = await t.db.query(`SELECT token_version FROM users WHERE id = $1`, [a.user.id]);
      expect(token_version).toBe(1);
    });

    it('401 without a credential', async () => {
      await t.http().get('/api/v1/me/sessions').expect(401);
      await t.http().post('/api/v1/me/sessions/revoke-others').expect(401);
      await t.http().delete('/api/v1/me/sessions/00000000-0000-4000-8000-000000000000').expect(401);
    });
  });

  describe('two-factor (state table of section 3)', () => {
    it('status starts disabled', async () => {
      const s = await signIn(t);
      await s.agent
        .get('/api/v1/me/two-factor')
        .expect(200, { enabled: false, recovery_codes_left: 0, required: false });
    });

    it('setup returns the secret, an otpauth URI and an SVG QR code; the secret is stored encrypted; nothing required yet', async () => {
      const s = await signIn(t);
      const res = await s.agent.post('/api/v1/me/two-factor/setup').expect(200);
      expect(res.body.secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(res.body.otpauth_uri).toMatch(/^otpauth:\/\/totp\/Learning%20Platform:/);
      expect(res.body.otpauth_uri).toContain(`secret=${res.body.secret}`);
      expect(res.body.otpauth_uri).toContain('issuer=Learning%20Platform');
      expect(res.body.qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
      const [row] = await t.db.query(`SELECT two_factor_secret, two_factor_enabled_at FROM users WHERE id = $1`, [
        s.user.id,
      ]);
      expect(row.two_factor_secret).not.toContain(res.body.secret);
      expect(row.two_factor_enabled_at).toBeNull();
      await signIn(t, s.email); // still a one-factor sign-in
    });

    it('enable: 409 two_factor_not_started without setup, 400 invalid_totp for a wrong code, 422 for a malformed one', async () => {
      const s = await signIn(t);
      const res = await s.agent.post('/api/v1/me/two-factor/enable').send({ code: '123456' }).expect(409);
      expect(res.body.error.code).toBe('two_factor_not_started');
      const setup = await s.agent.post('/api/v1/me/two-factor/setup').expect(200);
      const wrong = await s.agent
        .post('/api/v1/me/two-factor/enable')
        .send({ code: totp(t, setup.body.secret, 3) })
        .expect(400);
      expect(wrong.body.error.code).toBe('invalid_totp');
      await s.agent.post('/api/v1/me/two-factor/enable').send({ code: 'abc' }).expect(422);
    });

    it('enable returns 10 recovery codes once, emails a notice and writes the audit entry; then 409 already enabled', async () => {
      const s = await signIn(t, t.nextEmail('tfa'), { locale: 'en' });
      await s.agent.patch('/api/v1/me/profile').send({ locale: 'en' }).expect(200);
      const { recovery } = await enableTwoFactor(s);
      expect(recovery).toHaveLength(10);
      for (const code of recovery) expect(code).toMatch(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
      expect(new Set(recovery).size).toBe(10);
      const notice = await t.mail.waitForTo(s.email, { subject: /Two-factor authentication enabled/ });
      expect(notice.text).toContain('recovery codes');
      await s.agent
        .get('/api/v1/me/two-factor')
        .expect(200, { enabled: true, recovery_codes_left: 10, required: false });
      expect(await auditActions(s.user.id)).toContain('two_factor.enabled');
      const again = await s.agent.post('/api/v1/me/two-factor/setup').expect(409);
      expect(again.body.error.code).toBe('two_factor_already_enabled');
      const hashes = await t.db.query(`SELECT code_hash FROM recovery_codes WHERE user_id = $1`, [s.user.id]);
      expect(hashes.map((h: { code_hash: string }) => h.code_hash)).not.toContain(recovery[0]);
    });

    it('TOTP: a code of the previous or next 30-second step is accepted, two steps away is not, and a code works once', async () => {
      const s = await signIn(t);
      const { secret } = await enableTwoFactor(s);
      t.clock.advance(60_000); // move well past the step spent by enabling
      startOfTotpStep(t); // no step boundary between a code's computing and its check
      const tryStepUp = (code: string) => s.agent.post('/api/v1/auth/step-up/verify').send({ code });
      expect((await tryStepUp(totp(t, secret, -2))).status).toBe(400);
      expect((await tryStepUp(totp(t, secret, 2))).status).toBe(400);
      expect((await tryStepUp(totp(t, secret, -1))).status).toBe(204);
      const current = totp(t, secret);
      expect((await tryStepUp(current)).status).toBe(204);
      const reuse = await tryStepUp(current);
      expect(reuse.status).toBe(400);
      expect(reuse.body.error.code).toBe('invalid_totp');
      expect((await tryStepUp(totp(t, secret, 1))).status).toBe(204);
    });

    it('recovery-codes and disable need a recent step-up; recovery-codes voids the previous set; disable emails a notice', async () => {
      const s = await signIn(t);
      const { secret, recovery } = await enableTwoFactor(s);
      expect((await s.agent.post('/api/v1/me/two-factor/recovery-codes').expect(403)).body.error.code).toBe(
        'step_up_required',
      );
      expect((await s.agent.post('/api/v1/me/two-factor/disable').expect(403)).body.error.code).toBe(
        'step_up_required',
      );
      await s.agent
        .post('/api/v1/auth/step-up/request')
        .expect(200)
        .expect((res) => expect(res.body.method).toBe('totp'));
      await s.agent
        .post('/api/v1/auth/step-up/verify')
        .send({ code: totp(t, secret) })
        .expect(204);
      const fresh = (await s.agent.post('/api/v1/me/two-factor/recovery-codes').expect(200)).body
        .recovery_codes as string[];
      expect(fresh).toHaveLength(10);
      expect(fresh).not.toContain(recovery[0]);
      // An old recovery code no longer works; a new one does (once).
      t.clock.advance(31_000);
      expect((await s.agent.post('/api/v1/auth/step-up/verify').send({ code: recovery[0] })).status).toBe(400);
      expect((await s.agent.post('/api/v1/auth/step-up/verify').send({ code: fresh[0] })).status).toBe(204);
      await s.agent
        .get('/api/v1/me/two-factor')
        .expect(200, { enabled: true, recovery_codes_left: 9, required: false });
      await s.agent.post('/api/v1/me/two-factor/disable').expect(204);
      await s.agent
        .get('/api/v1/me/two-factor')
        .expect(200, { enabled: false, recovery_codes_left: 0, required: false });
      await t.mail.waitForTo(s.email, { subject: /desactivada|disabled/ });
      expect(await auditActions(s.user.id)).toEqual(
        expect.arrayContaining(['two_factor.enabled', 'two_factor.disabled']),
      );
      await signIn(t, s.email); // one factor again
    });

    it('409 two_factor_not_enabled for recovery codes and disable without two-factor', async () => {
      const s = await signIn(t);
      await stepUpByEmail(t, s);
      expect((await s.agent.post('/api/v1/me/two-factor/recovery-codes').expect(409)).body.error.code).toBe(
        'two_factor_not_enabled',
      );
      expect((await s.agent.post('/api/v1/me/two-factor/disable').expect(409)).body.error.code).toBe(
        'two_factor_not_enabled',
      );
    });
  });

  describe('step-up', () => {
    it('without two-factor: emails a 6-digit code; verify sets svc_step_up (10 minutes, HttpOnly) bound to this session', async () => {
      const s = await signIn(t);
      const before = t.mail.count();
      const req = await s.agent.post('/api/v1/auth/step-up/request').expect(200);
      expect(req.body).toEqual({ method: 'email_code', expires_at: expect.any(String) });
      const code = codeFrom(await t.mail.waitForTo(s.email, { after: before }));
      const wrong = await s.agent
        .post('/api/v1/auth/step-up/verify')
        .send({ code: code === '000000' ? '000001' : '000000' })
        .expect(400);
      expect(wrong.body.error.code).toBe('invalid_otp');
      const ok = await s.agent.post('/api/v1/auth/step-up/verify').send({ code }).expect(204);
      const cookie = setCookies(ok).get('svc_step_up')!;
      expect(cookie.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/', 'max-age': '600' });
      // Bound to the session: another session of the same person cannot use it.
      const other = await signIn(t, s.email);
      const res = await other.agent
        .post('/api/v1/me/email-change')
        .set('Cookie', `svc_step_up=${cookie.value}`)
        .send({ email: t.nextEmail('x') });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('step_up_required');
    });

    it('the confirmation lasts 10 minutes', async () => {
      const s = await signIn(t);
      await stepUpByEmail(t, s);
      t.clock.advance(10 * MINUTE - 2000);
      await s.agent
        .post('/api/v1/me/email-change')
        .send({ email: t.nextEmail('in-time') })
        .expect(202);
      t.clock.advance(4000);
      // The access token is still valid (15 minutes), the step-up is not.
      const res = await s.agent
        .post('/api/v1/me/email-change')
        .send({ email: t.nextEmail('late') })
        .expect(403);
      expect(res.body.error.code).toBe('step_up_required');
    });

    it('limits step-up requests: 5 per 15 minutes per account, the 6th is 429', async () => {
      const s = await signIn(t);
      for (let i = 0; i < 5; i++) await s.agent.post('/api/v1/auth/step-up/request').expect(200);
      const res = await s.agent.post('/api/v1/auth/step-up/request').expect(429);
      expect(res.headers['retry-after']).toBeDefined();
    });

    it('limits step-up verifications: 10 per 15 minutes per account, the 11th is 429', async () => {
      const s = await signIn(t);
      await s.agent.post('/api/v1/auth/step-up/request').expect(200);
      for (let i = 0; i < 10; i++)
        await s.agent.post('/api/v1/auth/step-up/verify').send({ code: '000000' }).expect(400);
      await s.agent.post('/api/v1/auth/step-up/verify').send({ code: '000000' }).expect(429);
    });

    it('401 without a credential', async () => {
      await t.http().post('/api/v1/auth/step-up/request').expect(401);
      await t.http().post('/api/v1/auth/step-up/verify').send({ code: '123456' }).expect(401);
    });
  });

  describe('email change', () => {
    it('needs a recent step-up (403 step_up_required)', async () => {
      const s = await signIn(t);
      const res = await s.agent
        .post('/api/v1/me/email-change')
        .send({ email: t.nextEmail('n') })
        .expect(403);
      expect(res.body.error.code).toBe('step_up_required');
      await s.agent.post('/api/v1/me/email-change/verify').send({ code: '123456' }).expect(403);
    });

    it('422 same_email for the current address, 422 validation_error for a malformed one', async () => {
      const s = await signIn(t);
      await stepUpByEmail(t, s);
      const same = await s.agent.post('/api/v1/me/email-change').send({ email: s.email.toUpperCase() }).expect(422);
      expect(same.body.error.code).toBe('same_email');
      expect((await s.agent.post('/api/v1/me/email-change').send({ email: 'nope' }).expect(422)).body.error.code).toBe(
        'validation_error',
      );
    });

    it('sends the code to the NEW address; verify changes it, renews the cookies, closes the other sessions and tells the old address', async () => {
      const s = await signIn(t);
      const other = await signIn(t, s.email);
      await stepUpByEmail(t, s);
      const target = t.nextEmail('new-address');
      const res = await s.agent.post('/api/v1/me/email-change').send({ email: target }).expect(202);
      expect(res.body).toEqual({ status: 'sent' });
      const code = codeFrom(await t.mail.waitForTo(target));
      const wrong = await s.agent
        .post('/api/v1/me/email-change/verify')
        .send({ code: code === '000000' ? '000001' : '000000' })
        .expect(400);
      expect(wrong.body.error.code).toBe('invalid_otp');
      const done = await s.agent.post('/api/v1/me/email-change/verify').send({ code }).expect(200);
      expect(done.body.email).toBe(target);
      expect([...setCookies(done).keys()].sort()).toEqual(['access_token', 'refresh_token', 'svc_session']);
      await s.agent
        .get('/api/v1/auth/me')
        .expect(200)
        .expect((r) => expect(r.body.email).toBe(target));
      await other.agent.get('/api/v1/auth/me').expect(401);
      await other.agent.post('/api/v1/auth/refresh').expect(401);
      const notice = await t.mail.waitForTo(s.email, { subject: /ha cambiado|has changed/ });
      expect(notice.text).not.toContain(target); // masked
      await signIn(t, target); // the new address signs in to the same account
      expect(await auditActions(s.user.id)).toContain('user.email_changed');
    });

    it('answers 202 and sends nothing when the address belongs to another account', async () => {
      const s = await signIn(t);
      const taken = await signIn(t);
      await stepUpByEmail(t, s);
      const before = t.mail.to(taken.email).length;
      await s.agent.post('/api/v1/me/email-change').send({ email: taken.email }).expect(202, { status: 'sent' });
      // Any queued mail is delivered well before another one we send now arrives: wait for a marker.
      const marker = t.nextEmail('marker');
      await t.client().post('/api/v1/auth/otp/request').send({ email: marker }).expect(200);
      await t.mail.waitForTo(marker);
      await waitUntil(
        async () => (await t.db.query(`SELECT 1 FROM jobs WHERE status IN ('pending', 'running')`)).length === 0,
      );
      expect(t.mail.to(taken.email)).toHaveLength(before);
      const rows = await t.db.query(`SELECT 1 FROM email_codes WHERE purpose = 'email_change' AND subject = $1`, [
        s.user.id,
      ]);
      expect(rows).toHaveLength(0);
    });

    it('409 email_taken when the address was taken between request and verify', async () => {
      const s = await signIn(t);
      await stepUpByEmail(t, s);
      const target = t.nextEmail('race');
      await s.agent.post('/api/v1/me/email-change').send({ email: target }).expect(202);
      const code = codeFrom(await t.mail.waitForTo(target));
      await signIn(t, target); // someone else signs up with it meanwhile
      const res = await s.agent.post('/api/v1/me/email-change/verify').send({ code }).expect(409);
      expect(res.body.error.code).toBe('email_taken');
      await s.agent
        .get('/api/v1/auth/me')
        .expect(200)
        .expect((r) => expect(r.body.email).toBe(s.email));
    });

    it('limits requests: 5 per hour per account, the 6th is 429', async () => {
      const s = await signIn(t);
      await stepUpByEmail(t, s);
      for (let i = 0; i < 5; i++)
        await s.agent
          .post('/api/v1/me/email-change')
          .send({ email: t.nextEmail('many') })
          .expect(202);
      await s.agent
        .post('/api/v1/me/email-change')
        .send({ email: t.nextEmail('many') })
        .expect(429);
    });

    it('limits verifications: 10 per 15 minutes per account, the 11th is 429', async () => {
      const s = await signIn(t);
      await stepUpByEmail(t, s);
      await s.agent
        .post('/api/v1/me/email-change')
        .send({ email: t.nextEmail('v') })
        .expect(202);
      for (let i = 0; i < 10; i++)
        await s.agent.post('/api/v1/me/email-change/verify').send({ code: '000000' }).expect(400);
      await s.agent.post('/api/v1/me/email-change/verify').send({ code: '000000' }).expect(429);
    });

    it('limits requests: 20 per hour per client address, the 21st is 429', async () => {
      const ip = t.nextIp();
      const people: SignedIn[] = [];
      for (let i = 0; i < 5; i++) {
        const p = await signIn(t);
        await stepUpByEmail(t, p);
        p.agent.set('X-Forwarded-For', ip);
        people.push(p);
      }
      let sent = 0;
      for (const p of people) {
        for (let i = 0; i < 4; i++, sent++)
          await p.agent
            .post('/api/v1/me/email-change')
            .send({ email: t.nextEmail('ipl') })
            .expect(202);
      }
      expect(sent).toBe(20);
      await people[0].agent
        .post('/api/v1/me/email-change')
        .send({ email: t.nextEmail('ipl') })
        .expect(429);
    });
  });

  describe('PATCH /me/profile (section 2 limits)', () => {
    let s: SignedIn;
    beforeAll(async () => {
      s = await signIn(t);
    });

    it('applies only the fields present and returns the User', async () => {
      const res = await s.agent.patch('/api/v1/me/profile').send({ name: 'Ana', headline: 'Teacher' }).expect(200);
      expect(res.body).toMatchObject({
        name: 'Ana',
        headline: 'Teacher',
        bio: null,
        locale: 'es',
        public_profile: false,
      });
      const next = await s.agent.patch('/api/v1/me/profile').send({ bio: 'Hi' }).expect(200);
      expect(next.body).toMatchObject({ name: 'Ana', headline: 'Teacher', bio: 'Hi' });
    });

    it('null clears headline, bio, location and avatar_url', async () => {
      await s.agent
        .patch('/api/v1/me/profile')
        .send({ headline: 'x', bio: 'y', location: 'z', avatar_url: 'https://img.test/a.png' })
        .expect(200);
      const res = await s.agent
        .patch('/api/v1/me/profile')
        .send({ headline: null, bio: null, location: null, avatar_url: null })
        .expect(200);
      expect(res.body).toMatchObject({ headline: null, bio: null, location: null, avatar_url: null });
    });

    it.each([
      ['name', 255],
      ['headline', 160],
      ['bio', 500],
      ['location', 120],
    ])('%s: exactly %i characters is accepted, one more is 422', async (field, max) => {
      await s.agent
        .patch('/api/v1/me/profile')
        .send({ [field]: 'a'.repeat(max) })
        .expect(200);
      const res = await s.agent
        .patch('/api/v1/me/profile')
        .send({ [field]: 'a'.repeat(max + 1) })
        .expect(422);
      expect(res.body.error.details[0].field).toBe(field);
    });

    it('avatar_url: 512 characters is accepted, 513 is 422, and it must be an http(s) URL', async () => {
      const url = (n: number): string => `https://img.test/${'a'.repeat(n - 'https://img.test/'.length)}`;
      await s.agent
        .patch('/api/v1/me/profile')
        .send({ avatar_url: url(512) })
        .expect(200);
      await s.agent
        .patch('/api/v1/me/profile')
        .send({ avatar_url: url(513) })
        .expect(422);
      await s.agent.patch('/api/v1/me/profile').send({ avatar_url: 'javascript:alert(1)' }).expect(422);
    });

    it.each([
      [{ name: null }],
      [{ name: '' }],
      [{ name: '   ' }],
      [{ locale: null }],
      [{ locale: 'fr' }],
      [{ public_profile: null }],
      [{ public_profile: 'yes' }],
      [{ email: 'new@example.test' }],
      [{ password: 'secret' }],
    ])('refuses %p with 422 and changes nothing', async (body) => {
      const before = (await s.agent.get('/api/v1/auth/me').expect(200)).body;
      const res = await s.agent.patch('/api/v1/me/profile').send(body).expect(422);
      expect(res.body.error.code).toBe('validation_error');
      expect((await s.agent.get('/api/v1/auth/me').expect(200)).body).toEqual(before);
    });

    it('locale and public_profile are settable', async () => {
      const res = await s.agent.patch('/api/v1/me/profile').send({ locale: 'en', public_profile: true }).expect(200);
      expect(res.body).toMatchObject({ locale: 'en', public_profile: true });
    });

    it('401 without a credential', async () => {
      await t.http().patch('/api/v1/me/profile').send({ name: 'x' }).expect(401);
    });
  });

  describe('onboarding', () => {
    it('starts incomplete with every first step pending', async () => {
      const s = await signIn(t);
      const res = await s.agent.get('/api/v1/me/onboarding').expect(200);
      expect(res.body).toEqual({
        completed: false,
        first_steps: {
          complete_profile: 'pending',
          customize_avatar: 'pending',
          join_organization: 'pending',
          enroll_course: 'pending',
          enable_two_factor: 'pending',
        },
        first_steps_hidden: false,
      });
    });

    it('422 adult_declaration_required without adult_confirmed: true, and nothing is recorded', async () => {
      const s = await signIn(t);
      for (const body of [
        { name: 'Ana', locale: 'es' },
        { name: 'Ana', locale: 'es', adult_confirmed: false },
      ]) {
        const res = await s.agent.put('/api/v1/me/onboarding').send(body).expect(422);
        expect(res.body.error.code).toBe('adult_declaration_required');
      }
      expect(await t.db.query(`SELECT 1 FROM consents WHERE user_id = $1`, [s.user.id])).toHaveLength(0);
      await s.agent
        .get('/api/v1/me/onboarding')
        .expect(200)
        .expect((r) => expect(r.body.completed).toBe(false));
    });

    it('completes with the declaration recorded as a consent with the terms version', async () => {
      const s = await signIn(t);
      const res = await s.agent
        .put('/api/v1/me/onboarding')
        .send({ name: 'Ana López', locale: 'en', adult_confirmed: true })
        .expect(200);
      expect(res.body.completed).toBe(true);
      const [consent] = await t.db.query(
        `SELECT kind, terms_version, ip_fingerprint FROM consents WHERE user_id = $1`,
        [s.user.id],
      );
      expect(consent).toEqual({
        kind: 'adult_declaration',
        terms_version: '2026-09-01',
        ip_fingerprint: expect.stringMatching(/^[0-9a-f]{32}$/),
      });
      const me = (await s.agent.get('/api/v1/auth/me').expect(200)).body;
      expect(me).toMatchObject({ name: 'Ana López', locale: 'en', onboarding_completed: true });
    });

    it('422 validation_error for a missing name or a bad locale', async () => {
      const s = await signIn(t);
      await s.agent.put('/api/v1/me/onboarding').send({ locale: 'es', adult_confirmed: true }).expect(422);
      await s.agent.put('/api/v1/me/onboarding').send({ name: 'A', locale: 'de', adult_confirmed: true }).expect(422);
    });

    it('first steps: marks done or pending, hides the list, idempotent; unknown steps are 422', async () => {
      const s = await signIn(t);
      const body = { steps: { complete_profile: 'done', enroll_course: 'done' }, hidden: true };
      const a = await s.agent.put('/api/v1/me/onboarding/first-steps').send(body).expect(200);
      const b = await s.agent.put('/api/v1/me/onboarding/first-steps').send(body).expect(200);
      expect(b.body).toEqual(a.body);
      expect(a.body.first_steps).toMatchObject({
        complete_profile: 'done',
        enroll_course: 'done',
        customize_avatar: 'pending',
      });
      expect(a.body.first_steps_hidden).toBe(true);
      const back = await s.agent
        .put('/api/v1/me/onboarding/first-steps')
        .send({ steps: { enroll_course: 'pending' } })
        .expect(200);
      expect(back.body.first_steps.enroll_course).toBe('pending');
      expect(back.body.first_steps_hidden).toBe(true);
      await s.agent
        .put('/api/v1/me/onboarding/first-steps')
        .send({ steps: { fly: 'done' } })
        .expect(422);
      await s.agent
        .put('/api/v1/me/onboarding/first-steps')
        .send({ steps: { complete_profile: 'maybe' } })
        .expect(422);
      await s.agent.put('/api/v1/me/onboarding/first-steps').send({ steps: [] }).expect(422);
    });

    it('GET /me/integrations lists none for a new account', async () => {
      const s = await signIn(t);
      await s.agent.get('/api/v1/me/integrations').expect(200, { items: [] });
      await t.http().get('/api/v1/me/integrations').expect(401);
    });
  });

  describe('impersonation', () => {
    it('a normal session reports no impersonation; ending one is a no-op', async () => {
      const s = await signIn(t);
      await s.agent
        .get('/api/v1/auth/impersonation')
        .expect(200, { active: false, impersonator_id: null, expires_at: null });
      await s.agent.post('/api/v1/auth/impersonation/end').expect(204);
      await s.agent.get('/api/v1/auth/me').expect(200);
      await t.http().get('/api/v1/auth/impersonation').expect(401);
    });

    it('only a platform admin with a recent step-up can start one', async () => {
      const target = await signIn(t);
      const plain = await signIn(t);
      await stepUpByEmail(t, plain);
      expect(
        (await plain.agent.post(`/api/v1/admin/users/${target.user.id}/impersonate`).expect(403)).body.error.code,
      ).toBe('forbidden');
      const admin = await signIn(t, 'admin@ops.test');
      expect(
        (await admin.agent.post(`/api/v1/admin/users/${target.user.id}/impersonate`).expect(403)).body.error.code,
      ).toBe('step_up_required');
      await stepUpByEmail(t, admin);
      await admin.agent.post('/api/v1/admin/users/00000000-0000-4000-8000-000000000000/impersonate').expect(404);
      await admin.agent.post('/api/v1/admin/users/not-a-uuid/impersonate').expect(404);
      await admin.agent.post(`/api/v1/admin/users/${admin.user.id}/impersonate`).expect(422);
    });

    it('opens a marked, time-limited session of the person that cannot change email, two-factor or tokens; audited; end clears it', async () => {
      const target = await signIn(t);
      const admin = await signIn(t, 'admin2@ops.test');
      await stepUpByEmail(t, admin);
      const start = await admin.agent.post(`/api/v1/admin/users/${target.user.id}/impersonate`).expect(200);
      expect(start.body).toEqual({ active: true, impersonator_id: admin.user.id, expires_at: expect.any(String) });
      expect(new Date(start.body.expires_at).getTime() - t.clock.nowMs()).toBeGreaterThan(29 * MINUTE);
      const as = admin.agent; // now carries the impersonated session's cookies
      await as
        .get('/api/v1/auth/me')
        .expect(200)
        .expect((r) => expect(r.body.id).toBe(target.user.id));
      await as
        .get('/api/v1/auth/impersonation')
        .expect(200)
        .expect((r) => expect(r.body).toMatchObject({ active: true, impersonator_id: admin.user.id }));
      expect((await as.post('/api/v1/me/two-factor/setup').expect(403)).body.error.code).toBe(
        'impersonation_restricted',
      );
      await stepUpByEmail(t, { ...admin, email: target.email }); // the code goes to the person; here the test reads it
      expect(
        (
          await as
            .post('/api/v1/me/email-change')
            .send({ email: t.nextEmail('imp') })
            .expect(403)
        ).body.error.code,
      ).toBe('impersonation_restricted');
      const actions = await t.db.query(`SELECT action, actor_id, target_id FROM audit_log WHERE target_id = $1`, [
        target.user.id,
      ]);
      expect(actions).toContainEqual({
        action: 'user.impersonation_started',
        actor_id: admin.user.id,
        target_id: target.user.id,
      });
      const end = await as.post('/api/v1/auth/impersonation/end').expect(204);
      expect(setCookies(end).get('access_token')!.attributes['max-age']).toBe('0');
      await as.get('/api/v1/auth/me').expect(401);
      const after = await t.db.query(
        `SELECT action FROM audit_log WHERE target_id = $1 AND action = 'user.impersonation_ended'`,
        [target.user.id],
      );
      expect(after).toHaveLength(1);
      await target.agent.get('/api/v1/auth/me').expect(200); // the person's own session is untouched
    });

    it('ends by itself after 30 minutes', async () => {
      const target = await signIn(t);
      const admin = await signIn(t, 'admin@ops.test');
      await stepUpByEmail(t, admin);
      await admin.agent.post(`/api/v1/admin/users/${target.user.id}/impersonate`).expect(200);
      t.clock.advance(14 * MINUTE);
      await admin.agent.post('/api/v1/auth/refresh').expect(200);
      t.clock.advance(17 * MINUTE);
      await admin.agent.post('/api/v1/auth/refresh').expect(401);
    });
  });
});
