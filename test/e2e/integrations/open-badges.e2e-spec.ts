import { createHash, randomBytes } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import type { SignedIn } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const CONTEXT = ['https://www.w3.org/ns/credentials/v2', 'https://purl.imsglobal.org/spec/ob/v3p0/context-3.0.3.json'];

describe('Open Badges 3.0 credentials (extensions-v2 25.5)', () => {
  let t: TestApp;
  let owner: SignedIn;
  let holder: SignedIn;
  let other: SignedIn;
  let org: string;
  let orgB: string;
  let courseId: string;

  const mine = (id: string, query = ''): string => `/api/v1/me/certificates/${id}/open-badge${query}`;
  const status = (id: string): string => `/api/v1/public/ob/credentials/${id}/status`;

  async function course(title: string, state: 'published' | 'draft' = 'published'): Promise<string> {
    const [row] = await t.db.query(
      `INSERT INTO courses (slug, title, summary, language, level, status, visibility, issues_certificate, published_at)
       VALUES ($1, $2, $3, 'en', 'beginner', $4, 'public', true, now()) RETURNING id`,
      [`c-${randomBytes(5).toString('hex')}`, title, `About ${title}`, state],
    );
    return row.id;
  }

  /** An issued certificate written directly (issuing belongs to course completion, tested there). */
  async function cert(user: SignedIn, subject: string, inOrg = org): Promise<{ id: string; code: string }> {
    const alphabet = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
    const pick = (): string => Array.from(randomBytes(4), (b) => alphabet[b % alphabet.length]).join('');
    const [row] = await t.db.query(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, course_id, title, issued_at)
       VALUES ($1, 'course', $2, $3, 'Holder Q. Person', $4, 'Data Literacy', '2026-11-20T10:00:00.000Z')
       RETURNING id, code`,
      [`CRS-${pick()}-${pick()}`, inOrg, user.user.id, subject],
    );
    return row;
  }

  async function jwks(): Promise<JSONWebKeySet> {
    const res = await t.http().get('/api/v1/public/ob/jwks').expect(200);
    return res.body;
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Badge Academy');
    holder = await adult(t);
    other = await adult(t);
    await addMember(t, org, holder.user.id, 'student');
    await addMember(t, org, other.user.id, 'student');
    orgB = await createOrganization(t, other, 'Elsewhere');
    courseId = await course('Data Literacy');
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('publishes the Ed25519 key as a JWK set with kid', async () => {
    const set = await jwks();
    expect(set.keys).toHaveLength(1);
    expect(set.keys[0]).toEqual({
      kty: 'OKP',
      crv: 'Ed25519',
      x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      kid: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      alg: 'EdDSA',
      use: 'sig',
    });
    expect(JSON.stringify(set)).not.toContain('"d"');
  });

  it('signs the certificate as a JWT VC that verifies with jose against the published JWK set', async () => {
    const c = await cert(holder, courseId);
    const res = await holder.agent.get(mine(c.id)).expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/vc\+jwt/);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const jwt = res.text;
    const header = decodeProtectedHeader(jwt);
    const set = await jwks();
    expect(header).toEqual({ alg: 'EdDSA', kid: set.keys[0].kid, typ: 'vc+jwt' });

    const issuerId = `${t.baseUrl}/api/v1/public/ob/issuers/${org}`;
    const { payload } = await jwtVerify(jwt, createLocalJWKSet(set), {
      algorithms: ['EdDSA'],
      typ: 'vc+jwt',
      issuer: issuerId,
      subject: `urn:uuid:${c.id}`,
      currentDate: new Date(),
    });
    const issued = Date.parse('2026-11-20T10:00:00.000Z') / 1000;
    expect(payload).toMatchObject({
      iss: issuerId,
      sub: `urn:uuid:${c.id}`,
      jti: `urn:uuid:${c.id}`,
      nbf: issued,
      iat: issued,
    });

    const vc = payload.vc as {
      credentialSubject: { identifier: { identityHash: string; salt: string }[] };
    };
    expect(vc).toEqual({
      '@context': CONTEXT,
      id: `urn:uuid:${c.id}`,
      type: ['VerifiableCredential', 'OpenBadgeCredential'],
      issuer: { id: issuerId, type: ['Profile'], name: 'Badge Academy' },
      validFrom: '2026-11-20T10:00:00.000Z',
      name: 'Data Literacy',
      credentialSubject: {
        type: ['AchievementSubject'],
        identifier: [
          {
            type: 'IdentityObject',
            identityHash: expect.stringMatching(/^sha256\$[0-9a-f]{64}$/),
            identityType: 'emailAddress',
            hashed: true,
            salt: expect.any(String),
          },
        ],
        achievement: {
          id: `${t.baseUrl}/api/v1/public/ob/achievements/${courseId}`,
          type: ['Achievement'],
          name: 'Data Literacy',
          description: 'About Data Literacy',
          criteria: { narrative: expect.stringContaining('Data Literacy') },
        },
      },
      credentialStatus: {
        id: `${t.baseUrl}/api/v1/public/certificates/verify/${c.code}`,
        type: '1EdTechRevocationList',
      },
    });
    // The subject is the salted hash of the holder's email; the name appears nowhere.
    const { identityHash, salt } = vc.credentialSubject.identifier[0];
    expect(identityHash).toBe(
      `sha256$${createHash('sha256')
        .update(holder.email + salt)
        .digest('hex')}`,
    );
    expect(JSON.stringify(payload)).not.toContain('Holder Q. Person');
    expect(JSON.stringify(payload)).not.toContain(holder.email);

    // The same credential unsigned.
    const json = await holder.agent.get(mine(c.id, '?format=json')).expect(200);
    expect(json.headers['content-type']).toMatch(/^application\/json/);
    expect(json.body).toEqual(vc);
    // Stable: fetched again, the same credential (same salt).
    const again = await holder.agent.get(mine(c.id)).expect(200);
    expect((await jwtVerify(again.text, createLocalJWKSet(set))).payload.vc).toEqual(vc);

    // A changed credential no longer verifies.
    const [h, p, s] = jwt.split('.');
    const forged = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
    forged.vc.name = 'Rocket Science';
    const tampered = `${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${s}`;
    await expect(jwtVerify(tampered, createLocalJWKSet(set))).rejects.toThrow(/signature/i);
  });

  it('is the holder’s only: another person, a token of another organization and bad input get 404/422', async () => {
    const c = await cert(holder, await course('Private Course'));
    await other.agent.get(mine(c.id)).expect(404);
    await owner.agent.get(mine(c.id)).expect(404);
    await holder.agent.get(mine('not-a-uuid')).expect(404);
    await holder.agent.get(mine('9b2f4d1e-7a53-4f7b-9d6c-1d2e3f4a5b6c')).expect(404);
    const bad = await holder.agent.get(mine(c.id, '?format=xml'));
    expect([bad.status, bad.body.error.code]).toEqual([422, 'validation_error']);
    // A personal token acts in one organization: its own certificates there, nothing of others.
    const ownOrg = await createOrganization(t, holder, 'Holder Org');
    const tokenOther = await personalToken(t, holder, ownOrg, 'read');
    await bearer(t, tokenOther).get(mine(c.id)).expect(404);
    const tokenHere = await personalToken(t, holder, org, 'read');
    const viaToken = await bearer(t, tokenHere).get(mine(c.id)).expect(200);
    expect(viaToken.text.split('.')).toHaveLength(3);
    await t.http().get(mine(c.id)).expect(401);
    void orgB;
  });

  it('serves issuer profiles and achievements publicly, only those of an issued, unrevoked credential (v3 6.11)', async () => {
    await owner.agent
      .patch(`/api/v1/organizations/${org}`)
      .send({ logo_url: 'https://cdn.example.com/logo.png' })
      .expect(200);
    const subject = await course('Data Science');
    // Nothing issued yet: neither the organization nor the course is shown to whoever has the id.
    const fresh = await createOrganization(t, owner, 'No Credentials Yet');
    await t.http().get(`/api/v1/public/ob/issuers/${fresh}`).expect(404);
    await t.http().get(`/api/v1/public/ob/achievements/${subject}`).expect(404);
    const only = await cert(holder, subject, fresh);
    const issuer = await t.http().get(`/api/v1/public/ob/issuers/${fresh}`).expect(200);
    expect(issuer.body).toEqual({
      '@context': CONTEXT,
      id: `${t.baseUrl}/api/v1/public/ob/issuers/${fresh}`,
      type: ['Profile'],
      name: 'No Credentials Yet',
      url: 'http://web.test',
    });
    const withLogo = await t.http().get(`/api/v1/public/ob/issuers/${org}`).expect(200);
    expect(withLogo.body).toMatchObject({ name: 'Badge Academy', image: 'https://cdn.example.com/logo.png' });
    await t.http().get('/api/v1/public/ob/issuers/9b2f4d1e-7a53-4f7b-9d6c-1d2e3f4a5b6c').expect(404);
    await t.http().get('/api/v1/public/ob/issuers/nope').expect(404);

    const achievement = await t.http().get(`/api/v1/public/ob/achievements/${subject}`).expect(200);
    expect(achievement.body).toEqual({
      '@context': CONTEXT,
      id: `${t.baseUrl}/api/v1/public/ob/achievements/${subject}`,
      type: ['Achievement'],
      name: 'Data Science',
      description: 'About Data Science',
      criteria: { narrative: expect.stringContaining('Data Science') },
    });
    // Its only credential revoked: 404 again, for the course and for the organization.
    await t.db.query(`UPDATE issued_certificates SET status = 'revoked' WHERE id = $1`, [only.id]);
    await t.http().get(`/api/v1/public/ob/achievements/${subject}`).expect(404);
    await t.http().get(`/api/v1/public/ob/issuers/${fresh}`).expect(404);
    // An organization-only draft with no credential: 404.
    const draft = await course('Draft Course', 'draft');
    await t.http().get(`/api/v1/public/ob/achievements/${draft}`).expect(404);
    await t.http().get('/api/v1/public/ob/achievements/nope').expect(404);
    // A program's achievement, once a program credential is issued.
    const [path] = await t.db.query(
      `INSERT INTO learning_paths (slug, title, description_md, kind, status) VALUES ($1, 'Data Program', 'All of it',
         'program', 'published') RETURNING id`,
      [`p-${randomBytes(5).toString('hex')}`],
    );
    await t.http().get(`/api/v1/public/ob/achievements/${path.id}`).expect(404);
    await t.db.query(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, path_id, title, issued_at)
       VALUES ($1, 'program', $2, $3, 'Holder Q. Person', $4, 'Data Program', '2026-11-20T10:00:00.000Z')`,
      [`PRG-${randomBytes(4).toString('hex').toUpperCase()}`, org, holder.user.id, path.id],
    );
    const program = await t.http().get(`/api/v1/public/ob/achievements/${path.id}`).expect(200);
    expect(program.body).toMatchObject({ name: 'Data Program', description: 'All of it' });
  });

  it('reflects revocation and replacement in the status route and the verification route', async () => {
    const c = await cert(holder, await course('Revocable'));
    expect((await t.client().get(status(c.id)).expect(200)).body).toEqual({ revoked: false, replaced_by: null });
    await owner.agent
      .post(`/api/v1/organizations/${org}/issued-certificates/${c.id}/revoke`)
      .send({ reason: 'Academic misconduct' })
      .expect(200);
    expect((await t.client().get(status(c.id)).expect(200)).body).toEqual({ revoked: true, replaced_by: null });
    // The credential's credentialStatus.id says so too.
    const vc = (await holder.agent.get(mine(c.id, '?format=json')).expect(200)).body;
    const verified = await t.client().get(new URL(vc.credentialStatus.id).pathname).expect(200);
    expect(verified.body.status).toBe('revoked');

    const old = await cert(holder, await course('Reissued'));
    const created = await owner.agent
      .post(`/api/v1/organizations/${org}/issued-certificates/${old.id}/reissue`)
      .send({ name: 'Holder Q. Persson', reason: 'Typo in the name' })
      .expect(201);
    expect((await t.client().get(status(old.id)).expect(200)).body).toEqual({
      revoked: false,
      replaced_by: created.body.code,
    });
    expect((await t.client().get(status(created.body.id)).expect(200)).body).toEqual({
      revoked: false,
      replaced_by: null,
    });
    await t.client().get(status('9b2f4d1e-7a53-4f7b-9d6c-1d2e3f4a5b6c')).expect(404);
    await t.client().get(status('nope')).expect(404);
  });

  it('limits the status route to 30 per minute per client address', async () => {
    const c = await cert(holder, await course('Limited'));
    const client = t.client();
    for (let i = 0; i < 30; i++) await client.get(status(c.id)).expect(200);
    const res = await client.get(status(c.id));
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBeDefined();
    await t.client().get(status(c.id)).expect(200);
  });
});

describe('Open Badges switched off (OB_ENABLED=false)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { OB_ENABLED: 'false' } });
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('answers 404 feature_disabled on every Open Badges route', async () => {
    const s = await adult(t);
    const org = await createOrganization(t, s);
    for (const path of [
      '/api/v1/public/ob/jwks',
      `/api/v1/public/ob/issuers/${org}`,
      `/api/v1/public/ob/credentials/${org}/status`,
      `/api/v1/public/ob/achievements/${org}`,
    ]) {
      const res = await t.client().get(path);
      expect({ path, status: res.status, code: res.body.error?.code }).toEqual({
        path,
        status: 404,
        code: 'feature_disabled',
      });
    }
    const me = await s.agent.get(`/api/v1/me/certificates/${org}/open-badge`);
    expect([me.status, me.body.error.code]).toEqual([404, 'feature_disabled']);
  });
});
