import { signIn } from '../../support/auth';
import { createTestApp, type TestApp } from '../../support/test-app';

/** `LTI_ENABLED=false` (extensions-v3 7): every LTI route answers 404 `feature_disabled`. */
describe('LTI switched off', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { LTI_ENABLED: 'false', PLATFORM_ADMIN_EMAILS: 'lti-off@platform.test' } });
  });
  afterAll(() => t.close());

  it('answers 404 feature_disabled on the public, admin and service routes', async () => {
    const admin = await signIn(t, 'lti-off@platform.test');
    for (const res of [
      await t.client().get('/api/v1/lti/jwks'),
      await t.client().get('/api/v1/lti/authorize'),
      await t.client().post('/api/v1/lti/token').type('form').send({ grant_type: 'client_credentials' }),
      await admin.agent.get('/api/v1/admin/lti/tools'),
    ]) {
      expect([res.status, res.body.error?.code]).toEqual([404, 'feature_disabled']);
    }
  });
});
