import { randomUUID } from 'node:crypto';
import type TestAgent from 'supertest/lib/agent';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { scimTokenBudget } from '@/modules/tenancy/scim/testing';
import { type SignedIn, stepUpByEmail } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const SCIM_JSON = 'application/scim+json';

/**
 * SCIM 2.0 provisioning (extensions-v3 section 2, issue 27). The identity providers' own published test
 * sequences are replayed request for request:
 * - Okta: "Okta SCIM 2.0 SPEC Test" (Runscope/BlazeMeter, developer.okta.com/docs/guides/build-provisioning-integration/
 *   test-scim-api/) and the CRUD test of the same guide (create, get, filter, update, deactivate, reactivate);
 * - Microsoft Entra ID: the request/response examples of "Tutorial: Develop and plan provisioning for a SCIM
 *   endpoint in Microsoft Entra ID" (learn.microsoft.com), which the Entra SCIM Validator runs as its test cases
 *   (users and groups), with the quirks the provisioning service shows (`"Replace"`, `"False"`, path-less patches,
 *   value-path filters, `excludedAttributes=members`, the random-userName probe).
 */
describe('SCIM 2.0', () => {
  let t: TestApp;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let student: SignedIn;
  let orgId: string;
  let otherOwner: SignedIn;
  let otherOrgId: string;
  let token: string;
  let tokenId: string;
  let otherToken: string;

  const scim = (tok = token): { agent: TestAgent; auth: string } => ({ agent: t.client(), auth: `Bearer ${tok}` });
  const get = (path: string, tok = token) =>
    scim(tok).agent.get(`/scim/v2${path}`).set('Authorization', `Bearer ${tok}`);
  const send = (method: 'post' | 'put' | 'patch', path: string, body: unknown, tok = token) =>
    t
      .client()
      [method](`/scim/v2${path}`)
      .set('Authorization', `Bearer ${tok}`)
      .set('Content-Type', SCIM_JSON)
      .send(JSON.stringify(body));
  const del = (path: string, tok = token) => t.client().delete(`/scim/v2${path}`).set('Authorization', `Bearer ${tok}`);

  function createToken(as: SignedIn, org: string, body: Record<string, unknown> = {}) {
    return as.agent
      .post(`/api/v1/organizations/${org}/scim/tokens`)
      .send({ description: 'Entra ID provisioning', ...body });
  }

  function expectScimError(
    res: { status: number; body: Record<string, unknown>; headers: Record<string, string> },
    status: number,
    scimType?: string,
  ): void {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(res.body.schemas).toEqual([ERROR]);
    expect(res.body.status).toBe(String(status));
    if (scimType) expect(res.body.scimType).toBe(scimType);
    expect(typeof res.body.detail).toBe('string');
  }

  async function auditRows(
    action: string,
    targetId?: string,
  ): Promise<{ metadata: Record<string, unknown>; actor_id: string | null }[]> {
    return t.db.query(
      `SELECT metadata, actor_id FROM audit_log WHERE organization_id = $1 AND action = $2 AND ($3::text IS NULL OR target_id = $3)`,
      [orgId, action, targetId ?? null],
    );
  }

  async function events(name: string, userId: string): Promise<number> {
    const rows = await t.db.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM domain_events WHERE organization_id = $1 AND name = $2 AND payload->>'user_id' = $3`,
      [orgId, name, userId],
    );
    return rows[0].n;
  }

  function newUser(email: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      schemas: [USER],
      userName: email,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ primary: true, value: email, type: 'work' }],
      displayName: 'Ada Lovelace',
      locale: 'en-US',
      externalId: `ext-${email}`,
      active: true,
      ...extra,
    };
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgId = await createOrganization(t, owner, 'Directory University');
    admin = await adult(t);
    teacher = await adult(t);
    student = await adult(t);
    await addMember(t, orgId, admin.user.id, 'admin');
    await addMember(t, orgId, teacher.user.id, 'teacher');
    await addMember(t, orgId, student.user.id, 'student');
    otherOwner = await adult(t);
    otherOrgId = await createOrganization(t, otherOwner, 'Other College');
    await stepUpByEmail(t, owner);
    await stepUpByEmail(t, otherOwner);
    const created = await createToken(owner, orgId).expect(201);
    token = created.body.token;
    tokenId = created.body.id;
    otherToken = (await createToken(otherOwner, otherOrgId).expect(201)).body.token;
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  describe('tokens (2.1)', () => {
    it('creates a token shown once, in the shared token format, hashed at rest and audited', async () => {
      expect(token).toMatch(/^svc_scim_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/);
      const list = await owner.agent.get(`/api/v1/organizations/${orgId}/scim/tokens`).expect(200);
      const item = list.body.items.find((i: { id: string }) => i.id === tokenId);
      expect(item).toEqual({
        id: tokenId,
        description: 'Entra ID provisioning',
        default_role: 'student',
        created_at: expect.any(String),
        last_used_at: null,
        created_by: owner.user.id,
      });
      expect(JSON.stringify(list.body)).not.toContain(token);
      const stored = await t.db.query(`SELECT token_hash FROM scim_tokens WHERE id = $1`, [tokenId]);
      expect(stored[0].token_hash).not.toContain(token.slice(9, 30));
      const [audit] = await t.db.query(
        `SELECT actor_id, metadata FROM audit_log WHERE action = 'scim_token.created' AND target_id = $1`,
        [tokenId],
      );
      expect(audit).toEqual({ actor_id: owner.user.id, metadata: { default_role: 'student' } });
    });

    it('needs owner/admin, step-up, and a description of 1..200; default_role is student or teacher', async () => {
      await createToken(teacher, orgId).expect(403);
      await createToken(student, orgId).expect(403);
      await student.agent.get(`/api/v1/organizations/${orgId}/scim/tokens`).expect(403);
      await teacher.agent.get(`/api/v1/organizations/${orgId}/scim/activity`).expect(403);
      const noStepUp = await createToken(admin, orgId).expect(403);
      expect(noStepUp.body.error.code).toBe('step_up_required');
      await createToken(owner, orgId, { description: '' }).expect(422);
      await createToken(owner, orgId, { description: 'x'.repeat(201) }).expect(422);
      await createToken(owner, orgId, { default_role: 'admin' }).expect(422);
      // Another organization's owner, and a token of another organization: 404.
      await otherOwner.agent.get(`/api/v1/organizations/${orgId}/scim/tokens`).expect(404);
      await createToken(otherOwner, orgId).expect(404);
      const pat = await personalToken(t, otherOwner, otherOrgId, 'write');
      await bearer(t, pat).get(`/api/v1/organizations/${orgId}/scim/tokens`).expect(404);
    });

    it('allows five live tokens (409 scim_token_limit_reached at the sixth); a revoked one is refused at once', async () => {
      const extra: string[] = [];
      for (let i = 0; i < 3; i++)
        extra.push((await createToken(owner, orgId, { default_role: 'teacher' }).expect(201)).body.id);
      const fifth = await createToken(owner, orgId).expect(201);
      const sixth = await createToken(owner, orgId).expect(409);
      expect(sixth.body.error.code).toBe('scim_token_limit_reached');
      await get('/ServiceProviderConfig', fifth.body.token).expect(200);
      await owner.agent.delete(`/api/v1/organizations/${orgId}/scim/tokens/${fifth.body.id}`).expect(204);
      expectScimError(await get('/ServiceProviderConfig', fifth.body.token), 401);
      expect(await auditRows('scim_token.revoked', fifth.body.id)).toHaveLength(1);
      await owner.agent.delete(`/api/v1/organizations/${orgId}/scim/tokens/${fifth.body.id}`).expect(404);
      await otherOwner.agent.delete(`/api/v1/organizations/${orgId}/scim/tokens/${extra[0]}`).expect(404);
      for (const id of extra) await owner.agent.delete(`/api/v1/organizations/${orgId}/scim/tokens/${id}`).expect(204);
    });
  });

  describe('credentials (2.1)', () => {
    it('answers 401 in SCIM form with WWW-Authenticate: Bearer to anything but a live SCIM token', async () => {
      const none = await t.client().get('/scim/v2/Users');
      expectScimError(none, 401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const pat = await personalToken(t, owner, orgId, 'write');
      expectScimError(await get('/Users', pat), 401);
      expectScimError(await owner.agent.get('/scim/v2/Users'), 401);
      expectScimError(await get('/Users', 'svc_scim_not-a-token'), 401);
      const forged = `svc_scim_${'A'.repeat(43)}000000`;
      expectScimError(await get('/Users', forged), 401);
    });

    it('refuses a SCIM token on every other route', async () => {
      await bearer(t, token).get('/api/v1/me/api-keys').expect(401);
      await bearer(t, token).get(`/api/v1/organizations/${orgId}`).expect(401);
      await bearer(t, token).get(`/api/v1/organizations/${orgId}/members`).expect(401);
    });

    it('keeps each token to its organization: another organization’s member is 404', async () => {
      expectScimError(await get(`/Users/${owner.user.id}`, otherToken), 404);
      expectScimError(await get(`/Users/${otherOwner.user.id}`), 404);
      const list = await get('/Users', otherToken).expect(200);
      expect(list.body.Resources.map((r: { id: string }) => r.id)).toEqual([otherOwner.user.id]);
    });
  });

  describe('discovery (2.2)', () => {
    it('ServiceProviderConfig, ResourceTypes and Schemas', async () => {
      const spc = await get('/ServiceProviderConfig').expect(200);
      expect(spc.headers['content-type']).toMatch(/^application\/scim\+json/);
      expect(spc.body).toMatchObject({
        patch: { supported: true },
        bulk: { supported: false },
        filter: { supported: true, maxResults: 200 },
        changePassword: { supported: false },
        sort: { supported: false },
        etag: { supported: false },
        authenticationSchemes: [{ type: 'oauthbearertoken' }],
      });
      const types = await get('/ResourceTypes').expect(200);
      expect(types.body.schemas).toEqual([LIST]);
      expect(types.body.Resources.map((r: { id: string }) => r.id)).toEqual(['User', 'Group']);
      await get('/ResourceTypes/User').expect(200);
      const schemas = await get('/Schemas').expect(200);
      expect(schemas.body.Resources.map((r: { id: string }) => r.id)).toEqual([USER, ENTERPRISE, GROUP]);
      const user = await get(`/Schemas/${USER}`).expect(200);
      expect(user.body.attributes.map((a: { name: string }) => a.name)).toContain('userName');
      expectScimError(await get('/Schemas/urn:nope'), 404);
      expectScimError(await get('/ResourceTypes/Printer'), 404);
    });

    it('does not offer POST /.search, and unknown paths answer in SCIM form', async () => {
      expectScimError(
        await send('post', '/.search', { schemas: ['urn:ietf:params:scim:api:messages:2.0:SearchRequest'] }),
        404,
      );
      expectScimError(await get('/Printers'), 404);
    });
  });

  describe('Okta SCIM 2.0 SPEC test, then the CRUD test', () => {
    const email = `okta.${randomUUID().slice(0, 8)}@directory.example`;
    let id: string;

    it('Required Test: Test Users endpoint (GET /Users?count=1&startIndex=1)', async () => {
      const res = await get('/Users?count=1&startIndex=1').expect(200);
      expect(res.body).toMatchObject({ schemas: [LIST], itemsPerPage: 1, startIndex: 1 });
      expect(res.body.totalResults).toBeGreaterThanOrEqual(4);
      expect(res.body.Resources[0]).toMatchObject({
        id: expect.any(String),
        userName: expect.any(String),
        active: true,
      });
      expect(res.body.Resources[0].emails[0].value).toEqual(expect.any(String));
    });

    it('Required Test: Test invalid User by username (random userName: an empty list)', async () => {
      const res = await get(
        `/Users?filter=${encodeURIComponent(`userName eq "${randomUUID()}@example.com"`)}&startIndex=1&count=100`,
      ).expect(200);
      expect(res.body).toEqual({ schemas: [LIST], totalResults: 0, itemsPerPage: 0, startIndex: 1, Resources: [] });
    });

    it('Required Test: Test invalid User by ID (404)', async () => {
      expectScimError(await get(`/Users/${randomUUID()}`), 404);
      expectScimError(await get('/Users/not-a-uuid'), 404);
    });

    it('Required Test: Make sure random user doesn’t exist, then Create Okta user with realistic values', async () => {
      const probe = await get(
        `/Users?filter=${encodeURIComponent(`userName eq "${email}"`)}&startIndex=1&count=100`,
      ).expect(200);
      expect(probe.body.totalResults).toBe(0);
      const res = await send('post', '/Users', {
        schemas: [USER],
        userName: email,
        name: { givenName: 'Okta', familyName: 'Tester' },
        emails: [{ primary: true, value: email, type: 'work' }],
        displayName: 'Okta Tester',
        locale: 'en-US',
        externalId: '00u1dhhb1fkIGP7RL1d8',
        groups: [],
        password: '1mz050nq',
        active: true,
      }).expect(201);
      expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
      id = res.body.id;
      expect(res.headers.location).toBe(`${t.baseUrl}/scim/v2/Users/${id}`);
      expect(res.body).toMatchObject({
        schemas: [USER],
        userName: email,
        externalId: '00u1dhhb1fkIGP7RL1d8',
        name: { givenName: 'Okta', familyName: 'Tester', formatted: 'Okta Tester' },
        displayName: 'Okta Tester',
        emails: [{ value: email, type: 'work', primary: true }],
        active: true,
        groups: [],
        meta: { resourceType: 'User', location: `${t.baseUrl}/scim/v2/Users/${id}` },
      });
      expect(res.body.password).toBeUndefined();
      const [member] = await t.db.query(`SELECT role FROM memberships WHERE organization_id = $1 AND user_id = $2`, [
        orgId,
        id,
      ]);
      expect(member.role).toBe('student');
      const [audit] = await auditRows('scim.user_created', id);
      expect(audit.actor_id).toBeNull();
      expect(audit.metadata).toMatchObject({ actor_type: 'scim_token', actor_token_id: tokenId, role: 'student' });
      expect(await events('member.joined', id)).toBe(1);
    });

    it('Required Test: Verify that user was created (GET /Users/{id})', async () => {
      const res = await get(`/Users/${id}`).expect(200);
      expect(res.body).toMatchObject({ id, userName: email, active: true });
    });

    it('Required Test: Expect failure when recreating user with same values (409 uniqueness)', async () => {
      expectScimError(await send('post', '/Users', newUser(email)), 409, 'uniqueness');
      expectScimError(await send('post', '/Users', newUser(email.toUpperCase())), 409, 'uniqueness');
    });

    it('Required Test: Username Case Sensitivity Check (the filter ignores case)', async () => {
      const res = await get(
        `/Users?filter=${encodeURIComponent(`userName eq "${email.toUpperCase()}"`)}&startIndex=1&count=100`,
      ).expect(200);
      expect(res.body.totalResults).toBe(1);
      expect(res.body.Resources[0].id).toBe(id);
    });

    it('Optional Test: Verify Groups endpoint', async () => {
      const res = await get('/Groups?count=1&startIndex=1').expect(200);
      expect(res.body.schemas).toEqual([LIST]);
    });

    it('CRUD: update the first name (PUT), verify, deactivate, verify, reactivate, verify', async () => {
      const current = (await get(`/Users/${id}`).expect(200)).body;
      const updated = await send('put', `/Users/${id}`, {
        ...current,
        name: { ...current.name, givenName: 'Okta2' },
      }).expect(200);
      expect(updated.body.name.givenName).toBe('Okta2');
      expect((await get(`/Users/${id}`).expect(200)).body.name.givenName).toBe('Okta2');
      expect((await auditRows('scim.user_updated', id)).length).toBeGreaterThanOrEqual(1);

      const off = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', value: { active: false } }],
      }).expect(200);
      expect(off.body.active).toBe(false);
      expect((await get(`/Users/${id}`).expect(200)).body.active).toBe(false);
      expect(await auditRows('scim.user_deactivated', id)).toHaveLength(1);
      expect(await events('member.suspended', id)).toBe(1);

      const on = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', value: { active: true } }],
      }).expect(200);
      expect(on.body.active).toBe(true);
      expect(await auditRows('scim.user_reactivated', id)).toHaveLength(1);
      expect(await events('member.reactivated', id)).toBe(1);

      // Okta's other way: PUT with active false; a PUT without active means true.
      const { groups: _groups, ...body } = (await get(`/Users/${id}`).expect(200)).body;
      expect((await send('put', `/Users/${id}`, { ...body, active: false }).expect(200)).body.active).toBe(false);
      const { active: _active, ...withoutActive } = body;
      expect((await send('put', `/Users/${id}`, withoutActive).expect(200)).body.active).toBe(true);
    });
  });

  describe('Microsoft Entra ID (SCIM Validator test cases)', () => {
    const suffix = randomUUID();
    const userName = `Test_User_${suffix}`;
    const mail = `Test_User_${suffix.slice(0, 8)}@testuser.com`;
    let id: string;
    let groupId: string;

    it('probes with a random userName and expects an empty list', async () => {
      const res = await get(`/Users?filter=${encodeURIComponent(`userName eq "${randomUUID()}"`)}`).expect(200);
      expect(res.body.totalResults).toBe(0);
      expect(res.body.Resources).toEqual([]);
    });

    it('Create a new User (userName not an email: the work email is the account)', async () => {
      const res = await send('post', '/Users', {
        schemas: [USER, ENTERPRISE],
        externalId: randomUUID(),
        userName,
        active: true,
        emails: [{ primary: true, type: 'work', value: mail }],
        meta: { resourceType: 'User' },
        name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
        roles: [],
        [ENTERPRISE]: { department: 'Physics', employeeNumber: 'E-42' },
      }).expect(201);
      id = res.body.id;
      expect(res.body).toMatchObject({
        schemas: [USER, ENTERPRISE],
        userName: userName.toLowerCase(),
        emails: [{ value: mail.toLowerCase(), type: 'work', primary: true }],
        [ENTERPRISE]: { department: 'Physics', employeeNumber: 'E-42' },
      });
    });

    it('Filter for an existing user (userName eq) and by externalId, emails value path', async () => {
      const byName = await get(`/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`).expect(200);
      expect(byName.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
      const byMail = await get(
        `/Users?filter=${encodeURIComponent(`emails[type eq "work"].value eq "${mail}"`)}`,
      ).expect(200);
      expect(byMail.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
      const byDept = await get(`/Users?filter=${encodeURIComponent(`${ENTERPRISE}:department eq "physics"`)}`).expect(
        200,
      );
      expect(byDept.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
    });

    it('Patch User - Replace Attributes (multi-valued, value path, "Replace")', async () => {
      const res = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
          { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        ],
      }).expect(200);
      expect(res.body.name.familyName).toBe('updatedFamilyName');
      // The account's own email is never changed by the directory (sign-in stays on it).
      expect(res.body.emails[0].value).toBe(mail.toLowerCase());
    });

    it('Patch User - Replace userName (single-valued), to one no other member has', async () => {
      const next = `${randomUUID()}@testuser.com`;
      const res = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'userName', value: next }],
      }).expect(200);
      expect(res.body.userName).toBe(next);
      const taken = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'userName', value: owner.email }],
      });
      expectScimError(taken, 409, 'uniqueness');
    });

    it('Patch User - Add Attributes without path, with URN keys and value-path keys', async () => {
      const res = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [
          {
            op: 'Add',
            value: {
              displayName: 'Entra Person',
              [`${ENTERPRISE}:costCenter`]: 'CC-7',
              'name.givenName': 'Grace',
              'emails[type eq "work"].value': 'ignored@testuser.com',
            },
          },
          { op: 'add', path: `${ENTERPRISE}:division`, value: 'Sciences' },
        ],
      }).expect(200);
      expect(res.body).toMatchObject({
        displayName: 'Entra Person',
        name: { givenName: 'Grace' },
        [ENTERPRISE]: { costCenter: 'CC-7', division: 'Sciences', department: 'Physics' },
      });
    });

    it('shows the directory attributes in the member record to owners and admins only', async () => {
      const asOwner = await owner.agent
        .get(`/api/v1/organizations/${orgId}/members?q=${encodeURIComponent(mail.toLowerCase())}`)
        .expect(200);
      expect(asOwner.body.items).toHaveLength(1);
      expect(asOwner.body.items[0].directory).toMatchObject({
        department: 'Physics',
        employeeNumber: 'E-42',
        costCenter: 'CC-7',
        division: 'Sciences',
        given_name: 'Grace',
        family_name: 'updatedFamilyName',
      });
      const asAdmin = await admin.agent
        .get(`/api/v1/organizations/${orgId}/members?q=${encodeURIComponent(mail.toLowerCase())}`)
        .expect(200);
      expect(asAdmin.body.items[0].directory.department).toBe('Physics');
      const others = await owner.agent
        .get(`/api/v1/organizations/${orgId}/members?q=${encodeURIComponent(student.email)}`)
        .expect(200);
      expect(others.body.items[0].directory).toBeNull();
    });

    it('Patch User - Disable user with "False" (a string), then enable with "True"', async () => {
      const off = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
      }).expect(200);
      expect(off.body.active).toBe(false);
      const filtered = await get(`/Users?filter=${encodeURIComponent(`active eq "False" and userName pr`)}`).expect(
        200,
      );
      expect(filtered.body.Resources.map((r: { id: string }) => r.id)).toContain(id);
      const on = await send('patch', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'active', value: 'True' }],
      }).expect(200);
      expect(on.body.active).toBe(true);
    });

    it('refuses bad patches: not a PatchOp, unknown op, remove without path, read-only id', async () => {
      expectScimError(await send('patch', `/Users/${id}`, { Operations: [] }), 400, 'invalidSyntax');
      expectScimError(
        await send('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'merge', path: 'x' }] }),
        400,
        'invalidSyntax',
      );
      expectScimError(
        await send('patch', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }),
        400,
        'noTarget',
      );
      expectScimError(
        await send('patch', `/Users/${id}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'replace', path: 'id', value: 'x' }],
        }),
        400,
        'mutability',
      );
      expectScimError(
        await send('patch', `/Users/${id}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'replace', path: 'nickName', value: 'x' }],
        }),
        400,
        'invalidPath',
      );
    });

    it('Create a new Group (with Entra’s extra schema), then Get Group with excludedAttributes=members', async () => {
      const res = await send('post', '/Groups', {
        externalId: randomUUID(),
        displayName: `Physics ${suffix.slice(0, 6)}`,
        meta: { resourceType: 'Group' },
        schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
      }).expect(201);
      groupId = res.body.id;
      expect(res.body).toMatchObject({ schemas: [GROUP], displayName: `Physics ${suffix.slice(0, 6)}`, members: [] });
      const got = await get(`/Groups/${groupId}?excludedAttributes=members`).expect(200);
      expect(got.body.members).toBeUndefined();
      expect(got.body.displayName).toBe(`Physics ${suffix.slice(0, 6)}`);
      expect(await auditRows('scim.group_created', groupId)).toHaveLength(1);
      expectScimError(
        await send('post', '/Groups', { schemas: [GROUP], displayName: `physics ${suffix.slice(0, 6)}` }),
        409,
        'uniqueness',
      );
    });

    it('Filter for an existing group by displayName with excludedAttributes=members', async () => {
      const res = await get(
        `/Groups?excludedAttributes=members&filter=${encodeURIComponent(`displayName eq "Physics ${suffix.slice(0, 6)}"`)}`,
      ).expect(200);
      expect(res.body.totalResults).toBe(1);
      expect(res.body.Resources[0].id).toBe(groupId);
      expect(res.body.Resources[0].members).toBeUndefined();
    });

    it('Patch Group - Add Member, Remove Member (value list and value filter), Replace Attributes', async () => {
      await send('patch', `/Groups/${groupId}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: id }, { value: teacher.user.id }] }],
      }).expect(200);
      const withMembers = await get(`/Groups/${groupId}`).expect(200);
      expect(withMembers.body.members.map((m: { value: string }) => m.value).sort()).toEqual(
        [id, teacher.user.id].sort(),
      );
      const roles = await t.db.query(`SELECT user_id, role FROM cohort_members WHERE cohort_id = $1`, [groupId]);
      expect(Object.fromEntries(roles.map((r: { user_id: string; role: string }) => [r.user_id, r.role]))).toEqual({
        [id]: 'student',
        [teacher.user.id]: 'teacher',
      });
      const byMember = await get(
        `/Groups?filter=${encodeURIComponent(`members[value eq "${id}"]`)}&excludedAttributes=members`,
      ).expect(200);
      expect(byMember.body.Resources.map((g: { id: string }) => g.id)).toEqual([groupId]);
      const userGroups = (await get(`/Users/${id}`).expect(200)).body.groups;
      expect(userGroups).toEqual([
        { value: groupId, display: `Physics ${suffix.slice(0, 6)}`, $ref: `${t.baseUrl}/scim/v2/Groups/${groupId}` },
      ]);

      await send('patch', `/Groups/${groupId}?excludedAttributes=members`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: teacher.user.id }] }],
      }).expect(204);
      await send('patch', `/Groups/${groupId}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
      }).expect(200);
      expect((await get(`/Groups/${groupId}`).expect(200)).body.members).toEqual([]);

      const renamed = await send('patch', `/Groups/${groupId}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'Replace', path: 'displayName', value: `${suffix}updatedDisplayName` }],
      }).expect(200);
      expect(renamed.body.displayName).toBe(`${suffix}updatedDisplayName`);
      expect((await auditRows('scim.group_updated', groupId)).length).toBeGreaterThanOrEqual(4);
    });

    it('Okta Push Groups: rename with a path-less replace that repeats the id', async () => {
      const res = await send('patch', `/Groups/${groupId}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', value: { id: groupId, displayName: `Okta ${suffix.slice(0, 6)}` } }],
      }).expect(200);
      expect(res.body.displayName).toBe(`Okta ${suffix.slice(0, 6)}`);
      expectScimError(
        await send('patch', `/Groups/${groupId}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'replace', value: { id: randomUUID() } }],
        }),
        400,
        'mutability',
      );
    });

    it('refuses a member who is not a member of the organization (400 invalidValue)', async () => {
      expectScimError(
        await send('patch', `/Groups/${groupId}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'add', path: 'members', value: [{ value: otherOwner.user.id }] }],
        }),
        400,
        'invalidValue',
      );
      expectScimError(
        await send('post', '/Groups', { schemas: [GROUP], displayName: 'Strangers', members: [{ value: 'nobody' }] }),
        400,
        'invalidValue',
      );
    });

    it('Delete User: the membership ends (member.left), the account stays', async () => {
      await del(`/Users/${id}`).expect(204);
      expectScimError(await get(`/Users/${id}`), 404);
      expect((await t.db.query(`SELECT id FROM users WHERE id = $1`, [id])).length).toBe(1);
      expect(await events('member.left', id)).toBe(1);
      expect(await auditRows('scim.user_deleted', id)).toHaveLength(1);
      expectScimError(await del(`/Users/${id}`), 404);
    });

    it('Delete Group', async () => {
      await del(`/Groups/${groupId}`).expect(204);
      expectScimError(await get(`/Groups/${groupId}`), 404);
      expect(await auditRows('scim.group_deleted', groupId)).toHaveLength(1);
    });
  });

  describe('deprovisioning', () => {
    it('active:false refuses the person’s organization-bound token from the next request (within 1 s), true restores', async () => {
      const person = await adult(t);
      await addMember(t, orgId, person.user.id, 'student');
      const pat = await personalToken(t, person, orgId, 'read');
      await bearer(t, pat).get(`/api/v1/organizations/${orgId}`).expect(200);
      await person.agent.get(`/api/v1/organizations/${orgId}`).expect(200);

      const sent = Date.now();
      await send('patch', `/Users/${person.user.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      }).expect(200);
      await bearer(t, pat).get(`/api/v1/organizations/${orgId}`).expect(401);
      expect(Date.now() - sent).toBeLessThan(1_000);
      // The session loses the organization.
      await person.agent.get(`/api/v1/organizations/${orgId}`).expect(404);

      await send('patch', `/Users/${person.user.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: true }],
      }).expect(200);
      await bearer(t, pat).get(`/api/v1/organizations/${orgId}`).expect(200);
    });

    it('keeps owners out of SCIM’s reach (403 with detail)', async () => {
      const current = (await get(`/Users/${owner.user.id}`).expect(200)).body;
      const patch = await send('patch', `/Users/${owner.user.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      });
      expectScimError(patch, 403);
      expect(patch.body.detail).toMatch(/Owners/);
      expectScimError(await send('put', `/Users/${owner.user.id}`, { ...current, active: false }), 403);
      expectScimError(await del(`/Users/${owner.user.id}`), 403);
      expect((await get(`/Users/${owner.user.id}`).expect(200)).body.active).toBe(true);
    });
  });

  describe('filters (RFC 7644 3.4.2.2, compiled to SQL)', () => {
    const q = (filter: string, extra = '') => get(`/Users?filter=${encodeURIComponent(filter)}${extra}`);

    it('supports the grammar on the supported attributes', async () => {
      const teacherEmail = teacher.email;
      expect((await q(`userName eq "${teacherEmail}"`).expect(200)).body.totalResults).toBe(1);
      expect((await q(`USERNAME Eq "${teacherEmail.toUpperCase()}"`).expect(200)).body.totalResults).toBe(1);
      expect(
        (await q(`userName sw "${teacherEmail.slice(0, 6)}" and active eq true`).expect(200)).body.totalResults,
      ).toBeGreaterThanOrEqual(1);
      expect((await q(`not (userName ne "${teacherEmail}")`).expect(200)).body.totalResults).toBe(1);
      expect(
        (await q(`(userName eq "${teacherEmail}") or (userName eq "${student.email}")`).expect(200)).body.totalResults,
      ).toBe(2);
      expect(
        (await q(`emails[type eq "work" and value co "${teacherEmail.split('@')[0]}"]`).expect(200)).body.totalResults,
      ).toBe(1);
      expect((await q(`userName ew "${teacherEmail.slice(-8)}"`).expect(200)).body.totalResults).toBeGreaterThanOrEqual(
        1,
      );
      expect((await q(`meta.created gt "2000-01-01T00:00:00Z"`).expect(200)).body.totalResults).toBeGreaterThanOrEqual(
        4,
      );
      expect((await q(`meta.created lt "2000-01-01T00:00:00Z"`).expect(200)).body.totalResults).toBe(0);
      expect((await q(`externalId pr`).expect(200)).body.totalResults).toBeGreaterThanOrEqual(1);
      expect((await q(`id eq "${teacher.user.id.toUpperCase()}"`).expect(200)).body.totalResults).toBe(1);
    });

    it('pages with startIndex and count (0..200), and honours attributes / excludedAttributes', async () => {
      const all = (await get('/Users?count=200').expect(200)).body;
      const second = (await get('/Users?startIndex=2&count=1').expect(200)).body;
      expect(second).toMatchObject({ startIndex: 2, itemsPerPage: 1, totalResults: all.totalResults });
      expect(second.Resources[0].id).toBe(all.Resources[1].id);
      const none = (await get('/Users?count=0').expect(200)).body;
      expect(none).toMatchObject({ totalResults: all.totalResults, itemsPerPage: 0, Resources: [] });
      expect((await get('/Users?count=5000').expect(200)).body.itemsPerPage).toBeLessThanOrEqual(200);
      const slim = (await get('/Users?count=1&attributes=userName').expect(200)).body.Resources[0];
      expect(Object.keys(slim).sort()).toEqual(['id', 'meta', 'schemas', 'userName']);
      const noGroups = (await get('/Users?count=1&excludedAttributes=groups,emails').expect(200)).body.Resources[0];
      expect(noGroups.groups).toBeUndefined();
      expect(noGroups.emails).toBeUndefined();
    });

    it('refuses unsupported attributes and bad syntax (400 invalidFilter)', async () => {
      expectScimError(await q('password eq "x"'), 400, 'invalidFilter');
      expectScimError(await q('userName eq'), 400, 'invalidFilter');
      expectScimError(await q('userName xx "a"'), 400, 'invalidFilter');
      expectScimError(await q('active gt true'), 400, 'invalidFilter');
      expectScimError(await q('meta.created gt "yesterday"'), 400, 'invalidFilter');
    });

    it('is not injectable: a value is only ever a parameter', async () => {
      const res = await q(`userName eq "x' OR '1'='1" or userName eq "\\" OR 1=1 --"`).expect(200);
      expect(res.body.totalResults).toBe(0);
      expectScimError(await q(`userName eq "a") OR (1=1`), 400, 'invalidFilter');
      expectScimError(await q(`username; DROP TABLE users; -- eq "a"`), 400, 'invalidFilter');
      expect((await t.db.query(`SELECT count(*)::int AS n FROM users`))[0].n).toBeGreaterThan(0);
    });
  });

  describe('errors and limits (2.2, 2.4, 2.5)', () => {
    it('answers malformed JSON and unknown schemas in SCIM form', async () => {
      const malformed = await t
        .client()
        .post('/scim/v2/Users')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', SCIM_JSON)
        .send('{"schemas": [');
      expectScimError(malformed, 400, 'invalidSyntax');
      expectScimError(
        await send('post', '/Users', { ...newUser(`${randomUUID()}@x.example`), schemas: ['urn:example:Printer'] }),
        400,
        'invalidSyntax',
      );
      expectScimError(
        await send('post', '/Users', { ...newUser(`${randomUUID()}@x.example`), schemas: [USER, 'urn:example:Ext'] }),
        400,
        'invalidSyntax',
      );
      expectScimError(await send('post', '/Groups', { schemas: [USER], displayName: 'x' }), 400, 'invalidSyntax');
      expectScimError(await send('post', '/Users', { schemas: [USER], userName: 'not-an-email' }), 400, 'invalidValue');
      expectScimError(
        await send('post', '/Users', { ...newUser(`${randomUUID()}@x.example`), active: 'maybe' }),
        400,
        'invalidValue',
      );
      // Plain application/json is accepted too.
      await t
        .client()
        .post('/scim/v2/Users')
        .set('Authorization', `Bearer ${token}`)
        .send(newUser(`${randomUUID()}@json.example`))
        .expect(201);
    });

    it('answers the plan’s member limit as 409 with detail member_limit_reached', async () => {
      await t.app
        .get(OrganizationsService)
        .changePlan(
          otherOrgId,
          { plan: 'limited', member_limit: 1, ai_monthly_tokens: null, ai_monthly_requests: null },
          otherOwner.user.id,
        );
      const res = await send('post', '/Users', newUser(`${randomUUID()}@limit.example`), otherToken);
      expectScimError(res, 409);
      expect(res.body.detail).toMatch(/member_limit_reached/);
    });

    it('takes groups of at most 10 000 members (10 001: 400 tooMany)', async () => {
      // 10 001 members of the organization, as fixtures (the directory's own creation path is tested above).
      const ids: string[] = await t.db
        .query(
          `WITH u AS (
             INSERT INTO users (email, username, locale, time_zone, platform_roles, created_at, updated_at)
             SELECT 'bulk' || g || '-' || $2 || '@bulk.example', 'bulk' || g || '_' || $2, 'es', 'UTC', '{}', now(), now()
             FROM generate_series(1, 10001) g RETURNING id)
           INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'student' FROM u RETURNING user_id`,
          [orgId, randomUUID().slice(0, 8)],
        )
        .then((rows: { user_id: string }[]) => rows.map((r) => r.user_id));
      const members = ids.map((value) => ({ value }));
      const tooMany = await send('post', '/Groups', { schemas: [GROUP], displayName: 'Everyone', members });
      expectScimError(tooMany, 400, 'tooMany');
      const big = await send('post', '/Groups?excludedAttributes=members', {
        schemas: [GROUP],
        displayName: 'Everyone',
        members: members.slice(0, 10_000),
      }).expect(201);
      const count = await t.db.query(`SELECT count(*)::int AS n FROM cohort_members WHERE cohort_id = $1`, [
        big.body.id,
      ]);
      expect(count[0].n).toBe(10_000);
      expectScimError(
        await send('patch', `/Groups/${big.body.id}`, {
          schemas: [PATCH_OP],
          Operations: [{ op: 'add', path: 'members', value: [{ value: ids[10_000] }] }],
        }),
        400,
        'tooMany',
      );
      await del(`/Groups/${big.body.id}`).expect(204);
    }, 120_000);

    it('limits a token to 1 200 requests a minute (429 with Retry-After in SCIM form), the 1 200th passes', async () => {
      const fresh = (await createToken(owner, orgId).expect(201)).body;
      await t.app.get(RateLimitService).consume(scimTokenBudget(1200), fresh.id, 1199);
      await get('/ServiceProviderConfig', fresh.token).expect(200);
      const over = await get('/ServiceProviderConfig', fresh.token);
      expectScimError(over, 429);
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      // Other tokens keep their own budget.
      await get('/ServiceProviderConfig').expect(200);
      await owner.agent.delete(`/api/v1/organizations/${orgId}/scim/tokens/${fresh.id}`).expect(204);
    });

    it('logs the last SCIM requests for owners and admins (no bodies)', async () => {
      // Lines are written when each response has finished: wait for the last request's.
      const res = await waitUntil(
        async () => {
          const r = await admin.agent.get(`/api/v1/organizations/${orgId}/scim/activity`).expect(200);
          return r.body.items[0]?.path === '/scim/v2/ServiceProviderConfig' ? r : null;
        },
        { what: 'the activity line of the last request' },
      );
      expect(res.body.items.length).toBeGreaterThan(10);
      expect(res.body.items.length).toBeLessThanOrEqual(500);
      expect(Object.keys(res.body.items[0]).sort()).toEqual(['at', 'detail', 'method', 'path', 'status']);
      expect(res.body.items[0]).toMatchObject({ method: 'GET', path: '/scim/v2/ServiceProviderConfig', status: 200 });
      const errors = res.body.items.filter((i: { status: number }) => i.status === 409);
      expect(errors[0].detail).toMatch(/uniqueness/);
      expect(JSON.stringify(res.body)).not.toContain('"password"');
      await otherOwner.agent.get(`/api/v1/organizations/${orgId}/scim/activity`).expect(404);
    });

    it('keeps the activity log to the last 500 requests', async () => {
      await t.db.query(
        `INSERT INTO scim_activity (organization_id, token_id, at, method, path, status)
         SELECT $1, $2, now(), 'GET', '/scim/v2/Old/' || g, 200 FROM generate_series(1, 600) g`,
        [orgId, tokenId],
      );
      await get('/ServiceProviderConfig').expect(200);
      // The line is written when the response has finished: wait for it.
      const res = await waitUntil(
        async () => {
          const r = await owner.agent.get(`/api/v1/organizations/${orgId}/scim/activity`).expect(200);
          return r.body.items[0].path === '/scim/v2/ServiceProviderConfig' ? r : null;
        },
        { what: 'the activity line of the last request' },
      );
      expect(res.body.items).toHaveLength(500);
    });
  });

  // A creation takes no lock and reads nothing first: the unique indexes decide (scim-users.service.ts create).
  describe('uniqueness of userName, decided by the writes', () => {
    async function accounts(email: string): Promise<number> {
      const rows = await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM users WHERE email = $1`, [
        email.toLowerCase(),
      ]);
      return rows[0].n;
    }

    it('refuses a userName another member holds (409 uniqueness) and leaves no account of the new email', async () => {
      const name = `dir_${randomUUID().slice(0, 8)}`;
      const first = `${randomUUID()}@first.example`;
      const second = `${randomUUID()}@second.example`;
      const body = (mail: string) => ({ schemas: [USER], userName: name, emails: [{ primary: true, value: mail }] });
      await send('post', '/Users', body(first)).expect(201);
      expectScimError(await send('post', '/Users', body(second)), 409, 'uniqueness');
      expect(await accounts(second)).toBe(0);
      // The same name in another case is the same name.
      expectScimError(
        await send('post', '/Users', { ...body(second), userName: name.toUpperCase() }),
        409,
        'uniqueness',
      );
      expect(await accounts(second)).toBe(0);
    });

    it('creates a userName once when two creations race: one 201, the other 409 uniqueness', async () => {
      const email = `${randomUUID()}@race.example`;
      const same = await Promise.all([send('post', '/Users', newUser(email)), send('post', '/Users', newUser(email))]);
      expect(same.map((r) => r.status).sort()).toEqual([201, 409]);
      expectScimError(
        same.find((r) => r.status === 409)!,
        409,
        'uniqueness',
      );

      // One directory name, two different emails: one account joins, the other is not left behind.
      const name = `race_${randomUUID().slice(0, 8)}`;
      const mails = [`${randomUUID()}@race.example`, `${randomUUID()}@race.example`];
      const named = await Promise.all(
        mails.map((mail) => send('post', '/Users', { schemas: [USER], userName: name, emails: [{ value: mail }] })),
      );
      expect(named.map((r) => r.status).sort()).toEqual([201, 409]);
      const loser = mails[named.findIndex((r) => r.status === 409)];
      expect(await accounts(loser)).toBe(0);
      const found = await get(`/Users?filter=${encodeURIComponent(`userName eq "${name}"`)}`).expect(200);
      expect(found.body.totalResults).toBe(1);
    });
  });

  describe('SCIM_ENABLED=false', () => {
    let off: TestApp;

    beforeAll(async () => {
      off = await createTestApp({ env: { SCIM_ENABLED: 'false' } });
    }, 60_000);

    afterAll(async () => {
      await off?.close();
    });

    it('answers 404 feature_disabled on the token routes and on /scim/v2 (in SCIM form)', async () => {
      const boss = await adult(off);
      const org = await createOrganization(off, boss);
      const list = await boss.agent.get(`/api/v1/organizations/${org}/scim/tokens`).expect(404);
      expect(list.body.error.code).toBe('feature_disabled');
      const res = await off.client().get('/scim/v2/ServiceProviderConfig').set('Authorization', `Bearer ${token}`);
      expectScimError(res, 404);
      expect(res.body.detail).toMatch(/feature_disabled/);
    });
  });
});
