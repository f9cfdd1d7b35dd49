import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { FileStore } from '@/core/files/file-store';
import { S3FileStore, s3Client } from '@/core/files/s3-file-store';
import { SeoService } from '@/modules/learning/editor';
import { makeCourse } from '../../cross-tenant/learning.routes';
import { storedBytes } from '../../support/stored-files';
import { adult } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** The file store in the readiness probe (extensions-v3 5.1): a HEAD on the bucket, or a writable folder. */
describe('file store: driver choice and /ready', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ storage: 's3', redis: false });
  });
  afterAll(() => t.close());

  it('STORAGE_URL=s3://... picks the S3 driver; /ready answers 200 while the bucket answers', async () => {
    expect(t.app.get(FileStore)).toBeInstanceOf(S3FileStore);
    expect(t.config.storage).toMatchObject({ driver: 's3', bucket: 'lp-test', forcePathStyle: true });
    await t.http().get('/ready').expect(200, { status: 'ok' });
  });

  it('the static SEO pages are plain HTML objects in the bucket (text/html), removed when the course is unpublished', async () => {
    const author = await adult(t);
    const course = await makeCourse(t, author.user.id, { title: `SEO on S3 ${t.suffix}` });
    const seo = t.app.get(SeoService);
    expect((await seo.rebuildAll()).slugs).toContain(course.slug);
    const key = `seo/courses/${course.slug}.html`;
    const page = await storedBytes(t, key);
    expect(page.subarray(0, 15).toString()).toBe('<!doctype html>');
    expect(page.toString()).toContain(`SEO on S3 ${t.suffix}`);
    if (t.config.storage.driver !== 's3') throw new Error('expected s3');
    const client = s3Client(t.config.storage);
    try {
      const head = await client.send(new HeadObjectCommand({ Bucket: t.config.storage.bucket, Key: key }));
      expect(head.ContentType).toBe('text/html; charset=utf-8');
    } finally {
      client.destroy();
    }
    expect((await seo.rebuildAll()).slugs).not.toContain(course.slug);
    await t.db.query(`UPDATE courses SET status = 'draft' WHERE id = $1`, [course.id]);
    await seo.rebuildAll();
    expect(await t.app.get(FileStore).exists(key)).toBe(false);
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
