import { PublicService } from '@/modules/integrations/public';
import { makeCourse, ONE_QUESTION_QUIZ } from '../../cross-tenant/learning.routes';
import type { SignedIn } from '../../support/auth';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const ADMIN_EMAIL = 'public-admin@ops.test';
const INBOX = 'hello@company.test';
const DAY = 86_400_000;

type Body = Record<string, unknown>;

/**
 * The public site (extensions-v2 20): forms (validation, honeypot, per-address and per-email limits, stored and
 * sent to the inbox, never to the sender), the public catalog and course pages (public only, ETag and 304), and the
 * admin view of requests with their retention.
 */
describe('public', () => {
  let t: TestApp;
  let admin: SignedIn;
  let publicSlug: string;
  let restrictedSlug: string;
  let draftSlug: string;

  const contact = (over: Body = {}): Body => ({
    name: 'Ana',
    email: t.nextEmail('ana'),
    message: 'I would like to know more.',
    ...over,
  });

  async function count(): Promise<number> {
    return (await t.db.query(`SELECT count(*)::int AS n FROM contact_requests`))[0].n as number;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL, CONTACT_INBOX: INBOX } });
    admin = await adult(t, ADMIN_EMAIL);
    const org = await createOrganization(t, admin, 'Catalog Org');
    publicSlug = (
      await makeCourse(t, admin.user.id, {
        title: 'Public astronomy',
        tags: ['space'],
        description_md: 'All about **stars**',
        lessons: [
          { title: 'Intro', content_md: 'SECRET LESSON TEXT', estimated_minutes: 5 },
          { title: 'Quiz', quiz: ONE_QUESTION_QUIZ },
        ],
      })
    ).slug;
    restrictedSlug = (
      await makeCourse(t, admin.user.id, {
        title: 'Restricted astronomy',
        visibility: 'restricted',
        organization_ids: [org],
      })
    ).slug;
    draftSlug = (await makeCourse(t, admin.user.id, { title: 'Draft astronomy', publish: false })).slug;
  });
  afterAll(() => t.close());

  describe('forms', () => {
    it('stores a contact request and tells the inbox, never the sender', async () => {
      const body = contact({ topic: 'sales', locale: 'en' });
      const res = await t.client().post('/api/v1/public/contact').send(body);
      expect([res.status, res.body]).toEqual([202, { status: 'received' }]);
      expect(res.headers['set-cookie']).toBeUndefined();
      const rows = await t.db.query(
        `SELECT kind, name, email, topic, message, status FROM contact_requests WHERE email = $1`,
        [body.email],
      );
      expect(rows).toEqual([
        {
          kind: 'contact',
          name: 'Ana',
          email: body.email,
          topic: 'sales',
          message: 'I would like to know more.',
          status: 'new',
        },
      ]);
      const mail = await t.mail.waitFor((m) => m.to.includes(INBOX) && m.text.includes(body.email as string));
      expect(mail.subject).toBe('Mensaje de contacto: Ana');
      expect(t.mail.to(body.email as string)).toEqual([]);
    });

    it('stores a demo request', async () => {
      const email = t.nextEmail('demo');
      await t
        .client()
        .post('/api/v1/public/demo-requests')
        .send({
          name: 'Luis',
          email,
          organization_name: 'Uni',
          organization_size: '51-500',
          country: 'ES',
          role: 'CTO',
        })
        .expect(202);
      const rows = await t.db.query(
        `SELECT kind, organization_name, organization_size, country FROM contact_requests WHERE email = $1`,
        [email],
      );
      expect(rows).toEqual([{ kind: 'demo', organization_name: 'Uni', organization_size: '51-500', country: 'ES' }]);
      await t.mail.waitFor((m) => m.to.includes(INBOX) && m.text.includes(email));
    });

    it('a filled honeypot is accepted and dropped', async () => {
      const before = await count();
      const res = await t
        .client()
        .post('/api/v1/public/contact')
        .send(contact({ website: 'http://spam.test' }));
      expect([res.status, res.body]).toEqual([202, { status: 'received' }]);
      await t
        .client()
        .post('/api/v1/public/demo-requests')
        .send({ ...contact(), organization_name: 'X', website: 'x' })
        .expect(202);
      expect(await count()).toBe(before);
      // An empty honeypot is a normal submission.
      await t
        .client()
        .post('/api/v1/public/contact')
        .send(contact({ website: '' }))
        .expect(202);
      expect(await count()).toBe(before + 1);
    });

    it('validates every field (422, nothing stored)', async () => {
      const before = await count();
      for (const [body, status] of [
        [contact({ name: '' }), 422],
        [contact({ name: 'n'.repeat(121) }), 422],
        [contact({ name: 'n'.repeat(120) }), 202],
        [contact({ email: 'not-an-email' }), 422],
        [contact({ message: 'short' }), 422],
        [contact({ message: 'm'.repeat(10) }), 202],
        [contact({ message: 'm'.repeat(5001) }), 422],
        [contact({ topic: 'gossip' }), 422],
        [contact({ locale: 'fr' }), 422],
      ] as [Body, number][]) {
        const res = await t.client().post('/api/v1/public/contact').send(body);
        expect(res.status).toBe(status);
      }
      for (const body of [
        { ...contact(), organization_name: '' },
        { ...contact(), organization_name: 'U', country: 'ESP' },
        { ...contact(), organization_name: 'U', organization_size: '10' },
        { ...contact(), organization_name: 'U', role: 'r'.repeat(121) },
      ]) {
        expect((await t.client().post('/api/v1/public/demo-requests').send(body)).status).toBe(422);
      }
      expect(await count()).toBe(before + 2);
    });

    it('5 per hour per client address: the fifth passes, the sixth is 429', async () => {
      const client = t.client();
      for (let i = 0; i < 5; i++) await client.post('/api/v1/public/contact').send(contact()).expect(202);
      const res = await client.post('/api/v1/public/demo-requests').send({ ...contact(), organization_name: 'U' });
      expect([res.status, res.body.error.code]).toEqual([429, 'too_many_requests']);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    });

    it('3 per day per email: the third passes, the fourth is 429 (from any address)', async () => {
      const email = t.nextEmail('limit');
      for (let i = 0; i < 3; i++) await t.client().post('/api/v1/public/contact').send(contact({ email })).expect(202);
      const res = await t
        .client()
        .post('/api/v1/public/contact')
        .send(contact({ email: email.toUpperCase() }));
      expect(res.status).toBe(429);
    });
  });

  describe('catalog', () => {
    it('lists published public courses only, with cache headers, an ETag and 304', async () => {
      const res = await t.client().get('/api/v1/public/catalog').query({ q: 'astronomy' }).expect(200);
      expect(res.headers['cache-control']).toBe('public, max-age=300');
      expect(res.headers['set-cookie']).toBeUndefined();
      const slugs = res.body.items.map((i: Body) => i.slug);
      expect(slugs).toEqual([publicSlug]);
      expect(res.body.items[0]).toEqual({
        id: expect.any(String),
        slug: publicSlug,
        title: 'Public astronomy',
        summary: '',
        language: 'en',
        level: 'beginner',
        tags: ['space'],
        lessons_count: 2,
        estimated_minutes: 0,
        rating: { average: null, count: 0 },
        issues_certificate: false,
        published_at: expect.any(String),
      });
      const etag = res.headers.etag;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
      await t.client().get('/api/v1/public/catalog').query({ q: 'astronomy' }).set('If-None-Match', etag).expect(304);
      await t
        .client()
        .get('/api/v1/public/catalog')
        .query({ q: 'astronomy' })
        .set('If-None-Match', `W/${etag}`)
        .expect(304);
      await t
        .client()
        .get('/api/v1/public/catalog')
        .query({ q: 'astronomy' })
        .set('If-None-Match', '"other"')
        .expect(200);
      expect((await t.client().get('/api/v1/public/catalog').query({ tag: 'space' }).expect(200)).body.total).toBe(1);
      await t.client().get('/api/v1/public/catalog').query({ level: 'expert' }).expect(422);
    });

    it('a course page: card, description and outline, never lesson content; restricted and drafts are 404', async () => {
      const res = await t.client().get(`/api/v1/public/catalog/${publicSlug}`).expect(200);
      expect(res.body.description_md).toBe('All about **stars**');
      expect(res.body.lessons).toEqual([
        { position: 1, title: 'Intro', estimated_minutes: 5, has_quiz: false },
        { position: 2, title: 'Quiz', estimated_minutes: 0, has_quiz: true },
      ]);
      expect(JSON.stringify(res.body)).not.toContain('SECRET LESSON TEXT');
      await t.client().get(`/api/v1/public/catalog/${publicSlug}`).set('If-None-Match', res.headers.etag).expect(304);
      for (const slug of [restrictedSlug, draftSlug, 'no-such-course', 'BAD SLUG'])
        await t
          .client()
          .get(`/api/v1/public/catalog/${encodeURIComponent(slug)}`)
          .expect(404);
    });

    it('120 per minute per client address: the 120th passes, the 121st is 429', async () => {
      const client = t.client();
      for (let i = 0; i < 120; i++) await client.get(`/api/v1/public/catalog/${publicSlug}`).expect(200);
      expect((await client.get('/api/v1/public/catalog')).status).toBe(429);
    });

    it('ignores any credential sent', async () => {
      const res = await admin.agent.get('/api/v1/public/catalog').expect(200);
      expect(res.headers['set-cookie']).toBeUndefined();
    });
  });

  describe('admin', () => {
    it('lists requests most recent first, marks them, and prunes by the retention rules', async () => {
      const list = await admin.agent.get('/api/v1/admin/contact-requests').query({ kind: 'demo' }).expect(200);
      expect(list.body.items.length).toBeGreaterThan(0);
      expect(list.body.items.every((i: Body) => i.kind === 'demo')).toBe(true);
      const id = list.body.items[0].id as string;
      const handled = await admin.agent
        .patch(`/api/v1/admin/contact-requests/${id}`)
        .send({ status: 'handled' })
        .expect(200);
      expect(handled.body.handled_at).not.toBeNull();
      await admin.agent.patch(`/api/v1/admin/contact-requests/${id}`).send({ status: 'done' }).expect(422);
      const stranger = await adult(t);
      await stranger.agent.get('/api/v1/admin/contact-requests').expect(403);

      // Handled 180 days ago: pruned; 179 days: kept; arrived 365 days ago unhandled: pruned.
      const ids = (await t.db.query(`SELECT id FROM contact_requests ORDER BY created_at LIMIT 3`)).map(
        (r: Body) => r.id,
      );
      const now = t.clock.nowMs();
      await t.db.query(`UPDATE contact_requests SET handled_at = $2, status = 'handled' WHERE id = $1`, [
        ids[0],
        new Date(now - 180 * DAY),
      ]);
      await t.db.query(`UPDATE contact_requests SET handled_at = $2, status = 'handled' WHERE id = $1`, [
        ids[1],
        new Date(now - 179 * DAY),
      ]);
      await t.db.query(`UPDATE contact_requests SET created_at = $2 WHERE id = $1`, [
        ids[2],
        new Date(now - 365 * DAY),
      ]);
      await t.app.get(PublicService).prune();
      const left = (await t.db.query(`SELECT id FROM contact_requests WHERE id = ANY($1)`, [ids])).map(
        (r: Body) => r.id,
      );
      expect(left).toEqual([ids[1]]);
    });
  });
});
