import { FragileExporterModule, privacyExportsCases } from './privacy-exports.cases';
import { PRIVACY_POLICY_VERSION, TERMS_VERSION } from '@/modules/identity/users';
import { type SignedIn, stepUpByEmail } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * Privacy (extensions-v2 17.1 to 17.3, 17.7): the record, consents, and data exports (their cases in
 * cases/privacy-exports.cases.ts, run here on the `file://` store and in privacy-exports-s3.e2e-spec.ts on S3).
 */
describe('privacy: record, consents, exports', () => {
  let t: TestApp;
  let org: string;
  let owner: SignedIn;

  beforeAll(async () => {
    t = await createTestApp({ imports: [FragileExporterModule] });
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Privacy Org');
  });
  afterAll(() => t.close());

  const count = async (sql: string, params: unknown[]): Promise<number> =>
    (await t.db.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM (${sql}) x`, params))[0].n;

  describe('the privacy record and consents (17.1, 17.2)', () => {
    it('a new adult: bracket adult, no guardian needed, every consent kind with its current version, nothing else', async () => {
      const s = await adult(t);
      const res = await s.agent.get('/api/v1/me/privacy').expect(200);
      expect(res.body).toEqual({
        age_bracket: 'adult',
        age_bracket_managed_by: null,
        guardian_consent: {
          status: 'not_required',
          source: null,
          guardian_email_masked: null,
          requested_at: null,
          decided_at: null,
          expires_at: null,
        },
        consents: [
          { kind: 'terms', granted: false, version: null, current_version: TERMS_VERSION, recorded_at: null },
          {
            kind: 'privacy_policy',
            granted: false,
            version: null,
            current_version: PRIVACY_POLICY_VERSION,
            recorded_at: null,
          },
          { kind: 'product_updates_email', granted: false, version: null, current_version: '1', recorded_at: null },
          {
            kind: 'adult_declaration',
            granted: true,
            version: TERMS_VERSION,
            current_version: TERMS_VERSION,
            recorded_at: expect.any(String),
          },
        ],
        exports: [],
        erasure: { status: 'none', requested_at: null, scheduled_for: null, keep_certificate_names: null },
      });
    });

    it('records, withdraws and lists consents as a history, most recent first; the latest is the state', async () => {
      const s = await adult(t);
      const terms = await s.agent
        .post('/api/v1/me/privacy/consents')
        .send({ kind: 'terms', granted: true })
        .expect(201);
      expect(terms.body).toEqual({
        kind: 'terms',
        granted: true,
        version: TERMS_VERSION,
        recorded_at: expect.any(String),
      });
      await s.agent
        .post('/api/v1/me/privacy/consents')
        .send({ kind: 'product_updates_email', granted: true })
        .expect(201);
      t.clock.advance(1_000);
      const withdrawn = await s.agent
        .post('/api/v1/me/privacy/consents')
        .send({ kind: 'product_updates_email', granted: false })
        .expect(201);
      expect(withdrawn.body).toMatchObject({ kind: 'product_updates_email', granted: false, version: '1' });
      await s.agent.post('/api/v1/me/privacy/consents').send({ kind: 'privacy_policy', granted: true }).expect(201);

      const all = await s.agent.get('/api/v1/me/privacy/consents').expect(200);
      expect(all.body.total).toBe(5);
      expect(all.body.items.map((c: { kind: string; granted: boolean }) => `${c.kind}:${c.granted}`)).toEqual([
        'privacy_policy:true',
        'product_updates_email:false',
        'product_updates_email:true',
        'terms:true',
        'adult_declaration:true',
      ]);
      const page = await s.agent.get('/api/v1/me/privacy/consents?kind=product_updates_email&limit=1&offset=1');
      expect(page.body).toMatchObject({ total: 2, limit: 1, offset: 1, items: [{ granted: true }] });
      const record = (await s.agent.get('/api/v1/me/privacy').expect(200)).body;
      expect(record.consents.find((c: { kind: string }) => c.kind === 'product_updates_email')).toMatchObject({
        granted: false,
        version: '1',
      });
    });

    it('refuses the kinds the person does not record, unknown kinds and bad bodies with 422; nothing is written', async () => {
      const s = await adult(t);
      const before = await count(`SELECT 1 FROM consents WHERE user_id = $1`, [s.user.id]);
      for (const body of [
        { kind: 'adult_declaration', granted: true },
        { kind: 'guardian_consent', granted: true },
        { kind: 'cookies', granted: true },
        { kind: 'terms' },
        { kind: 'terms', granted: 'yes' },
        { kind: 'terms', granted: true, version: '0' },
        {},
      ]) {
        const res = await s.agent.post('/api/v1/me/privacy/consents').send(body);
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
          body,
          status: 422,
          code: 'validation_error',
        });
      }
      await s.agent.get('/api/v1/me/privacy/consents?kind=cookies').expect(422);
      await s.agent.get('/api/v1/me/privacy/consents?limit=201').expect(422);
      expect(await count(`SELECT 1 FROM consents WHERE user_id = $1`, [s.user.id])).toBe(before);
    });

    it('a bearer token reads the record and the history; session rows refuse it with 403 forbidden', async () => {
      const s = await adult(t);
      await addMember(t, org, s.user.id, 'student');
      const token = await personalToken(t, s, org, 'write');
      await bearer(t, token).get('/api/v1/me/privacy').expect(200);
      await bearer(t, token).get('/api/v1/me/privacy/consents').expect(200);
      for (const [method, path, body] of [
        ['post', '/api/v1/me/privacy/consents', { kind: 'terms', granted: true }],
        ['post', '/api/v1/me/privacy/exports', undefined],
        ['get', '/api/v1/me/privacy/exports', undefined],
        ['post', '/api/v1/me/privacy/erasure', {}],
        ['delete', '/api/v1/me/privacy/erasure', undefined],
        ['put', '/api/v1/me/privacy/age-bracket', { age_bracket: 'adult' }],
      ] as const) {
        const res = await bearer(t, token)[method](path).send(body);
        expect({ path, method, status: res.status, code: res.body.error?.code }).toEqual({
          path,
          method,
          status: 403,
          code: 'forbidden',
        });
      }
      expect(await count(`SELECT 1 FROM privacy_exports WHERE user_id = $1`, [s.user.id])).toBe(0);
    });

    it('declaring the age bracket needs a step-up and takes effect on the next request', async () => {
      const s = await adult(t);
      const refused = await s.agent.put('/api/v1/me/privacy/age-bracket').send({ age_bracket: 'under_18' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('step_up_required');
      await stepUpByEmail(t, s);
      await s.agent.put('/api/v1/me/privacy/age-bracket').send({ age_bracket: 'teen' }).expect(422);
      const res = await s.agent.put('/api/v1/me/privacy/age-bracket').send({ age_bracket: 'under_18' }).expect(200);
      expect(res.body).toMatchObject({ age_bracket: 'under_18', guardian_consent: { status: 'none' } });
      // Now a minor: read-only but for the marked writes (a profile made public is refused).
      const pub = await s.agent.patch('/api/v1/me/profile').send({ public_profile: true });
      expect(pub.body.error.code).toBe('minor_restricted');
      const back = await s.agent.put('/api/v1/me/privacy/age-bracket').send({ age_bracket: 'adult' }).expect(200);
      expect(back.body.age_bracket).toBe('adult');
      await s.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
    });
  });

  privacyExportsCases(() => ({ t, org, owner }));
});
