import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { setCookies, signIn, type SignedIn, totp } from '../../support/auth';
import { type CaughtMail, codeFrom } from '../../support/mail-sink';
import { addMember, adult } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const DAY = 24 * 60 * MINUTE;
const INVITE_SUBJECT = /^(Invitación a|Invitation to) /;
const CODE_SUBJECT = /(unirte a|code to join)/;

interface Org {
  id: string;
  owner: SignedIn;
}

interface Sent {
  id: string;
  token: string;
  email: string;
  mail: CaughtMail;
  body: Record<string, unknown>;
}

describe('Invitations: sending, the link holder (preview, code, verify), acceptance, revocation, lists', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());
  afterEach(() => t.clock.reset());

  const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
  /** A token of the right shape that no invitation has. */
  const unknownToken = (): string => randomBytes(32).toString('base64url');

  async function org(options: { locale?: 'es' | 'en'; owner?: SignedIn; name?: string } = {}): Promise<Org> {
    const owner = options.owner ?? (await adult(t));
    const res = await owner.agent
      .post('/api/v1/organizations')
      .send({ name: options.name ?? 'Escuela Ejemplo', locale: options.locale ?? 'es' })
      .expect(201);
    return { id: res.body.organization.id, owner };
  }

  async function member(o: Org, role: 'admin' | 'teacher' | 'student'): Promise<SignedIn> {
    const s = await adult(t);
    await addMember(t, o.id, s.user.id, role);
    return s;
  }

  function tokenFrom(mail: CaughtMail): string {
    const m = /http:\/\/web\.test\/invitations\/([A-Za-z0-9_-]+)/.exec(mail.text);
    if (!m) throw new Error(`No invitation link in "${mail.subject}"`);
    return m[1];
  }

  async function invite(
    by: SignedIn,
    orgId: string,
    body: { email?: string; role?: string; cohort_id?: string | null } = {},
  ): Promise<Sent> {
    const email = body.email ?? t.nextEmail('invitee');
    const before = t.mail.count();
    const res = await by.agent
      .post(`/api/v1/organizations/${orgId}/members/invite`)
      .send({ ...body, email })
      .expect(201);
    const mail = await t.mail.waitForTo(email, { after: before, subject: INVITE_SUBJECT });
    return { id: res.body.id, token: tokenFrom(mail), email, mail, body: res.body };
  }

  async function requestCode(token: string, email: string): Promise<string> {
    const before = t.mail.count();
    await t.client().post('/api/v1/invitations/code/request').send({ token }).expect(200, { status: 'sent' });
    return codeFrom(await t.mail.waitForTo(email, { after: before, subject: CODE_SUBJECT }));
  }

  async function cohort(orgId: string, name = 'Grupo A'): Promise<string> {
    const [row] = await t.db.query(`INSERT INTO cohorts (organization_id, name) VALUES ($1, $2) RETURNING id`, [
      orgId,
      name,
    ]);
    return row.id as string;
  }

  async function membership(orgId: string, userId: string): Promise<string | null> {
    const rows = await t.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
      orgId,
      userId,
    ]);
    return rows[0]?.role ?? null;
  }

  async function userByEmail(email: string): Promise<Record<string, unknown> | undefined> {
    const rows = await t.db.query(`SELECT id, name, locale, last_organization_id FROM users WHERE email = $1`, [email]);
    return rows[0];
  }

  async function audit(
    orgId: string,
    action: string,
  ): Promise<{ actor_id: string; target_id: string; metadata: object }[]> {
    return t.db.query(
      `SELECT actor_id, target_id, metadata FROM audit_log WHERE organization_id = $1 AND action = $2 ORDER BY created_at`,
      [orgId, action],
    );
  }

  async function enableTwoFactor(s: SignedIn): Promise<string> {
    const setup = await s.agent.post('/api/v1/me/two-factor/setup').expect(200);
    await s.agent
      .post('/api/v1/me/two-factor/enable')
      .send({ code: totp(t, setup.body.secret) })
      .expect(200);
    t.clock.advance(31 * SECOND);
    return setup.body.secret as string;
  }

  /** Moves the clock and renews the sessions of these people (their 15-minute access tokens lapse). */
  async function advance(ms: number, ...people: SignedIn[]): Promise<void> {
    t.clock.advance(ms);
    for (const p of people) await p.agent.post('/api/v1/auth/refresh').expect(200);
  }

  describe('POST /organizations/{org_id}/members/invite', () => {
    it('201 with the invitation; emails the address a link whose token works; only its SHA-256 is stored; audited without personal data', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id, { role: 'teacher' });
      const now = t.clock.nowMs();
      expect(sent.body).toEqual({
        id: expect.any(String),
        email: sent.email,
        role: 'teacher',
        cohort_id: null,
        status: 'pending',
        expires_at: expect.any(String),
      });
      const expiresIn = Date.parse(sent.body.expires_at as string) - now;
      expect(expiresIn).toBeGreaterThan(7 * DAY - MINUTE);
      expect(expiresIn).toBeLessThanOrEqual(7 * DAY);
      // The message went to the invited address only, in the organization's language (no account yet).
      expect(sent.mail.to).toEqual([sent.email]);
      expect(sent.mail.subject).toBe('Invitación a Escuela Ejemplo');
      expect(sent.mail.html).toContain(`http://web.test/invitations/${sent.token}`);
      expect(sent.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(200);
      const [row] = await t.db.query(`SELECT * FROM invitations WHERE id = $1`, [sent.id]);
      expect(row.token_hash).toBe(sha256(sent.token));
      expect(JSON.stringify(row)).not.toContain(sent.token);
      expect(row).toMatchObject({
        organization_id: o.id,
        email: sent.email,
        status: 'pending',
        invited_by: o.owner.user.id,
      });
      const [entry] = await audit(o.id, 'invitation.sent');
      expect(entry).toEqual({
        actor_id: o.owner.user.id,
        target_id: sent.id,
        metadata: {
          invitation_id: sent.id,
          role: 'teacher',
          cohort_id: null,
          replaced_invitation_ids: [],
          import_id: null,
        },
      });
      expect(JSON.stringify(entry)).not.toContain('@');
    });

    it('role defaults to student; the email is in the language of an existing account, else the organization', async () => {
      const o = await org({ locale: 'en' });
      const fresh = await invite(o.owner, o.id);
      expect(fresh.body.role).toBe('student');
      expect(fresh.mail.subject).toBe('Invitation to Escuela Ejemplo');
      const spanishSpeaker = await signIn(t, t.nextEmail('es-speaker'), { locale: 'es' });
      const existing = await invite(o.owner, o.id, { email: spanishSpeaker.email });
      expect(existing.mail.subject).toBe('Invitación a Escuela Ejemplo');
      expect(existing.mail.text).toContain('como estudiante');
    });

    it('409 already_member for a member of the organization', async () => {
      const o = await org();
      const s = await member(o, 'student');
      const res = await o.owner.agent
        .post(`/api/v1/organizations/${o.id}/members/invite`)
        .send({ email: s.email.toUpperCase() })
        .expect(409);
      expect(res.body.error.code).toBe('already_member');
    });

    it('only an owner invites owners and admins: an admin gets 403, but may invite teachers and students', async () => {
      const o = await org();
      const admin = await member(o, 'admin');
      for (const role of ['admin', 'owner']) {
        const res = await admin.agent
          .post(`/api/v1/organizations/${o.id}/members/invite`)
          .send({ email: t.nextEmail(), role })
          .expect(403);
        expect(res.body.error.code).toBe('forbidden');
      }
      await invite(admin, o.id, { role: 'teacher' });
      await invite(admin, o.id, { role: 'student' });
      await invite(o.owner, o.id, { role: 'admin' });
      await invite(o.owner, o.id, { role: 'owner' });
    });

    it("a cohort of the organization is kept; another organization's cohort is 422 on cohort_id", async () => {
      const o = await org();
      const other = await org();
      const mine = await cohort(o.id);
      const sent = await invite(o.owner, o.id, { cohort_id: mine });
      expect(sent.body.cohort_id).toBe(mine);
      const res = await o.owner.agent
        .post(`/api/v1/organizations/${o.id}/members/invite`)
        .send({ email: t.nextEmail(), cohort_id: await cohort(other.id) })
        .expect(422);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toEqual([{ field: 'cohort_id', message: expect.any(String) }]);
      await o.owner.agent
        .post(`/api/v1/organizations/${o.id}/members/invite`)
        .send({ email: t.nextEmail(), cohort_id: null })
        .expect(201);
    });

    it('422 for a bad email, an unknown role, a malformed cohort_id or an unknown field', async () => {
      const o = await org();
      const path = `/api/v1/organizations/${o.id}/members/invite`;
      for (const body of [
        { email: 'not-an-email' },
        {},
        { email: t.nextEmail(), role: 'superuser' },
        { email: t.nextEmail(), cohort_id: 'abc' },
        { email: t.nextEmail(), extra: true },
      ]) {
        const res = await o.owner.agent.post(path).send(body).expect(422);
        expect(res.body.error.code).toBe('validation_error');
      }
    });

    it('a new invitation to the same address replaces the pending one: the old link answers 404', async () => {
      const o = await org();
      const first = await invite(o.owner, o.id);
      const second = await invite(o.owner, o.id, { email: first.email, role: 'teacher' });
      const old = await t.client().post('/api/v1/invitations/preview').send({ token: first.token }).expect(404);
      expect(old.body.error.code).toBe('not_found');
      const res = await t.client().post('/api/v1/invitations/preview').send({ token: second.token }).expect(200);
      expect(res.body.role).toBe('teacher');
      const list = await o.owner.agent.get(`/api/v1/organizations/${o.id}/invitations`).expect(200);
      expect(list.body.items.map((i: { id: string; status: string }) => [i.id, i.status])).toEqual([
        [second.id, 'pending'],
        [first.id, 'revoked'],
      ]);
      const entries = await audit(o.id, 'invitation.sent');
      expect(entries[1].metadata).toMatchObject({ replaced_invitation_ids: [first.id] });
    });
  });

  describe('GET /organizations/{org_id}/invitations', () => {
    it('filters by each status (expired = pending past its time), most recent first, with the list shape', async () => {
      const o = await org();
      const expired = await invite(o.owner, o.id);
      await advance(7 * DAY + SECOND, o.owner);
      const accepted = await invite(o.owner, o.id);
      const revoked = await invite(o.owner, o.id);
      const pending = await invite(o.owner, o.id, { role: 'teacher' });
      const invitee = await signIn(t, accepted.email);
      await invitee.agent.post('/api/v1/invitations/accept').send({ token: accepted.token }).expect(200);
      await o.owner.agent.delete(`/api/v1/organizations/${o.id}/invitations/${revoked.id}`).expect(204);

      const list = (query: string) =>
        o.owner.agent.get(`/api/v1/organizations/${o.id}/invitations${query}`).expect(200);
      const all = await list('');
      expect(all.body).toMatchObject({ total: 4, limit: 50, offset: 0 });
      expect(all.body.items.map((i: { id: string }) => i.id)).toEqual([
        pending.id,
        revoked.id,
        accepted.id,
        expired.id,
      ]);
      expect(all.body.items[0]).toEqual({
        id: pending.id,
        email: pending.email,
        role: 'teacher',
        cohort_id: null,
        status: 'pending',
        expires_at: pending.body.expires_at,
        created_at: expect.any(String),
        accepted_at: null,
      });
      expect(all.body.items[2]).toMatchObject({ status: 'accepted', accepted_at: expect.any(String) });
      for (const [status, expected] of [
        ['pending', pending],
        ['expired', expired],
        ['accepted', accepted],
        ['revoked', revoked],
      ] as const) {
        const res = await list(`?status=${status}`);
        expect(res.body).toMatchObject({ total: 1, items: [{ id: expected.id, status }] });
      }
      const page = await list('?limit=2&offset=1');
      expect(page.body).toMatchObject({ total: 4, limit: 2, offset: 1 });
      expect(page.body.items.map((i: { id: string }) => i.id)).toEqual([revoked.id, accepted.id]);
      await o.owner.agent.get(`/api/v1/organizations/${o.id}/invitations?status=lost`).expect(422);
      await o.owner.agent.get(`/api/v1/organizations/${o.id}/invitations?limit=201`).expect(422);
    });
  });

  describe('DELETE /organizations/{org_id}/invitations/{invitation_id}', () => {
    it('204; from then on the link answers 404 everywhere; audited without personal data', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      const code = await requestCode(sent.token, sent.email);
      await o.owner.agent.delete(`/api/v1/organizations/${o.id}/invitations/${sent.id}`).expect(204);
      const c = t.client();
      await c.post('/api/v1/invitations/preview').send({ token: sent.token }).expect(404);
      await c.post('/api/v1/invitations/code/request').send({ token: sent.token }).expect(404);
      await c.post('/api/v1/invitations/code/verify').send({ token: sent.token, code }).expect(404);
      const invitee = await signIn(t, sent.email);
      await invitee.agent.post('/api/v1/invitations/accept').send({ token: sent.token }).expect(404);
      await invitee.agent.post('/api/v1/invitations/accept').send({ invitation_id: sent.id }).expect(404);
      expect(await membership(o.id, invitee.user.id)).toBeNull();
      // Revoking again, an unknown id, a malformed id: 404.
      await o.owner.agent.delete(`/api/v1/organizations/${o.id}/invitations/${sent.id}`).expect(404);
      await o.owner.agent
        .delete(`/api/v1/organizations/${o.id}/invitations/00000000-0000-4000-8000-000000000000`)
        .expect(404);
      await o.owner.agent.delete(`/api/v1/organizations/${o.id}/invitations/nope`).expect(404);
      const [entry] = await audit(o.id, 'invitation.revoked');
      expect(entry).toEqual({
        actor_id: o.owner.user.id,
        target_id: sent.id,
        metadata: { invitation_id: sent.id, role: 'student' },
      });
    });

    it("an accepted invitation is 409 invitation_already_accepted; another organization's is 404", async () => {
      const o = await org();
      const other = await org();
      const sent = await invite(o.owner, o.id);
      const invitee = await signIn(t, sent.email);
      await invitee.agent.post('/api/v1/invitations/accept').send({ token: sent.token }).expect(200);
      const res = await o.owner.agent.delete(`/api/v1/organizations/${o.id}/invitations/${sent.id}`).expect(409);
      expect(res.body.error.code).toBe('invitation_already_accepted');
      const theirs = await invite(other.owner, other.id);
      await o.owner.agent.delete(`/api/v1/organizations/${o.id}/invitations/${theirs.id}`).expect(404);
      await t.client().post('/api/v1/invitations/preview').send({ token: theirs.token }).expect(200);
    });

    it('an expired invitation can be revoked', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      await advance(8 * DAY, o.owner);
      await o.owner.agent.delete(`/api/v1/organizations/${o.id}/invitations/${sent.id}`).expect(204);
      await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(404);
    });
  });

  describe('POST /invitations/preview', () => {
    it('200 with the organization, role, masked address, whether an account exists, and the expiry', async () => {
      const o = await org({ name: 'Instituto Norte' });
      await o.owner.agent.patch(`/api/v1/organizations/${o.id}`).send({ brand_color: '#112233' }).expect(200);
      const sent = await invite(o.owner, o.id, { role: 'admin' });
      const res = await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(200);
      expect(res.body).toEqual({
        organization: { name: 'Instituto Norte', logo_url: null, brand_color: '#112233' },
        role: 'admin',
        email_masked: expect.stringMatching(/^i\*+@e\*+\.test$/),
        account_exists: false,
        expires_at: sent.body.expires_at,
      });
      expect(JSON.stringify(res.body)).not.toContain(sent.email);
      await signIn(t, sent.email);
      const again = await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(200);
      expect(again.body.account_exists).toBe(true);
    });

    it('404 for an unknown token; 422 for a malformed body', async () => {
      const c = t.client();
      const res = await c.post('/api/v1/invitations/preview').send({ token: unknownToken() }).expect(404);
      expect(res.body.error.code).toBe('not_found');
      for (const body of [
        {},
        { token: 'short' },
        { token: 42 },
        { token: `${unknownToken()}!` },
        { token: unknownToken(), x: 1 },
      ]) {
        const bad = await c.post('/api/v1/invitations/preview').send(body).expect(422);
        expect(bad.body.error.code).toBe('validation_error');
      }
    });

    it('200 until 7 days have passed, 410 invitation_expired one second after', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      t.clock.advance(7 * DAY - SECOND);
      await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(200);
      t.clock.advance(2 * SECOND);
      const res = await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(410);
      expect(res.body.error.code).toBe('invitation_expired');
    });

    it('409 invitation_already_accepted once accepted, even past its time', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      const invitee = await signIn(t, sent.email);
      await invitee.agent.post('/api/v1/invitations/accept').send({ token: sent.token }).expect(200);
      const res = await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(409);
      expect(res.body.error.code).toBe('invitation_already_accepted');
      t.clock.advance(8 * DAY);
      await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(409);
    });

    it('403 organization_suspended in a suspended organization (after 404/409/410)', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      const expiring = await invite(o.owner, o.id);
      await t.app.get(OrganizationsService).setSuspended(o.id, true, 'testing', o.owner.user.id, undefined);
      const res = await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(403);
      expect(res.body.error.code).toBe('organization_suspended');
      t.clock.advance(8 * DAY);
      await t.client().post('/api/v1/invitations/preview').send({ token: expiring.token }).expect(410);
    });
  });

  describe('POST /invitations/code/request', () => {
    it('emails a 6-digit code to the INVITED address, with or without an account', async () => {
      const o = await org({ name: 'Colegio Sur' });
      const sent = await invite(o.owner, o.id);
      const before = t.mail.count();
      await t
        .client()
        .post('/api/v1/invitations/code/request')
        .send({ token: sent.token })
        .expect(200, { status: 'sent' });
      const mail = await t.mail.waitForTo(sent.email, { after: before, subject: CODE_SUBJECT });
      expect(mail.to).toEqual([sent.email]);
      expect(mail.subject).toMatch(/^Tu código para unirte a Colegio Sur: \d{6}$/);
      expect(codeFrom(mail)).toMatch(/^\d{6}$/);
      const account = await signIn(t);
      const toAccount = await invite(o.owner, o.id, { email: account.email });
      expect(await requestCode(toAccount.token, account.email)).toMatch(/^\d{6}$/);
    });

    it('404 unknown, 409 accepted, 410 expired, 403 suspended', async () => {
      const o = await org();
      const c = t.client();
      expect(
        (await c.post('/api/v1/invitations/code/request').send({ token: unknownToken() }).expect(404)).body.error.code,
      ).toBe('not_found');
      const accepted = await invite(o.owner, o.id);
      const invitee = await signIn(t, accepted.email);
      await invitee.agent.post('/api/v1/invitations/accept').send({ token: accepted.token }).expect(200);
      expect(
        (await c.post('/api/v1/invitations/code/request').send({ token: accepted.token }).expect(409)).body.error.code,
      ).toBe('invitation_already_accepted');
      const expiring = await invite(o.owner, o.id);
      const suspended = await org();
      const inSuspended = await invite(suspended.owner, suspended.id);
      await t.app
        .get(OrganizationsService)
        .setSuspended(suspended.id, true, 'testing', suspended.owner.user.id, undefined);
      expect(
        (await c.post('/api/v1/invitations/code/request').send({ token: inSuspended.token }).expect(403)).body.error
          .code,
      ).toBe('organization_suspended');
      t.clock.advance(7 * DAY + SECOND);
      expect(
        (await c.post('/api/v1/invitations/code/request').send({ token: expiring.token }).expect(410)).body.error.code,
      ).toBe('invitation_expired');
      await c.post('/api/v1/invitations/code/request').send({}).expect(422);
    });
  });

  describe('POST /invitations/code/verify', () => {
    it('creates the account with the name, the membership with the role, the cohort place; the organization is active; cookies set; audited', async () => {
      const o = await org({ locale: 'en' });
      const group = await cohort(o.id);
      const sent = await invite(o.owner, o.id, { role: 'teacher', cohort_id: group });
      const code = await requestCode(sent.token, sent.email);
      const c = t.client();
      const res = await c
        .post('/api/v1/invitations/code/verify')
        .send({ token: sent.token, code, name: '  Ana Pérez ' })
        .expect(200);
      expect(res.body).toEqual({
        organization: expect.objectContaining({ id: o.id, name: 'Escuela Ejemplo', locale: 'en', status: 'active' }),
        role: 'teacher',
      });
      expect([...setCookies(res).keys()].sort()).toEqual(['access_token', 'refresh_token', 'svc_session']);
      const user = await userByEmail(sent.email);
      expect(user).toMatchObject({ name: 'Ana Pérez', locale: 'en', last_organization_id: o.id });
      expect(await membership(o.id, user!.id as string)).toBe('teacher');
      const places = await t.db.query(`SELECT cohort_id, role FROM cohort_members WHERE user_id = $1`, [user!.id]);
      expect(places).toEqual([{ cohort_id: group, role: 'teacher' }]);
      // The session works and the organization is the active one.
      const me = await c.get('/api/v1/me/organizations').expect(200);
      expect(me.body.active_organization_id).toBe(o.id);
      expect(me.body.organizations).toEqual([{ organization: expect.objectContaining({ id: o.id }), role: 'teacher' }]);
      const list = await o.owner.agent.get(`/api/v1/organizations/${o.id}/invitations?status=accepted`).expect(200);
      expect(list.body.items.map((i: { id: string }) => i.id)).toEqual([sent.id]);
      const [entry] = await audit(o.id, 'invitation.accepted');
      expect(entry).toEqual({
        actor_id: user!.id,
        target_id: sent.id,
        metadata: { invitation_id: sent.id, role: 'teacher', method: 'code', already_member: false },
      });
      expect(JSON.stringify(entry)).not.toContain('@');
    });

    it('a student invitation with a cohort gives a student place; an existing account joins and keeps its name', async () => {
      const o = await org();
      const group = await cohort(o.id);
      const existing = await adult(t);
      const sent = await invite(o.owner, o.id, { email: existing.email, cohort_id: group });
      const code = await requestCode(sent.token, sent.email);
      const res = await t
        .client()
        .post('/api/v1/invitations/code/verify')
        .send({ token: sent.token, code, name: 'Another Name' })
        .expect(200);
      expect(res.body.role).toBe('student');
      expect(await userByEmail(existing.email)).toMatchObject({
        id: existing.user.id,
        name: 'Test Person',
        last_organization_id: o.id,
      });
      expect(await membership(o.id, existing.user.id)).toBe('student');
      const places = await t.db.query(`SELECT cohort_id, role FROM cohort_members WHERE user_id = $1`, [
        existing.user.id,
      ]);
      expect(places).toEqual([{ cohort_id: group, role: 'student' }]);
    });

    it('someone who already joined another way keeps their role and still gets 200', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id, { role: 'student' });
      const code = await requestCode(sent.token, sent.email);
      const person = await signIn(t, sent.email);
      await addMember(t, o.id, person.user.id, 'teacher');
      const res = await t
        .client()
        .post('/api/v1/invitations/code/verify')
        .send({ token: sent.token, code })
        .expect(200);
      expect(res.body.role).toBe('teacher');
      expect(await membership(o.id, person.user.id)).toBe('teacher');
      const [entry] = await audit(o.id, 'invitation.accepted');
      expect(entry.metadata).toMatchObject({ already_member: true, role: 'teacher' });
    });

    it('a two-factor account: 401 two_factor_required with svc_2fa, the invitation accepted and the membership made; the organization becomes active after the second factor', async () => {
      const o = await org();
      const person = await adult(t);
      const secret = await enableTwoFactor(person);
      const sent = await invite(o.owner, o.id, { email: person.email, role: 'teacher' });
      const code = await requestCode(sent.token, sent.email);
      const c = t.client();
      const res = await c.post('/api/v1/invitations/code/verify').send({ token: sent.token, code }).expect(401);
      expect(res.body.error.code).toBe('two_factor_required');
      const cookies = setCookies(res);
      expect([...cookies.keys()]).toEqual(['svc_2fa']);
      expect(await membership(o.id, person.user.id)).toBe('teacher');
      expect((await userByEmail(person.email))!.last_organization_id).toBeNull();
      await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(409);
      t.clock.advance(31 * SECOND);
      const done = await c
        .post('/api/v1/auth/two-factor/verify')
        .send({ code: totp(t, secret) })
        .expect(200);
      expect(done.body.last_organization_id).toBe(o.id);
      expect((await c.get('/api/v1/me/organizations').expect(200)).body.active_organization_id).toBe(o.id);
    });

    it('400 invalid_otp for a wrong, an expired or an exhausted code (5 wrong, then the right one), and without a code requested', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      const c = t.client();
      const verify = (code: string) => c.post('/api/v1/invitations/code/verify').send({ token: sent.token, code });
      expect((await verify('123456').expect(400)).body.error.code).toBe('invalid_otp'); // none requested yet
      let code = await requestCode(sent.token, sent.email);
      const wrong = code === '000000' ? '111111' : '000000';
      expect((await verify(wrong).expect(400)).body.error.code).toBe('invalid_otp');
      // Expired: 10 minutes later the right code no longer works.
      t.clock.advance(10 * MINUTE + SECOND);
      expect((await verify(code).expect(400)).body.error.code).toBe('invalid_otp');
      // Exhausted: five wrong attempts, then the right one.
      code = await requestCode(sent.token, sent.email);
      const wrong2 = code === '000000' ? '111111' : '000000';
      for (let i = 0; i < 5; i++) await verify(wrong2).expect(400);
      const exhausted = await verify(code).expect(400);
      expect(exhausted.body.error).toMatchObject({
        code: 'invalid_otp',
        message: 'The code is not valid or has expired.',
      });
      expect(await userByEmail(sent.email)).toBeUndefined();
      // A new code works.
      code = await requestCode(sent.token, sent.email);
      await verify(code).expect(200);
    });

    it('404/409/410/403 as the preview, and 422 for a malformed body', async () => {
      const o = await org();
      const c = t.client();
      const verify = (token: string, code = '123456') =>
        c.post('/api/v1/invitations/code/verify').send({ token, code });
      expect((await verify(unknownToken()).expect(404)).body.error.code).toBe('not_found');
      const sent = await invite(o.owner, o.id);
      const code = await requestCode(sent.token, sent.email);
      await verify(sent.token, code).expect(200);
      expect((await verify(sent.token, code).expect(409)).body.error.code).toBe('invitation_already_accepted');
      const expiring = await invite(o.owner, o.id);
      const expiringCode = await requestCode(expiring.token, expiring.email);
      t.clock.advance(7 * DAY + SECOND);
      expect((await verify(expiring.token, expiringCode).expect(410)).body.error.code).toBe('invitation_expired');
      t.clock.reset();
      const suspended = await org();
      const inSuspended = await invite(suspended.owner, suspended.id);
      const suspendedCode = await requestCode(inSuspended.token, inSuspended.email);
      await t.app.get(OrganizationsService).setSuspended(suspended.id, true, 'x', suspended.owner.user.id, undefined);
      expect((await verify(inSuspended.token, suspendedCode).expect(403)).body.error.code).toBe(
        'organization_suspended',
      );
      for (const body of [
        { token: sent.token },
        { token: sent.token, code: '12345' },
        { token: sent.token, code: '123456', name: '' },
        { token: sent.token, code: '123456', name: 'x'.repeat(256) },
      ]) {
        expect((await c.post('/api/v1/invitations/code/verify').send(body).expect(422)).body.error.code).toBe(
          'validation_error',
        );
      }
    });
  });

  describe('SSO enforcement and plan limits', () => {
    it('an invited address of an enforced SSO domain cannot join by email code (403 sso_required)', async () => {
      const o = await org();
      const domain = `enforced-${randomBytes(4).toString('hex')}.test`;
      await t.db.query(
        `INSERT INTO sso_domains (organization_id, domain, status, verification_token, enforced, verified_at)
         VALUES ($1, $2, 'verified', 'x', true, now())`,
        [o.id, domain],
      );
      const sent = await invite(o.owner, o.id, { email: `ana@${domain}` });
      const request = await t.client().post('/api/v1/invitations/code/request').send({ token: sent.token }).expect(403);
      expect(request.body.error.code).toBe('sso_required');
      const verify = await t
        .client()
        .post('/api/v1/invitations/code/verify')
        .send({ token: sent.token, code: '123456' })
        .expect(403);
      expect(verify.body.error.code).toBe('sso_required');
      expect(await membership(o.id, (await userByEmail(`ana@${domain}`))?.id as string)).toBeNull();
    });

    it("409 member_limit_reached when the organization's plan is full; nothing is accepted", async () => {
      const o = await org();
      await t.db.query(`UPDATE organizations SET member_limit = 2 WHERE id = $1`, [o.id]);
      await t.app.get(OrganizationsService).setSuspended(o.id, false, 'cache refresh', o.owner.user.id, undefined);
      const first = await invite(o.owner, o.id);
      const code = await requestCode(first.token, first.email);
      await t.client().post('/api/v1/invitations/code/verify').send({ token: first.token, code }).expect(200);
      const second = await invite(o.owner, o.id);
      const code2 = await requestCode(second.token, second.email);
      const res = await t
        .client()
        .post('/api/v1/invitations/code/verify')
        .send({ token: second.token, code: code2 })
        .expect(409);
      expect(res.body.error.code).toBe('member_limit_reached');
      const [inv] = await t.db.query(`SELECT status FROM invitations WHERE id = $1`, [second.id]);
      expect(inv.status).toBe('pending');
      const usage = await o.owner.agent.get(`/api/v1/organizations/${o.id}/usage`).expect(200);
      expect(usage.body.members).toEqual({ used: 2, limit: 2 });
    });
  });

  describe('POST /invitations/accept', () => {
    it('by token: 200 {organization, role}, membership made, the organization active; a repeat answers 200 again; audited', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id, { role: 'admin' });
      const invitee = await signIn(t, sent.email);
      const res = await invitee.agent.post('/api/v1/invitations/accept').send({ token: sent.token }).expect(200);
      expect(res.body).toEqual({
        organization: expect.objectContaining({ id: o.id, slug: expect.any(String) }),
        role: 'admin',
      });
      expect(await membership(o.id, invitee.user.id)).toBe('admin');
      const me = await invitee.agent.get('/api/v1/me/organizations').expect(200);
      expect(me.body.active_organization_id).toBe(o.id);
      await invitee.agent.post('/api/v1/invitations/accept').send({ token: sent.token }).expect(200, res.body);
      const entries = await audit(o.id, 'invitation.accepted');
      expect(entries).toEqual([
        {
          actor_id: invitee.user.id,
          target_id: sent.id,
          metadata: { invitation_id: sent.id, role: 'admin', method: 'session', already_member: false },
        },
      ]);
    });

    it('by invitation_id (from /me/invitations)', async () => {
      const o = await org();
      const invitee = await signIn(t);
      const sent = await invite(o.owner, o.id, { email: invitee.email, role: 'teacher' });
      const mine = await invitee.agent.get('/api/v1/me/invitations').expect(200);
      expect(mine.body.items.map((i: { id: string }) => i.id)).toEqual([sent.id]);
      const res = await invitee.agent.post('/api/v1/invitations/accept').send({ invitation_id: sent.id }).expect(200);
      expect(res.body.role).toBe('teacher');
      expect(await membership(o.id, invitee.user.id)).toBe('teacher');
    });

    it('404 for an invitation addressed to another email, by token or by id (nothing changes)', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      const stranger = await signIn(t);
      for (const body of [{ token: sent.token }, { invitation_id: sent.id }]) {
        const res = await stranger.agent.post('/api/v1/invitations/accept').send(body).expect(404);
        expect(res.body.error.code).toBe('not_found');
      }
      expect(await membership(o.id, stranger.user.id)).toBeNull();
      await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }).expect(200);
    });

    it('410 expired, 403 suspended, 401 without a session, 422 unless exactly one of token / invitation_id', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      const invitee = await signIn(t, sent.email);
      for (const body of [
        {},
        { token: sent.token, invitation_id: sent.id },
        { invitation_id: 'nope' },
        { token: 'x' },
      ]) {
        expect((await invitee.agent.post('/api/v1/invitations/accept').send(body).expect(422)).body.error.code).toBe(
          'validation_error',
        );
      }
      await t.client().post('/api/v1/invitations/accept').send({ token: sent.token }).expect(401);
      const suspended = await org();
      const inSuspended = await invite(suspended.owner, suspended.id, { email: sent.email });
      await t.app.get(OrganizationsService).setSuspended(suspended.id, true, 'x', suspended.owner.user.id, undefined);
      const refused = await invitee.agent
        .post('/api/v1/invitations/accept')
        .send({ token: inSuspended.token })
        .expect(403);
      expect(refused.body.error.code).toBe('organization_suspended');
      await advance(7 * DAY + SECOND, invitee);
      const res = await invitee.agent.post('/api/v1/invitations/accept').send({ invitation_id: sent.id }).expect(410);
      expect(res.body.error.code).toBe('invitation_expired');
    });
  });

  describe('GET /me/invitations', () => {
    it('lists only pending, unexpired invitations to my email', async () => {
      const me = await signIn(t);
      const expiredOrg = await org({ name: 'Expired' });
      await invite(expiredOrg.owner, expiredOrg.id, { email: me.email });
      await advance(7 * DAY + SECOND, me, expiredOrg.owner);
      const pendingOrg = await org({ name: 'Pending' });
      await pendingOrg.owner.agent
        .patch(`/api/v1/organizations/${pendingOrg.id}`)
        .send({ brand_color: '#abcdef' })
        .expect(200);
      const pending = await invite(pendingOrg.owner, pendingOrg.id, { email: me.email, role: 'teacher' });
      const revokedOrg = await org({ name: 'Revoked' });
      const revoked = await invite(revokedOrg.owner, revokedOrg.id, { email: me.email });
      await revokedOrg.owner.agent
        .delete(`/api/v1/organizations/${revokedOrg.id}/invitations/${revoked.id}`)
        .expect(204);
      const acceptedOrg = await org({ name: 'Accepted' });
      const accepted = await invite(acceptedOrg.owner, acceptedOrg.id, { email: me.email });
      await me.agent.post('/api/v1/invitations/accept').send({ token: accepted.token }).expect(200);
      await invite(pendingOrg.owner, pendingOrg.id); // someone else's
      const res = await me.agent.get('/api/v1/me/invitations').expect(200);
      expect(res.body).toEqual({
        items: [
          {
            id: pending.id,
            organization: { id: pendingOrg.id, name: 'Pending', logo_url: null, brand_color: '#abcdef' },
            role: 'teacher',
            expires_at: pending.body.expires_at,
          },
        ],
      });
      await t.http().get('/api/v1/me/invitations').expect(401);
    });
  });

  describe('rate limits (exactly at the limit, then one past)', () => {
    async function exhaust(
      n: number,
      call: (i: number) => Promise<{ status: number }>,
      allowed: number[],
    ): Promise<void> {
      for (let i = 0; i < n; i++) {
        const res = await call(i);
        expect({ i, status: res.status, allowed: allowed.includes(res.status) }).toEqual({
          i,
          status: res.status,
          allowed: true,
        });
      }
    }

    function expect429(res: { status: number; body: { error: { code: string } }; headers: Record<string, string> }) {
      expect([res.status, res.body.error.code]).toEqual([429, 'too_many_requests']);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }

    it('preview: 30 per 15 minutes per invitation token', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      await exhaust(30, () => t.client().post('/api/v1/invitations/preview').send({ token: sent.token }), [200]);
      expect429(await t.client().post('/api/v1/invitations/preview').send({ token: sent.token }));
    });

    it('preview: 60 per 15 minutes per client address', async () => {
      const c = t.client();
      await exhaust(60, () => c.post('/api/v1/invitations/preview').send({ token: unknownToken() }), [404]);
      expect429(await c.post('/api/v1/invitations/preview').send({ token: unknownToken() }));
    });

    it('code request: 5 per 15 minutes per invitation token', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      await exhaust(5, () => t.client().post('/api/v1/invitations/code/request').send({ token: sent.token }), [200]);
      expect429(await t.client().post('/api/v1/invitations/code/request').send({ token: sent.token }));
    });

    it('code request: 10 per 15 minutes per client address', async () => {
      const c = t.client();
      await exhaust(10, () => c.post('/api/v1/invitations/code/request').send({ token: unknownToken() }), [404]);
      expect429(await c.post('/api/v1/invitations/code/request').send({ token: unknownToken() }));
    });

    it('code verify: 10 per 15 minutes per invitation token', async () => {
      const o = await org();
      const sent = await invite(o.owner, o.id);
      await exhaust(
        10,
        () => t.client().post('/api/v1/invitations/code/verify').send({ token: sent.token, code: '000000' }),
        [400],
      );
      expect429(await t.client().post('/api/v1/invitations/code/verify').send({ token: sent.token, code: '000000' }));
    });

    it('code verify: 30 per 15 minutes per client address', async () => {
      const c = t.client();
      await exhaust(
        30,
        () => c.post('/api/v1/invitations/code/verify').send({ token: unknownToken(), code: '000000' }),
        [404],
      );
      expect429(await c.post('/api/v1/invitations/code/verify').send({ token: unknownToken(), code: '000000' }));
    });

    it('accept: 20 per 15 minutes per account', async () => {
      const s = await signIn(t);
      await exhaust(20, () => s.agent.post('/api/v1/invitations/accept').send({ token: unknownToken() }), [404]);
      expect429(await s.agent.post('/api/v1/invitations/accept').send({ token: unknownToken() }));
    });

    it('invite: 50 per hour per account', async () => {
      const o = await org();
      const path = `/api/v1/organizations/${o.id}/members/invite`;
      // Refused requests count too: 49 of them, then the 50th is still served.
      await exhaust(49, () => o.owner.agent.post(path).send({ email: 'nope' }), [422]);
      await invite(o.owner, o.id);
      expect429(await o.owner.agent.post(path).send({ email: t.nextEmail() }));
    });

    it('revoke: 100 per hour per account', async () => {
      const o = await org();
      const path = `/api/v1/organizations/${o.id}/invitations`;
      await exhaust(100, () => o.owner.agent.delete(`${path}/${randomUUID()}`), [404]);
      expect429(await o.owner.agent.delete(`${path}/${randomUUID()}`));
    });
  });
});
