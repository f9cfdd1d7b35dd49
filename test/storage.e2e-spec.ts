import { FileStore } from '@/core/files/file-store';
import { S3FileStore } from '@/core/files/s3-file-store';
import { createTestApp, type TestApp } from './support/test-app';

/** The file store in the readiness probe (extensions-v3 5.1): a HEAD on the bucket, or a writable folder. */
describe('file store: driver choice and /ready', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ storage: 's3', redis: false, smtp: false });
  });
  afterAll(() => t.close());

  it('STORAGE_URL=s3://... picks the S3 driver; /ready answers 200 while the bucket answers', async () => {
    expect(t.app.get(FileStore)).toBeInstanceOf(S3FileStore);
    expect(t.config.storage).toMatchObject({ driver: 's3', bucket: 'lp-test', forcePathStyle: true });
    await t.http().get('/ready').expect(200, { status: 'ok' });
  });

  it('/ready answers 503 service_unavailable naming the storage when the bucket does not answer', async () => {
    await t.s3!.stop();
    const res = await t.http().get('/ready').expect(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.body.error.message).toBe('Not ready: storage not responding.');
  });
});

describe('file store: a folder that cannot be written', () => {
  it('/ready answers 503 naming the storage', async () => {
    const t = await createTestApp({ redis: false, smtp: false, env: { STORAGE_URL: 'file:///proc/lp-no-such-dir' } });
    try {
      await t.http().get('/ready').expect(503);
      expect((await t.http().get('/ready')).body.error.message).toBe('Not ready: storage not responding.');
    } finally {
      await t.close();
    }
  });
});
