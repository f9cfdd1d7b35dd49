import type { SignedIn } from '../../support/auth';
import { makeCourse } from '../../cross-tenant/learning.routes';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** Course ratings (extensions-v2 4) and the own ratings (3.5). */
describe('courses: ratings lists, withdrawal, comment removal, my ratings', () => {
  let t: TestApp;
  let owner: SignedIn;
  let admin: SignedIn;
  let pub: SignedIn;
  let hidden: SignedIn;
  let org: string;
  let orgB: string;
  let course: { id: string; slug: string };
  let other: { id: string; slug: string };

  const ratings = (o = org, c = course.id) => `/api/v1/organizations/${o}/courses/${c}/ratings`;
  async function rate(s: SignedIn, stars: number, comment?: string, o = org, c = course.id): Promise<void> {
    await s.agent
      .post(`/api/v1/organizations/${o}/courses/${c}/enroll`)
      .expect((r) => expect([200, 201]).toContain(r.status));
    await s.agent
      .post(ratings(o, c))
      .send(comment ? { stars, comment } : { stars })
      .expect(200);
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    org = await createOrganization(t, owner);
    orgB = await createOrganization(t, owner, 'Other');
    [admin, pub, hidden] = [await adult(t), await adult(t), await adult(t)];
    await addMember(t, org, admin.user.id, 'admin');
    for (const s of [pub, hidden]) await addMember(t, org, s.user.id, 'student');
    await addMember(t, orgB, hidden.user.id, 'student');
    await pub.agent.patch('/api/v1/me/profile').send({ public_profile: true }).expect(200);
    course = await makeCourse(t, owner.user.id, { title: 'Rated course' });
    other = await makeCourse(t, owner.user.id, { title: 'Other course' });
    await rate(pub, 5, 'Great');
    await rate(hidden, 2);
    await rate(hidden, 4, 'In B', orgB, other.id);
  });
  afterAll(() => t.close());

  it('lists this organization’s ratings, most recent first, with persons as the caller sees them, and filters', async () => {
    const res = await pub.agent.get(ratings()).expect(200);
    expect(res.body.total).toBe(2);
    expect(res.body.items).toEqual([
      {
        stars: 2,
        comment: null,
        author: { user_id: null, username: null, name: null, avatar_svg_url: null, anonymous: true },
        created_at: expect.any(String),
        updated_at: expect.any(String),
        mine: false,
      },
      expect.objectContaining({
        stars: 5,
        comment: 'Great',
        mine: true,
        author: expect.objectContaining({ user_id: pub.user.id }),
      }),
    ]);
    const staff = await owner.agent.get(ratings()).expect(200);
    expect(staff.body.items[0].author.user_id).toBe(hidden.user.id);
    expect((await owner.agent.get(`${ratings()}?stars=5`).expect(200)).body.total).toBe(1);
    expect(
      (await owner.agent.get(`${ratings()}?with_comment=true`).expect(200)).body.items.map(
        (r: { stars: number }) => r.stars,
      ),
    ).toEqual([5]);
    expect(
      (await owner.agent.get(`${ratings()}?with_comment=false`).expect(200)).body.items.map(
        (r: { stars: number }) => r.stars,
      ),
    ).toEqual([2]);
    await owner.agent.get(`${ratings()}?stars=0`).expect(422);
    await owner.agent.get(`${ratings()}?stars=6`).expect(422);
    await owner.agent.get(`${ratings()}?with_comment=maybe`).expect(422);
    // By slug too; an unknown course is 404; another organization's ratings of a course are not shown here.
    expect((await owner.agent.get(ratings(org, course.slug)).expect(200)).body.total).toBe(2);
    await owner.agent.get(ratings(org, '00000000-0000-4000-8000-000000000000')).expect(404);
    expect((await owner.agent.get(ratings(org, other.id)).expect(200)).body.total).toBe(0);
  });

  it('owners and admins remove a comment (stars stay), audited; 404 without a rating here; 403 for others', async () => {
    const url = `${ratings()}/${pub.user.id}/remove-comment`;
    await pub.agent.post(url).send({ reason: 'Spam' }).expect(403);
    await admin.agent.post(url).send({ reason: '' }).expect(422);
    await admin.agent
      .post(url)
      .send({ reason: 'x'.repeat(501) })
      .expect(422);
    const res = await admin.agent
      .post(url)
      .send({ reason: 'x'.repeat(500) })
      .expect(200);
    expect(res.body).toMatchObject({ stars: 5, comment: null, mine: false, author: { user_id: pub.user.id } });
    const [audit] = await t.db.query(
      `SELECT actor_id, organization_id, metadata FROM audit_log WHERE action = 'rating.comment_removed'`,
    );
    expect(audit).toEqual({
      actor_id: admin.user.id,
      organization_id: org,
      metadata: { course_id: course.id, user_id: pub.user.id, reason: 'x'.repeat(500) },
    });
    expect(
      (await pub.agent.get(ratings()).expect(200)).body.items.find((r: { mine: boolean }) => r.mine).comment,
    ).toBeNull();
    // A rating written in another organization is not "here".
    await owner.agent
      .post(`${ratings(org, other.id)}/${hidden.user.id}/remove-comment`)
      .send({ reason: 'x' })
      .expect(404);
    await owner.agent.post(`${ratings()}/not-a-uuid/remove-comment`).send({ reason: 'x' }).expect(404);
  });

  it('my ratings: every organization with a session, its own with a token', async () => {
    const mine = (await hidden.agent.get('/api/v1/me/ratings').expect(200)).body;
    expect(mine.total).toBe(2);
    expect(mine.items[0]).toEqual({
      course: { id: other.id, slug: other.slug, title: 'Other course' },
      organization_id: orgB,
      stars: 4,
      comment: 'In B',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const token = await personalToken(t, hidden, org, 'read');
    const scoped = (await bearer(t, token).get('/api/v1/me/ratings').expect(200)).body;
    expect(scoped.items.map((r: { organization_id: string }) => r.organization_id)).toEqual([org]);
    await hidden.agent.get('/api/v1/me/ratings?limit=201').expect(422);
  });

  it('withdraws my rating wherever it was written: it leaves the average; 404 when none', async () => {
    const card = async () =>
      (await owner.agent.get(`/api/v1/organizations/${org}/courses/${course.id}`).expect(200)).body;
    expect((await card()).rating).toMatchObject({ count: 2 });
    // Withdrawn through another organization where the course is reachable too.
    await hidden.agent.delete(`${ratings(orgB)}/mine`).expect(204);
    expect((await card()).rating).toMatchObject({ count: 1, average: 5 });
    await hidden.agent.delete(`${ratings(orgB)}/mine`).expect(404);
    await owner.agent.delete(`${ratings()}/mine`).expect(404);
  });
});
