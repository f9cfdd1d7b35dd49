import { FragileExporterModule, privacyExportsCases } from './privacy-exports.cases';
import type { SignedIn } from '../../support/auth';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** The privacy export cases on the S3 driver of the file store (a real S3 server on loopback). */
describe('privacy exports (s3 store)', () => {
  let t: TestApp;
  let org: string;
  let owner: SignedIn;

  beforeAll(async () => {
    t = await createTestApp({ storage: 's3', imports: [FragileExporterModule] });
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Privacy Org');
  });
  afterAll(() => t.close());

  it('runs on S3', () => {
    expect(t.config.storage.driver).toBe('s3');
  });

  privacyExportsCases(() => ({ t, org, owner }));
});
