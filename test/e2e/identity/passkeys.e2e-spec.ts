import { randomUUID } from 'node:crypto';
import WebAuthnEmulator, {
  AuthenticatorEmulator,
  deserializeCredential,
  PasskeysCredentialsMemoryRepository,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  serializeCredential,
} from 'nid-webauthn-emulator';
import type TestAgent from 'supertest/lib/agent';
import { PasskeysPersonalData } from '@/modules/identity/passkeys/testing';
import { UsersRepository } from '@/modules/identity/users/testing';
import { requestSignInCode, setCookies, type SignedIn, signIn, stepUpByEmail, totp } from '../../support/auth';
import { adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** The test app's `WEB_URL`: the RP ID is its host, the expected origin its origin. */
const ORIGIN = 'http://web.test';
const RP_ID = 'web.test';
/** An extra origin allowed by `WEBAUTHN_ORIGINS`. */
const EXTRA_ORIGIN = 'http://learn.web.test';
const FIVE_MINUTES = 5 * 60_000;

/** A security key or phone: a software CTAP2 authenticator with a credential store of its own. */
function device(
  options: { repository?: PasskeysCredentialsMemoryRepository; userVerification?: boolean } = {},
): WebAuthnEmulator {
  const uv = options.userVerification ?? true;
  return new WebAuthnEmulator(
    new AuthenticatorEmulator({
      credentialsRepository: options.repository ?? new PasskeysCredentialsMemoryRepository(),
      userMakeCredentialInteraction: () => ({ options: { uv, up: true } }),
      userGetAssertionInteraction: () => ({ options: { uv, up: true } }),
    }),
  );
}

/** The same authenticator, copied: its keys and its counter as they are now. */
function cloneOf(original: PasskeysCredentialsMemoryRepository): PasskeysCredentialsMemoryRepository {
  const copy = new PasskeysCredentialsMemoryRepository();
  for (const c of original.loadCredentials()) copy.saveCredential(deserializeCredential(serializeCredential(c)));
  return copy;
}

/** The same keys, presented for another relying party (what a phishing site's RP ID would make them sign). */
function presentedFor(
  original: PasskeysCredentialsMemoryRepository,
  rpId: string,
): PasskeysCredentialsMemoryRepository {
  const copy = new PasskeysCredentialsMemoryRepository();
  for (const c of original.loadCredentials()) {
    const json = JSON.parse(serializeCredential(c)) as { publicKeyCredentialSource: { rpId: string } };
    json.publicKeyCredentialSource.rpId = rpId;
    copy.saveCredential(deserializeCredential(JSON.stringify(json)));
  }
  return copy;
}

async function registrationOptions(agent: TestAgent): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return (await agent.post('/api/v1/me/passkeys/registration-options').expect(200))
    .body as PublicKeyCredentialCreationOptionsJSON;
}

/** Adds a passkey as a browser does: options, `navigator.credentials.create`, the answer posted back. */
async function register(
  s: SignedIn,
  authenticator = device(),
  name?: string,
): Promise<{ authenticator: WebAuthnEmulator; passkey: Record<string, unknown> }> {
  const options = await registrationOptions(s.agent);
  const response = authenticator.createJSON(ORIGIN, options);
  const res = await s.agent
    .post('/api/v1/me/passkeys')
    .send(name ? { response, name } : { response })
    .expect(201);
  return { authenticator, passkey: res.body as Record<string, unknown> };
}

interface SignInOptions {
  challenge_id: string;
  options: PublicKeyCredentialRequestOptionsJSON;
}

async function signInOptions(agent: TestAgent): Promise<SignInOptions> {
  return (await agent.post('/api/v1/auth/passkeys/options').expect(200)).body as SignInOptions;
}

/** Passwordless sign-in as a browser does it; answers the verify response. */
async function passkeySignIn(t: TestApp, authenticator: WebAuthnEmulator, agent = t.client()) {
  const { challenge_id, options } = await signInOptions(agent);
  const response = authenticator.getJSON(ORIGIN, options);
  return agent.post('/api/v1/auth/passkeys/verify').send({ challenge_id, response });
}

