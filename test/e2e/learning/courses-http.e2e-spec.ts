import { request as httpRequest } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { COMPRESS_MIN_BYTES, KEEP_ALIVE_TIMEOUT_MS } from '@/core/http/response-encoding';
import { EditorService } from '@/modules/learning/editor';
import type { SignedIn } from '../../support/auth';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';
import { addMember, adult, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** A raw GET (no client-side decompression): status, headers and the bytes as sent. */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('catalog, course and lesson reads over HTTP (ETag/304, compression, keep-alive)', () => {
  let t: TestApp;
  let author: SignedIn;
  let owner: SignedIn;
  let learner: SignedIn;
  let other: SignedIn;
  let org: string;
  let orgB: string;
  let small: MadeCourse;
  let large: MadeCourse;

  const courses = (o = org): string => `/api/v1/organizations/${o}/courses`;

  beforeAll(async () => {
    t = await createTestApp();
    author = await adult(t);
    owner = await adult(t);
    org = await createOrganization(t, owner, 'HTTP Org');
    orgB = await createOrganization(t, await adult(t), 'Other Org');
    learner = await adult(t);
    other = await adult(t);
    for (const s of [learner, other]) await addMember(t, org, s.user.id, 'student');
    small = await makeCourse(t, author.user.id, {
      title: `Small ${t.suffix}`,
      lessons: [{ title: 'Short', content_md: 'Hi.' }],
    });
    large = await makeCourse(t, author.user.id, {
      title: `Large ${t.suffix}`,
      lessons: [{ title: 'Long', content_md: 'A worked example of one idea, step by step. '.repeat(200) }],
    });
    await learner.agent.post(`${courses()}/${small.id}/enroll`).expect(201);
    await learner.agent.post(`${courses()}/${large.id}/enroll`).expect(201);
  });
  afterAll(() => t.close());

  describe('ETag and 304', () => {
    it.each([
      ['catalog', () => `${courses()}?limit=5`],
      ['course', () => `${courses()}/${small.id}`],
      ['lesson', () => `${courses()}/${small.id}/lessons/${small.lessons[0].id}`],
    ])(
      '%s: a weak ETag, private no-cache, Vary on the credentials; If-None-Match answers 304 without a body',
      async (_, path) => {
        const first = await learner.agent.get(path()).expect(200);
        const etag = first.headers.etag;
        expect(etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
        expect(first.headers['cache-control']).toBe('private, no-cache');
        expect(first.headers.vary).toEqual(expect.stringContaining('Cookie'));
        expect(first.headers.vary).toEqual(expect.stringContaining('Authorization'));
        const again = await learner.agent.get(path()).set('If-None-Match', etag).expect(304);
        expect(again.text ?? '').toBe('');
        expect(again.headers.etag).toBe(etag);
        // A list of validators, and the strong form of the same tag, match too (weak comparison).
        await learner.agent.get(path()).set('If-None-Match', `W/"other", ${etag}`).expect(304);
        await learner.agent.get(path()).set('If-None-Match', etag.slice(2)).expect(304);
        // Another tag: the whole answer.
        const changed = await learner.agent.get(path()).set('If-None-Match', 'W/"not-it"').expect(200);
        expect(changed.body).toEqual(first.body);
      },
    );

    it('the ETag changes after an edit of the course or the lesson, and after the caller completes a lesson', async () => {
      const c = await makeCourse(t, author.user.id, { title: `Edited ${t.suffix}`, lessons: [{ title: 'One' }] });
      await learner.agent.post(`${courses()}/${c.id}/enroll`).expect(201);
      const coursePath = `${courses()}/${c.id}`;
      const lessonPath = `${coursePath}/lessons/${c.lessons[0].id}`;
      const courseTag = (await learner.agent.get(coursePath).expect(200)).headers.etag;
      const lessonTag = (await learner.agent.get(lessonPath).expect(200)).headers.etag;

      const editor = t.app.get(EditorService);
      await editor.updateLesson(c.id, c.lessons[0].id, { title: 'One, renamed' });
      const lessonAfter = await learner.agent.get(lessonPath).set('If-None-Match', lessonTag).expect(200);
      expect(lessonAfter.body.title).toBe('One, renamed');
      expect(lessonAfter.headers.etag).not.toBe(lessonTag);
      const courseAfterRename = await learner.agent.get(coursePath).set('If-None-Match', courseTag).expect(200);
      expect(courseAfterRename.headers.etag).not.toBe(courseTag);

      await editor.update(c.id, { summary: 'A new summary' }, author.user.id);
      const renamedTag = courseAfterRename.headers.etag;
      const courseAfterEdit = await learner.agent.get(coursePath).set('If-None-Match', renamedTag).expect(200);
      expect(courseAfterEdit.body.summary).toBe('A new summary');

      await learner.agent.post(`${lessonPath}/complete`).expect(200);
      const done = await learner.agent.get(coursePath).set('If-None-Match', courseAfterEdit.headers.etag).expect(200);
      expect(done.body.progress.progress.completed_lessons).toBe(1);
    });

    it("a caller never gets a 304 for another caller's different answer, nor their body", async () => {
      // The learner is enrolled (progress, completed marks); the other member is not.
      const path = `${courses()}/${small.id}`;
      const mine = await learner.agent.get(path).expect(200);
      const theirs = await other.agent.get(path).set('If-None-Match', mine.headers.etag).expect(200);
      expect(theirs.body.progress).toBeNull();
      expect(theirs.body.enrolled).toBe(false);
      expect(theirs.headers.etag).not.toBe(mine.headers.etag);
      // Another organization's member with the tag: 404 as without it (no tag, no body of this organization).
      const stranger = await adult(t);
      await addMember(t, orgB, stranger.user.id, 'student');
      const outside = await stranger.agent.get(path).set('If-None-Match', mine.headers.etag).expect(404);
      expect(outside.headers.etag).toBeUndefined();
      expect(outside.body.error.code).toBe('not_found');
    });

    it('errors and unmarked routes carry no ETag; a lesson before enrolling is 403 whatever the If-None-Match', async () => {
      const lessonPath = `${courses()}/${small.id}/lessons/${small.lessons[0].id}`;
      const forbidden = await other.agent.get(lessonPath).set('If-None-Match', '*').expect(403);
      expect(forbidden.headers.etag).toBeUndefined();
      expect(forbidden.body.error.code).toBe('not_enrolled');
      const me = await learner.agent.get('/api/v1/auth/me').expect(200);
      expect(me.headers.etag).toBeUndefined();
    });
  });

  describe('compression', () => {
    let token: string;
    beforeAll(async () => {
      token = await personalToken(t, learner, org, 'read');
    });
    const lessonOf = (c: MadeCourse): string => `${courses()}/${c.id}/lessons/${c.lessons[0].id}`;

    it.each(['gzip', 'br'])(
      'a large JSON answer is sent %s-encoded when accepted, with Vary: Accept-Encoding',
      async (codec) => {
        const res = await rawGet(t.baseUrl, lessonOf(large), {
          authorization: `Bearer ${token}`,
          'accept-encoding': codec === 'br' ? 'gzip;q=0.5, br' : 'gzip',
        });
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBe(codec);
        expect(res.headers.vary).toEqual(expect.stringContaining('Accept-Encoding'));
        const json = (codec === 'br' ? brotliDecompressSync(res.body) : gunzipSync(res.body)).toString('utf8');
        expect(json.length).toBeGreaterThanOrEqual(COMPRESS_MIN_BYTES);
        expect(res.body.length).toBeLessThan(json.length / 4);
        expect(Number(res.headers['content-length'])).toBe(res.body.length);
        expect(JSON.parse(json)).toMatchObject({ id: large.lessons[0].id, title: 'Long' });
        // The same answer's ETag whatever the encoding; a revalidation is 304 and compresses nothing.
        const plain = await rawGet(t.baseUrl, lessonOf(large), { authorization: `Bearer ${token}` });
        expect(plain.headers['content-encoding']).toBeUndefined();
        expect(plain.body.toString('utf8')).toBe(json);
        expect(plain.headers.etag).toBe(res.headers.etag);
        const revalidated = await rawGet(t.baseUrl, lessonOf(large), {
          authorization: `Bearer ${token}`,
          'accept-encoding': codec,
          'if-none-match': res.headers.etag as string,
        });
        expect(revalidated.status).toBe(304);
        expect(revalidated.body.length).toBe(0);
        expect(revalidated.headers['content-encoding']).toBeUndefined();
      },
    );

    it('an answer with a strong ETag of its own (the public catalog) is sent as is, whatever its size', async () => {
      for (let i = 0; i < 12; i++) {
        await makeCourse(t, author.user.id, {
          title: `Public listing ${i} ${t.suffix}`,
          summary: 'A summary long enough to make the public catalog page large. '.repeat(3),
        });
      }
      const res = await rawGet(t.baseUrl, '/api/v1/public/catalog?limit=50', { 'accept-encoding': 'gzip, br' });
      expect(res.status).toBe(200);
      expect(res.body.length).toBeGreaterThanOrEqual(COMPRESS_MIN_BYTES);
      expect(res.headers.etag).toMatch(/^"/);
      expect(res.headers['content-encoding']).toBeUndefined();
    });

    it('a small answer, or a refused encoding, is sent as is', async () => {
      const smallAnswer = await rawGet(t.baseUrl, lessonOf(small), {
        authorization: `Bearer ${token}`,
        'accept-encoding': 'gzip, br',
      });
      expect(smallAnswer.status).toBe(200);
      expect(smallAnswer.body.length).toBeLessThan(COMPRESS_MIN_BYTES);
      expect(smallAnswer.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(smallAnswer.body.toString('utf8')).title).toBe('Short');
      const refused = await rawGet(t.baseUrl, lessonOf(large), {
        authorization: `Bearer ${token}`,
        'accept-encoding': 'gzip;q=0, br;q=0',
      });
      expect(refused.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(refused.body.toString('utf8')).title).toBe('Long');
    });
  });

  it('keeps idle connections longer than the load balancer does (65 s against its 60 s)', () => {
    const server = t.app.getHttpServer() as { keepAliveTimeout: number; headersTimeout: number };
    expect(server.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(60_000);
    expect(server.headersTimeout).toBeGreaterThan(server.keepAliveTimeout);
  });
});