async function auditRows(t: TestApp, action: string, targetId: string): Promise<{ actor_id: string | null }[]> {
  return t.db.query(`SELECT actor_id FROM audit_log WHERE action = $1 AND target_id = $2`, [action, targetId]);
}

/** A signed-in adult with a recent step-up (by the emailed code). */
async function steppedUp(t: TestApp, email?: string): Promise<SignedIn> {
  const s = await adult(t, email);
  await stepUpByEmail(t, s);
  return s;
}

describe('Passkeys (extensions-v3 3) with a software CTAP2 authenticator', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      env: { WEBAUTHN_ORIGINS: EXTRA_ORIGIN, PLATFORM_ADMIN_EMAILS: 'passkeys-admin@ops.test' },
    });
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  describe('registration', () => {
    it('offers creation options for a discoverable credential, excluding the person’s passkeys', async () => {
      const s = await steppedUp(t);
      const first = await registrationOptions(s.agent);
      expect(first).toMatchObject({
        rp: { id: RP_ID, name: 'Learning Platform' },
        user: { name: s.email },
        attestation: 'none',
        excludeCredentials: [],
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      });
      expect(Buffer.from(first.challenge, 'base64url')).toHaveLength(32);
      const { passkey } = await register(s);
      const second = await registrationOptions(s.agent);
      const [stored] = await t.db.query(`SELECT credential_id FROM passkeys WHERE id = $1`, [passkey.id]);
      expect(second.excludeCredentials).toEqual([
        expect.objectContaining({ id: stored.credential_id, type: 'public-key' }),
      ]);
      expect(second.challenge).not.toBe(first.challenge);
    });

    it('registers: 201 passkey, audited, a security notice emailed, listed without keys', async () => {
      const s = await steppedUp(t);
      const before = t.mail.count();
      const { passkey } = await register(s, device(), 'Laptop');
      expect(passkey).toEqual({
        id: expect.any(String),
        name: 'Laptop',
        created_at: expect.any(String),
        last_used_at: null,
        device_type: 'multi_device',
        backed_up: true,
        transports: ['usb'],
        disabled_at: null,
      });
      expect(await auditRows(t, 'passkey.registered', passkey.id as string)).toEqual([{ actor_id: s.user.id }]);
      const mail = await t.mail.waitForTo(s.email, { after: before, subject: /llave de acceso/ });
      expect(mail.text).toContain('Laptop');
      const list = await s.agent.get('/api/v1/me/passkeys').expect(200);
      expect(list.body).toEqual({ items: [passkey] });
    });

    it('names a passkey "Passkey <n>" when no name is given; the name is 1..60 characters', async () => {
      const s = await steppedUp(t);
      expect((await register(s)).passkey.name).toBe('Passkey 1');
      expect((await register(s)).passkey.name).toBe('Passkey 2');
      const options = await registrationOptions(s.agent);
      const response = device().createJSON(ORIGIN, options);
      const long = await s.agent
        .post('/api/v1/me/passkeys')
        .send({ response, name: 'x'.repeat(61) })
        .expect(422);
      expect(long.body.error.code).toBe('validation_error');
      await s.agent
        .post('/api/v1/me/passkeys')
        .send({ response, name: 'x'.repeat(60) })
        .expect(201);
    });

    it('accepts an origin of WEBAUTHN_ORIGINS', async () => {
      const s = await steppedUp(t);
      const options = await registrationOptions(s.agent);
      const response = device().createJSON(EXTRA_ORIGIN, options);
      await s.agent.post('/api/v1/me/passkeys').send({ response }).expect(201);
    });

    it('422 passkey_verification_failed: wrong origin', async () => {
      const s = await steppedUp(t);
      const options = await registrationOptions(s.agent);
      const response = device().createJSON('http://evil.test', options, ['http://evil.test']);
      const res = await s.agent.post('/api/v1/me/passkeys').send({ response }).expect(422);
      expect(res.body.error.code).toBe('passkey_verification_failed');
      expect(await t.db.query(`SELECT 1 FROM passkeys WHERE user_id = $1`, [s.user.id])).toHaveLength(0);
    });

    it('422 passkey_verification_failed: wrong RP ID', async () => {
      const s = await steppedUp(t);
      const options = await registrationOptions(s.agent);
      const response = device().createJSON(ORIGIN, { ...options, rp: { ...options.rp, id: 'other.test' } }, [ORIGIN]);
      const res = await s.agent.post('/api/v1/me/passkeys').send({ response }).expect(422);
      expect(res.body.error.code).toBe('passkey_verification_failed');
    });

    it('422 passkey_verification_failed: a challenge never issued, used, of another session, or expired', async () => {
      const s = await steppedUp(t);
      const options = await registrationOptions(s.agent);
      const forged = device().createJSON(ORIGIN, { ...options, challenge: Buffer.alloc(32, 1).toString('base64url') });
      expect((await s.agent.post('/api/v1/me/passkeys').send({ response: forged }).expect(422)).body.error.code).toBe(
        'passkey_verification_failed',
      );

      // Another session of the same person cannot answer this session's challenge.
      const other = await signIn(t, s.email);
      await stepUpByEmail(t, other);
      const foreign = device().createJSON(ORIGIN, options);
      await other.agent.post('/api/v1/me/passkeys').send({ response: foreign }).expect(422);

      // Expired: 5 minutes by the clock.
      const late = await registrationOptions(s.agent);
      const lateResponse = device().createJSON(ORIGIN, late);
      t.clock.advance(FIVE_MINUTES + 1000);
      await stepUpByEmail(t, s);
      const expired = await s.agent.post('/api/v1/me/passkeys').send({ response: lateResponse }).expect(422);
      expect(expired.body.error.code).toBe('passkey_verification_failed');
    });

    it('409 passkey_exists for a credential already registered', async () => {
      const s = await steppedUp(t);
      const options = await registrationOptions(s.agent);
      const response = device().createJSON(ORIGIN, options);
      await s.agent.post('/api/v1/me/passkeys').send({ response }).expect(201);
      const again = await s.agent.post('/api/v1/me/passkeys').send({ response }).expect(409);
      expect(again.body.error.code).toBe('passkey_exists');
    });

    it('10 passkeys at most: the 10th is added, the 11th is 409 passkey_limit_reached', async () => {
      const s = await steppedUp(t);
      for (let i = 0; i < 9; i++) await register(s);
      const tenth = await registrationOptions(s.agent);
      const eleventh = await registrationOptions(s.agent);
      await s.agent
        .post('/api/v1/me/passkeys')
        .send({ response: device().createJSON(ORIGIN, tenth) })
        .expect(201);
      const refused = await s.agent
        .post('/api/v1/me/passkeys')
        .send({ response: device().createJSON(ORIGIN, eleventh) })
        .expect(409);
      expect(refused.body.error.code).toBe('passkey_limit_reached');
      const options = await s.agent.post('/api/v1/me/passkeys/registration-options').expect(409);
      expect(options.body.error.code).toBe('passkey_limit_reached');
      expect((await s.agent.get('/api/v1/me/passkeys').expect(200)).body.items).toHaveLength(10);
    });

    it('needs a step-up (403 step_up_required) and a browser session (403 forbidden for a token)', async () => {
      const s = await adult(t);
      const res = await s.agent.post('/api/v1/me/passkeys/registration-options').expect(403);
      expect(res.body.error.code).toBe('step_up_required');
      const org = await createOrganization(t, s);
      const token = await personalToken(t, s, org, 'write');
      const list = await bearer(t, token).get('/api/v1/me/passkeys').expect(403);
      expect(list.body.error.code).toBe('forbidden');
      await t.client().get('/api/v1/me/passkeys').expect(401);
    });

    it('a minor may add a passkey to their own account', async () => {
      const s = await signIn(t);
      await t.app.get(UsersRepository).update(s.user.id, { ageBracket: 'under_18' }, t.clock.now());
      await stepUpByEmail(t, s);
      const { passkey } = await register(s);
      await s.agent
        .patch(`/api/v1/me/passkeys/${passkey.id as string}`)
        .send({ name: 'Mine' })
        .expect(200);
    });
  });

  describe('rename and delete', () => {
    it('renames; another person’s passkey is 404', async () => {
      const s = await steppedUp(t);
      const { passkey } = await register(s);
      const res = await s.agent
        .patch(`/api/v1/me/passkeys/${passkey.id as string}`)
        .send({ name: '  Phone ' })
        .expect(200);
      expect(res.body).toEqual({ ...passkey, name: 'Phone' });
      const other = await adult(t);
      await other.agent
        .patch(`/api/v1/me/passkeys/${passkey.id as string}`)
        .send({ name: 'Mine' })
        .expect(404);
      await s.agent
        .patch(`/api/v1/me/passkeys/${passkey.id as string}`)
        .send({ name: '' })
        .expect(422);
      await s.agent.patch(`/api/v1/me/passkeys/not-a-uuid`).send({ name: 'x' }).expect(404);
    });

    it('deletes with a step-up: 204, audited, emailed; it no longer signs in; another person’s is 404', async () => {
      const s = await steppedUp(t);
      const { passkey, authenticator } = await register(s);
      const other = await steppedUp(t);
      await other.agent.delete(`/api/v1/me/passkeys/${passkey.id as string}`).expect(404);
      const before = t.mail.count();
      await s.agent.delete(`/api/v1/me/passkeys/${passkey.id as string}`).expect(204);
      expect(await auditRows(t, 'passkey.deleted', passkey.id as string)).toEqual([{ actor_id: s.user.id }]);
      await t.mail.waitForTo(s.email, { after: before, subject: /eliminado una llave/ });
      expect((await s.agent.get('/api/v1/me/passkeys').expect(200)).body.items).toEqual([]);
      const signInAgain = await passkeySignIn(t, authenticator);
      expect(signInAgain.status).toBe(401);
      expect(signInAgain.body.error.code).toBe('passkey_invalid');
      await s.agent.delete(`/api/v1/me/passkeys/${passkey.id as string}`).expect(404);
    });

    it('delete needs a step-up', async () => {
      const s = await steppedUp(t);
      const { passkey } = await register(s);
      const fresh = await signIn(t, s.email);
      const res = await fresh.agent.delete(`/api/v1/me/passkeys/${passkey.id as string}`).expect(403);
      expect(res.body.error.code).toBe('step_up_required');
    });

    it('impersonation cannot add or remove passkeys (403 impersonation_restricted)', async () => {
      const target = await steppedUp(t);
      const { passkey } = await register(target);
      const admin = await signIn(t, 'passkeys-admin@ops.test');
      await stepUpByEmail(t, admin);
      await admin.agent.post(`/api/v1/admin/users/${target.user.id}/impersonate`).expect(200);
      for (const res of [
        await admin.agent.post('/api/v1/me/passkeys/registration-options'),
        await admin.agent.post('/api/v1/me/passkeys').send({}),
        await admin.agent.delete(`/api/v1/me/passkeys/${passkey.id as string}`),
      ]) {
        expect({ status: res.status, code: res.body.error?.code }).toEqual({
          status: 403,
          code: 'impersonation_restricted',
        });
      }
    });
  });

  describe('passwordless sign-in', () => {
    it('options: discoverable credentials, user verification required, a challenge id', async () => {
      const { challenge_id, options } = await signInOptions(t.client());
      expect(challenge_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(options).toMatchObject({ rpId: RP_ID, allowCredentials: [], userVerification: 'required' });
      expect(Buffer.from(options.challenge, 'base64url')).toHaveLength(32);
    });

    it('signs in with the answer and cookies of email-code sign-in; the counter and last use are kept', async () => {
      const s = await steppedUp(t);
      const { authenticator, passkey } = await register(s);
      const agent = t.client();
      const res = await passkeySignIn(t, authenticator, agent);
      expect(res.status).toBe(200);
      const byCode = await agent.get('/api/v1/auth/me').expect(200);
      expect(res.body).toEqual(byCode.body);
      expect(res.body.id).toBe(s.user.id);
      const cookies = setCookies(res);
      for (const name of ['access_token', 'refresh_token', 'svc_session']) expect(cookies.has(name)).toBe(true);
      const [row] = await t.db.query(`SELECT counter, last_used_at FROM passkeys WHERE id = $1`, [passkey.id]);
      expect(row).toEqual({ counter: '1', last_used_at: expect.any(Date) });
    });

    it('both factors at once: a two-factor account gets its session without the TOTP step', async () => {
      const s = await steppedUp(t);
      const { authenticator } = await register(s);
      const setup = await s.agent.post('/api/v1/me/two-factor/setup').expect(200);
      await s.agent
        .post('/api/v1/me/two-factor/enable')
        .send({ code: totp(t, setup.body.secret as string) })
        .expect(200);
      const res = await passkeySignIn(t, authenticator);
      expect(res.status).toBe(200);
      expect(setCookies(res).has('svc_2fa')).toBe(false);
    });

    it('401 challenge_expired: a replayed, an expired or an unknown challenge', async () => {
      const s = await steppedUp(t);
      const { authenticator } = await register(s);
      const agent = t.client();
      const { challenge_id, options } = await signInOptions(agent);
      const response = authenticator.getJSON(ORIGIN, options);
      await agent.post('/api/v1/auth/passkeys/verify').send({ challenge_id, response }).expect(200);
      const replay = await t.client().post('/api/v1/auth/passkeys/verify').send({ challenge_id, response });
      expect({ status: replay.status, code: replay.body.error.code }).toEqual({
        status: 401,
        code: 'challenge_expired',
      });

      const late = await signInOptions(agent);
      const lateResponse = authenticator.getJSON(ORIGIN, late.options);
      t.clock.advance(FIVE_MINUTES + 1000);
      const expired = await agent
        .post('/api/v1/auth/passkeys/verify')
        .send({ challenge_id: late.challenge_id, response: lateResponse });
      expect({ status: expired.status, code: expired.body.error.code }).toEqual({
        status: 401,
        code: 'challenge_expired',
      });

      const unknown = await agent
        .post('/api/v1/auth/passkeys/verify')
        .send({ challenge_id: randomUUID(), response: lateResponse });
      expect(unknown.body.error.code).toBe('challenge_expired');
    });

    it('401 passkey_invalid: wrong origin, wrong RP ID, another challenge, no user verification, unknown passkey', async () => {
      const s = await steppedUp(t);
      const repository = new PasskeysCredentialsMemoryRepository();
      const authenticator = device({ repository });
      await register(s, authenticator);
      const attempt = async (answer: (o: SignInOptions) => unknown): Promise<void> => {
        const agent = t.client();
        const o = await signInOptions(agent);
        const res = await agent
          .post('/api/v1/auth/passkeys/verify')
          .send({ challenge_id: o.challenge_id, response: answer(o) });
        expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 401, code: 'passkey_invalid' });
        expect(setCookies(res).has('access_token')).toBe(false);
      };
      await attempt((o) => authenticator.getJSON('http://evil.test', o.options, ['http://evil.test']));
      const elsewhere = device({ repository: presentedFor(repository, 'other.test') });
      await attempt((o) => elsewhere.getJSON(ORIGIN, { ...o.options, rpId: 'other.test' }, [ORIGIN]));
      // The answer to another (live) challenge, sent with this challenge's id.
      const other = await signInOptions(t.client());
      await attempt(() => authenticator.getJSON(ORIGIN, other.options));
      await attempt((o) => device({ repository, userVerification: false }).getJSON(ORIGIN, o.options));
      // A passkey never registered here (registered on another relying party's challenge only).
      const stranger = device();
      stranger.createJSON(ORIGIN, await registrationOptions(s.agent));
      await attempt((o) => stranger.getJSON(ORIGIN, o.options));
    });

    it('a counter that goes back is a clone: 401, the passkey disabled, audited, the person told', async () => {
      const s = await steppedUp(t);
      const original = new PasskeysCredentialsMemoryRepository();
      const { passkey } = await register(s, device({ repository: original }));
      expect((await passkeySignIn(t, device({ repository: original }))).status).toBe(200);
      const copy = cloneOf(original);
      expect((await passkeySignIn(t, device({ repository: original }))).status).toBe(200);
      const before = t.mail.count();
      const cloned = await passkeySignIn(t, device({ repository: copy }));
      expect({ status: cloned.status, code: cloned.body.error.code }).toEqual({
        status: 401,
        code: 'passkey_invalid',
      });
      const [row] = await t.db.query(`SELECT counter, disabled_at, disabled_reason FROM passkeys WHERE id = $1`, [
        passkey.id,
      ]);
      expect(row).toEqual({ counter: '2', disabled_at: expect.any(Date), disabled_reason: 'clone_detected' });
      expect(await auditRows(t, 'passkey.clone_detected', passkey.id as string)).toHaveLength(1);
      await t.mail.waitForTo(s.email, { after: before, subject: /desactivado una llave/ });
      // Disabled for the original too, until the person removes it and adds a new one.
      expect((await passkeySignIn(t, device({ repository: original }))).body.error.code).toBe('passkey_invalid');
      const listed = (await s.agent.get('/api/v1/me/passkeys').expect(200)).body.items;
      expect(listed[0].disabled_at).toEqual(expect.any(String));
    });

    it('403 sso_required where the person’s email domain enforces SSO', async () => {
      const owner = await adult(t);
      const org = await createOrganization(t, owner);
      const domain = `sso-${randomUUID().slice(0, 8)}.test`;
      const s = await steppedUp(t, `ana@${domain}`);
      const { authenticator } = await register(s);
      await t.db.query(
        `INSERT INTO sso_domains (organization_id, domain, status, verification_token, enforced, verified_at)
         VALUES ($1, $2, 'verified', 'x', true, now())`,
        [org, domain],
      );
      const res = await passkeySignIn(t, authenticator);
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: 'sso_required' });
      expect(setCookies(res).has('access_token')).toBe(false);
    });

    it('403 account_suspended for an account that can no longer sign in', async () => {
      const s = await steppedUp(t);
      const { authenticator } = await register(s);
      await t.app.get(UsersRepository).update(s.user.id, { erasedAt: t.clock.now() }, t.clock.now());
      const res = await passkeySignIn(t, authenticator);
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: 'account_suspended' });
    });

    it('limits options to 30 and verifications to 10 per 15 minutes per client address', async () => {
      const agent = t.client();
      for (let i = 0; i < 30; i++) await agent.post('/api/v1/auth/passkeys/options').expect(200);
      const over = await agent.post('/api/v1/auth/passkeys/options').expect(429);
      expect(over.body.error.code).toBe('too_many_requests');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);

      const verifier = t.client();
      const body = {
        challenge_id: randomUUID(),
        response: {
          id: 'AA',
          rawId: 'AA',
          type: 'public-key',
          clientExtensionResults: {},
          response: { clientDataJSON: 'AA', authenticatorData: 'AA', signature: 'AA' },
        },
      };
      for (let i = 0; i < 10; i++) await verifier.post('/api/v1/auth/passkeys/verify').send(body).expect(401);
      await verifier.post('/api/v1/auth/passkeys/verify').send(body).expect(429);
    });

    it('422 validation_error for a body that is not an AuthenticationResponseJSON', async () => {
      const res = await t
        .client()
        .post('/api/v1/auth/passkeys/verify')
        .send({ challenge_id: randomUUID(), response: { id: 'AA' } })
        .expect(422);
      expect(res.body.error.code).toBe('validation_error');
    });
  });

  describe('second factor of an email-code sign-in', () => {
    async function twoFactorPerson(): Promise<{ s: SignedIn; authenticator: WebAuthnEmulator }> {
      const s = await steppedUp(t);
      const { authenticator } = await register(s);
      const setup = await s.agent.post('/api/v1/me/two-factor/setup').expect(200);
      await s.agent
        .post('/api/v1/me/two-factor/enable')
        .send({ code: totp(t, setup.body.secret as string) })
        .expect(200);
      return { s, authenticator };
    }

    async function pending(s: SignedIn): Promise<TestAgent> {
      const agent = t.client();
      const code = await requestSignInCode(t, agent, s.email);
      const res = await agent.post('/api/v1/auth/otp/verify').send({ email: s.email, code }).expect(401);
      expect(res.body.error.code).toBe('two_factor_required');
      return agent;
    }

    it('completes the sign-in as a TOTP code would', async () => {
      const { s, authenticator } = await twoFactorPerson();
      const agent = await pending(s);
      const options = (await agent.post('/api/v1/auth/two-factor/passkey/options').expect(200))
        .body as PublicKeyCredentialRequestOptionsJSON;
      expect(options.allowCredentials).toHaveLength(1);
      const response = authenticator.getJSON(ORIGIN, options);
      const res = await agent.post('/api/v1/auth/two-factor/passkey/verify').send({ response }).expect(200);
      expect(res.body.id).toBe(s.user.id);
      const cookies = setCookies(res);
      expect(cookies.get('svc_2fa')?.value).toBe('');
      expect(cookies.has('access_token')).toBe(true);
      await agent.get('/api/v1/auth/me').expect(200);
      // The challenge is spent: the same answer again is refused.
      await agent.post('/api/v1/auth/two-factor/passkey/verify').send({ response }).expect(401);
    });

    it('needs the pending two-factor state (401 without it)', async () => {
      await t.client().post('/api/v1/auth/two-factor/passkey/options').expect(401);
    });

    it('refuses another person’s passkey (401 passkey_invalid) and keeps the challenge pending', async () => {
      const { s, authenticator } = await twoFactorPerson();
      const stranger = await steppedUp(t);
      const { authenticator: theirs } = await register(stranger);
      const agent = await pending(s);
      const options = (await agent.post('/api/v1/auth/two-factor/passkey/options').expect(200))
        .body as PublicKeyCredentialRequestOptionsJSON;
      const response = theirs.getJSON(ORIGIN, { ...options, allowCredentials: [] });
      const res = await agent.post('/api/v1/auth/two-factor/passkey/verify').send({ response }).expect(401);
      expect(res.body.error.code).toBe('passkey_invalid');
      expect(setCookies(res).has('access_token')).toBe(false);
      // The sign-in is still pending: the person's own passkey completes it.
      const again = (await agent.post('/api/v1/auth/two-factor/passkey/options').expect(200))
        .body as PublicKeyCredentialRequestOptionsJSON;
      const own = authenticator.getJSON(ORIGIN, again);
      await agent.post('/api/v1/auth/two-factor/passkey/verify').send({ response: own }).expect(200);
    });

    it('an expired passkey challenge is 401 challenge_expired', async () => {
      const { s, authenticator } = await twoFactorPerson();
      const agent = await pending(s);
      const options = (await agent.post('/api/v1/auth/two-factor/passkey/options').expect(200))
        .body as PublicKeyCredentialRequestOptionsJSON;
      const response = authenticator.getJSON(ORIGIN, options);
      t.clock.advance(FIVE_MINUTES + 1000);
      // The sign-in challenge (also 5 minutes) expired too: the whole sign-in starts again.
      await agent.post('/api/v1/auth/two-factor/passkey/verify').send({ response }).expect(401);
    });
  });

  describe('step-up with a passkey', () => {
    it('sets svc_step_up for this session, which then passes @StepUp routes', async () => {
      const s = await steppedUp(t);
      const { authenticator } = await register(s);
      const fresh = await signIn(t, s.email);
      await fresh.agent.post('/api/v1/me/passkeys/registration-options').expect(403);
      const options = (await fresh.agent.post('/api/v1/auth/step-up/passkey/options').expect(200))
        .body as PublicKeyCredentialRequestOptionsJSON;
      expect(options).toMatchObject({ rpId: RP_ID, userVerification: 'required' });
      expect(options.allowCredentials).toHaveLength(1);
      const response = authenticator.getJSON(ORIGIN, options);
      const res = await fresh.agent.post('/api/v1/auth/step-up/passkey/verify').send({ response }).expect(200);
      expect(res.body).toEqual({ status: 'confirmed' });
      expect(setCookies(res).has('svc_step_up')).toBe(true);
      await fresh.agent.post('/api/v1/me/passkeys/registration-options').expect(200);
      // Single use.
      const again = await fresh.agent.post('/api/v1/auth/step-up/passkey/verify').send({ response }).expect(401);
      expect(again.body.error.code).toBe('challenge_expired');
    });

    it('refuses another person’s passkey and an answer without user verification', async () => {
      const s = await steppedUp(t);
      const repository = new PasskeysCredentialsMemoryRepository();
      await register(s, device({ repository }));
      const stranger = await steppedUp(t);
      const { authenticator: theirs } = await register(stranger);
      const fresh = await signIn(t, s.email);
      const options = (await fresh.agent.post('/api/v1/auth/step-up/passkey/options').expect(200))
        .body as PublicKeyCredentialRequestOptionsJSON;
      const foreign = theirs.getJSON(ORIGIN, { ...options, allowCredentials: [] });
      const res = await fresh.agent.post('/api/v1/auth/step-up/passkey/verify').send({ response: foreign });
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 401, code: 'passkey_invalid' });
      const next = (await fresh.agent.post('/api/v1/auth/step-up/passkey/options').expect(200))
        .body as PublicKeyCredentialRequestOptionsJSON;
      const unverified = device({ repository, userVerification: false }).getJSON(ORIGIN, next);
      const noUv = await fresh.agent.post('/api/v1/auth/step-up/passkey/verify').send({ response: unverified });
      expect(noUv.body.error.code).toBe('passkey_invalid');
      expect(setCookies(noUv).has('svc_step_up')).toBe(false);
      await fresh.agent.post('/api/v1/me/passkeys/registration-options').expect(403);
    });

    it('a challenge of another session is 401 challenge_expired', async () => {
      const s = await steppedUp(t);
      const { authenticator } = await register(s);
      const one = await signIn(t, s.email);
      const two = await signIn(t, s.email);
      const options = (await one.agent.post('/api/v1/auth/step-up/passkey/options').expect(200))
        .body as PublicKeyCredentialRequestOptionsJSON;
      const response = authenticator.getJSON(ORIGIN, options);
      const res = await two.agent.post('/api/v1/auth/step-up/passkey/verify').send({ response }).expect(401);
      expect(res.body.error.code).toBe('challenge_expired');
    });
  });

  describe('personal data', () => {
    it('exports passkeys without keys, and erases them with their challenges', async () => {
      const s = await steppedUp(t);
      const { passkey } = await register(s, device(), 'Laptop');
      await registrationOptions(s.agent);
      const handler = t.app.get(PasskeysPersonalData);
      const rows = await handler.export(s.user.id, t.db.manager);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: passkey.id, name: 'Laptop', device_type: 'multi_device' });
      expect(Object.keys(rows[0]).sort()).toEqual(
        ['backed_up', 'created_at', 'device_type', 'disabled_at', 'id', 'last_used_at', 'name', 'transports'].sort(),
      );
      await t.db.transaction((manager) =>
        handler.erase({
          userId: s.user.id,
          now: t.clock.now(),
          keepCertificateNames: false,
          tx: { manager, afterCommit: () => undefined },
        }),
      );
      expect(await t.db.query(`SELECT 1 FROM passkeys WHERE user_id = $1`, [s.user.id])).toHaveLength(0);
      expect(await t.db.query(`SELECT 1 FROM passkey_challenges WHERE user_id = $1`, [s.user.id])).toHaveLength(0);
    });
  });
});

describe('Passkeys switched off (PASSKEYS_ENABLED=false)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PASSKEYS_ENABLED: 'false' } });
  });
  afterAll(() => t.close());

  it('answers 404 feature_disabled on the area’s routes', async () => {
    const s = await signIn(t);
    const calls = [
      await t.client().post('/api/v1/auth/passkeys/options'),
      await t.client().post('/api/v1/auth/passkeys/verify').send({}),
      await t.client().post('/api/v1/auth/two-factor/passkey/options'),
      await s.agent.get('/api/v1/me/passkeys'),
      await s.agent.post('/api/v1/auth/step-up/passkey/options'),
    ];
    for (const res of calls) {
      expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 404, code: 'feature_disabled' });
    }
    // Email-code sign-in is untouched.
    await s.agent.get('/api/v1/auth/me').expect(200);
  });
});
