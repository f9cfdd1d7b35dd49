import { JSDOM } from 'jsdom';
import type { CommentDto, FeedItemDto, PostViewDto } from '@/modules/community/social';
import { UsersRepository } from '@/modules/identity/users/testing';
import { signIn, type SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** A post as the tests read it (`post` is never null for one). */
type FeedItem = FeedItemDto & { post: PostViewDto };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ITEM_KEYS = ['activity', 'author', 'created_at', 'id', 'kind', 'my_reactions', 'post', 'reactions'];
const POST_KEYS = ['body_html', 'body_md', 'comments_count', 'edited_at', 'status'];
const COMMENT_KEYS = ['author', 'body_html', 'body_md', 'created_at', 'edited_at', 'id', 'post_id', 'status'];
const PERSON_KEYS = ['anonymous', 'avatar_svg_url', 'name', 'user_id', 'username'];
const ZERO = { like: 0, celebrate: 0, insightful: 0, support: 0 };

describe('social feed: posts, comments, reactions, reports', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let outsider: SignedIn; // owner of B only

  const api = (org = orgA): string => `/api/v1/organizations/${org}`;
  async function person(role: 'owner' | 'admin' | 'teacher' | 'student' = 'student', org = orgA): Promise<SignedIn> {
    const s = await adult(t);
    await addMember(t, org, s.user.id, role);
    return s;
  }
  async function post(s: SignedIn, body = 'Hello **team**', org = orgA): Promise<FeedItem> {
    const res = await s.agent.post(`${api(org)}/posts`).send({ body_md: body });
    expect(res.status).toBe(201);
    return res.body;
  }
  async function comment(s: SignedIn, postId: string, body = 'Nice'): Promise<CommentDto> {
    const res = await s.agent.post(`${api()}/posts/${postId}/comments`).send({ body_md: body });
    expect(res.status).toBe(201);
    return res.body;
  }
  async function events(name: string, since: Date): Promise<{ payload: Record<string, unknown>; actor_id: string }[]> {
    return t.db.query(
      `SELECT payload, actor_id FROM domain_events WHERE name = $1 AND created_at >= $2 ORDER BY created_at`,
      [name, since],
    );
  }
  async function audits(
    targetId: string,
  ): Promise<{ action: string; actor_id: string; metadata: Record<string, unknown> }[]> {
    return t.db.query(`SELECT action, actor_id, metadata FROM audit_log WHERE target_id = $1 ORDER BY created_at`, [
      targetId,
    ]);
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Social A');
    admin = await person('admin');
    teacher = await person('teacher');
    outsider = await adult(t);
    orgB = await createOrganization(t, outsider, 'Social B');
  });
  afterAll(() => t.close());

  describe('posts', () => {
    it('201 with the feed item record; the markdown rendered and sanitized', async () => {
      const s = await person();
      const item = await post(s, 'Hola **equipo** [site](https://example.com)');
      expect(Object.keys(item).sort()).toEqual(ITEM_KEYS);
      expect(item.id).toMatch(UUID);
      expect(item.kind).toBe('post');
      expect(item.created_at).toMatch(ISO);
      expect(Object.keys(item.post).sort()).toEqual(POST_KEYS);
      expect(item.post).toMatchObject({
        body_md: 'Hola **equipo** [site](https://example.com)',
        status: 'published',
        edited_at: null,
        comments_count: 0,
      });
      expect(item.post.body_html).toBe(
        '<p>Hola <strong>equipo</strong> <a href="https://example.com" rel="nofollow noopener ugc">site</a></p>',
      );
      expect(item.activity).toBeNull();
      expect(item.reactions).toEqual(ZERO);
      expect(item.my_reactions).toEqual([]);
      // One's own person record is always shown.
      expect(Object.keys(item.author).sort()).toEqual(PERSON_KEYS);
      expect(item.author).toMatchObject({ user_id: s.user.id, anonymous: false });
    });

    it('scripts, event handlers and javascript: links are rendered harmless', async () => {
      const s = await person();
      const body =
        '<script>alert(1)</script> <img src=x onerror="alert(1)"> [x](javascript:alert(1)) ' +
        '[y](JAVASCRIPT:alert(1)) <a href="javascript:alert(1)" onclick="alert(1)">z</a>';
      const item = await post(s, body);
      const html: string = item.post.body_html;
      // Parsed as a browser would: no script or image element, no handler attribute, no javascript: address.
      const doc = new JSDOM(`<body>${html}</body>`).window.document;
      expect(doc.querySelectorAll('script, img, iframe, object, embed').length).toBe(0);
      for (const el of Array.from(doc.body.querySelectorAll('*'))) {
        for (const attr of Array.from(el.attributes)) {
          expect(attr.name).not.toMatch(/^on/i);
          expect(attr.value.trim()).not.toMatch(/^javascript:/i);
        }
      }
      expect(doc.body.textContent).toContain('<script>alert(1)</script>');
      expect(item.post.body_md).toBe(body);
      // The stored record is what others read too.
      const read = await owner.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(read.body.post.body_html).toBe(html);
    });

    it('body_md: 2000 characters accepted, 2001 refused (422), blank refused, nothing written', async () => {
      const s = await person();
      await post(s, 'a'.repeat(2000));
      const before = await t.db.query(`SELECT count(*)::int AS n FROM feed_items WHERE user_id = $1`, [s.user.id]);
      for (const body of [{ body_md: 'a'.repeat(2001) }, { body_md: '' }, { body_md: '   ' }, {}, { body_md: 5 }]) {
        const res = await s.agent.post(`${api()}/posts`).send(body);
        expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      }
      const after = await t.db.query(`SELECT count(*)::int AS n FROM feed_items WHERE user_id = $1`, [s.user.id]);
      expect(after[0].n).toBe(before[0].n);
    });

    it('publishes post.created in the transaction of the post', async () => {
      const s = await person();
      const since = new Date(Date.now() - 1000);
      const item = await post(s);
      const found = (await events('post.created', since)).filter((e) => e.payload.post_id === item.id);
      expect(found).toEqual([{ payload: { post_id: item.id, author_id: s.user.id }, actor_id: s.user.id }]);
    });

    it('the feed: newest first, with total, paged, and by kind', async () => {
      const org = await createOrganization(t, owner, 'Feed order');
      const s = await adult(t);
      await addMember(t, org, s.user.id, 'student');
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        t.clock.advance(1000);
        ids.push((await post(s, `post ${i}`, org)).id);
      }
      const page = await s.agent.get(`${api(org)}/feed?limit=2&offset=0`).expect(200);
      expect(page.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
      expect(page.body.items.map((i: { id: string }) => i.id)).toEqual([ids[2], ids[1]]);
      const next = await s.agent.get(`${api(org)}/feed?limit=2&offset=2`).expect(200);
      expect(next.body.items.map((i: { id: string }) => i.id)).toEqual([ids[0]]);
      const activity = await s.agent.get(`${api(org)}/feed?kind=activity`).expect(200);
      expect(activity.body).toMatchObject({ items: [], total: 0 });
      const posts = await s.agent.get(`${api(org)}/feed?kind=posts`).expect(200);
      expect(posts.body.total).toBe(3);
      for (const q of ['kind=everything', 'limit=0', 'limit=201', 'offset=-1']) {
        const res = await s.agent.get(`${api(org)}/feed?${q}`);
        expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      }
    });

    it('another organization sees nothing of it: its path 404, its feed without it', async () => {
      const s = await person();
      const item = await post(s);
      await outsider.agent.get(`${api()}/posts/${item.id}`).expect(404);
      await outsider.agent.get(`${api(orgB)}/posts/${item.id}`).expect(404);
      const feed = await outsider.agent.get(`${api(orgB)}/feed`).expect(200);
      expect(feed.body.items.map((i: { id: string }) => i.id)).not.toContain(item.id);
      await outsider.agent.put(`${api(orgB)}/feed/${item.id}/reactions/like`).expect(404);
      await outsider.agent
        .post(`${api(orgB)}/posts/${item.id}/comments`)
        .send({ body_md: 'x' })
        .expect(404);
      await outsider.agent
        .post(`${api(orgB)}/posts/${item.id}/reports`)
        .send({ reason: 'spam' })
        .expect(404);
      await outsider.agent.delete(`${api(orgB)}/posts/${item.id}`).expect(404);
      await outsider.agent
        .post(`${api(orgB)}/moderation/posts/${item.id}/decision`)
        .send({ action: 'remove', reason: 'x' })
        .expect(404);
      await owner.agent.get(`${api()}/posts/${item.id}`).expect(200);
    });

    it('GET: 404 for an unknown id and for a malformed one', async () => {
      const s = await person();
      await s.agent.get(`${api()}/posts/00000000-0000-4000-8000-000000000000`).expect(404);
      await s.agent.get(`${api()}/posts/not-a-uuid`).expect(404);
    });

    it('PATCH: the author edits (edited_at set); others who see it 403; an unknown post 404', async () => {
      const s = await person();
      const other = await person();
      const item = await post(s, 'first');
      t.clock.advance(5000);
      const res = await s.agent.patch(`${api()}/posts/${item.id}`).send({ body_md: 'second *edit*' }).expect(200);
      expect(res.body.post).toMatchObject({ body_md: 'second *edit*', status: 'published' });
      expect(res.body.post.body_html).toBe('<p>second <em>edit</em></p>');
      expect(res.body.post.edited_at).toMatch(ISO);
      const denied = await other.agent.patch(`${api()}/posts/${item.id}`).send({ body_md: 'mine' });
      expect([denied.status, denied.body.error.code]).toEqual([403, 'forbidden']);
      const byAdmin = await admin.agent.patch(`${api()}/posts/${item.id}`).send({ body_md: 'mine' });
      expect(byAdmin.status).toBe(403);
      await s.agent.patch(`${api()}/posts/00000000-0000-4000-8000-000000000000`).send({ body_md: 'x' }).expect(404);
      const tooLong = await s.agent.patch(`${api()}/posts/${item.id}`).send({ body_md: 'a'.repeat(2001) });
      expect(tooLong.status).toBe(422);
      const read = await other.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(read.body.post.body_md).toBe('second *edit*');
    });

    it('PATCH of a removed post: 409 post_removed', async () => {
      const s = await person();
      const item = await post(s);
      await s.agent.post(`${api()}/posts/${item.id}/reports`).expect(422); // no reason, and own post
      const reporter = await person();
      await reporter.agent.post(`${api()}/posts/${item.id}/reports`).send({ reason: 'spam' }).expect(201);
      await owner.agent
        .post(`${api()}/moderation/posts/${item.id}/decision`)
        .send({ action: 'remove', reason: 'Spam' })
        .expect(200);
      const res = await s.agent.patch(`${api()}/posts/${item.id}`).send({ body_md: 'again' });
      expect([res.status, res.body.error.code]).toEqual([409, 'post_removed']);
    });

    it('DELETE: the author (no audit) with its comments, reactions and reports; another member 404', async () => {
      const s = await person();
      const other = await person();
      const item = await post(s);
      await comment(other, item.id);
      await other.agent.put(`${api()}/feed/${item.id}/reactions/like`).expect(200);
      await other.agent.post(`${api()}/posts/${item.id}/reports`).send({ reason: 'other' }).expect(201);
      await other.agent.delete(`${api()}/posts/${item.id}`).expect(404);
      await teacher.agent.delete(`${api()}/posts/${item.id}`).expect(404);
      await s.agent.delete(`${api()}/posts/${item.id}`).expect(204);
      await s.agent.delete(`${api()}/posts/${item.id}`).expect(404);
      for (const table of ['feed_comments', 'feed_reports']) {
        const rows = await t.db.query(`SELECT 1 FROM ${table} WHERE post_id = $1`, [item.id]);
        expect(rows).toEqual([]);
      }
      expect(await t.db.query(`SELECT 1 FROM feed_reactions WHERE item_id = $1`, [item.id])).toEqual([]);
      expect(await audits(item.id)).toEqual([]);
    });

    it('DELETE by an owner/admin: 204, audited post.deleted', async () => {
      const s = await person();
      const item = await post(s);
      await admin.agent.delete(`${api()}/posts/${item.id}`).expect(204);
      const entries = await audits(item.id);
      expect(entries).toEqual([
        { action: 'post.deleted', actor_id: admin.user.id, metadata: { author_id: s.user.id, status: 'published' } },
      ]);
    });

    it('10 posts per hour per account: the 10th passes, the 11th is 429', async () => {
      const s = await person();
      for (let i = 0; i < 10; i++) await post(s, `n${i}`);
      const res = await s.agent.post(`${api()}/posts`).send({ body_md: 'eleventh' });
      expect([res.status, res.body.error.code]).toEqual([429, 'too_many_requests']);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    });
  });

  describe('comments', () => {
    it('201 comment record; listed oldest first; comments_count; comment.created to the post author', async () => {
      const author = await person();
      const c1 = await person();
      const item = await post(author);
      const since = new Date(Date.now() - 1000);
      const first = await comment(c1, item.id, 'first <script>x</script>');
      expect(Object.keys(first).sort()).toEqual(COMMENT_KEYS);
      expect(first).toMatchObject({
        post_id: item.id,
        status: 'published',
        edited_at: null,
        body_md: 'first <script>x</script>',
      });
      expect(first.body_html).toBe('<p>first &lt;script&gt;x&lt;/script&gt;</p>');
      t.clock.advance(1000);
      const second = await comment(author, item.id, 'second');
      const list = await c1.agent.get(`${api()}/posts/${item.id}/comments`).expect(200);
      expect(list.body).toMatchObject({ total: 2, limit: 50, offset: 0 });
      expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([first.id, second.id]);
      const read = await c1.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(read.body.post.comments_count).toBe(2);
      const created = (await events('comment.created', since)).filter((e) => e.payload.post_id === item.id);
      expect(created.map((e) => e.payload)).toEqual([
        { comment_id: first.id, post_id: item.id, author_id: c1.user.id, post_author_id: author.user.id },
        { comment_id: second.id, post_id: item.id, author_id: author.user.id, post_author_id: author.user.id },
      ]);
    });

    it('body_md: 1000 accepted, 1001 refused; 404 for an unknown post', async () => {
      const s = await person();
      const item = await post(s);
      await comment(s, item.id, 'b'.repeat(1000));
      const res = await s.agent.post(`${api()}/posts/${item.id}/comments`).send({ body_md: 'b'.repeat(1001) });
      expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      await s.agent
        .post(`${api()}/posts/00000000-0000-4000-8000-000000000000/comments`)
        .send({ body_md: 'x' })
        .expect(404);
    });

    it('30 comments per hour per account: the 30th passes, the 31st is 429', async () => {
      const s = await person();
      const item = await post(s);
      for (let i = 0; i < 30; i++) await comment(s, item.id, `c${i}`);
      const res = await s.agent.post(`${api()}/posts/${item.id}/comments`).send({ body_md: 'over' });
      expect(res.status).toBe(429);
    });

    it('DELETE: its author, the post’s author, an admin (audited); anyone else 404', async () => {
      const author = await person();
      const writer = await person();
      const other = await person();
      const item = await post(author);
      const a = await comment(writer, item.id, 'a');
      const b = await comment(writer, item.id, 'b');
      const c = await comment(writer, item.id, 'c');
      await other.agent.delete(`${api()}/posts/${item.id}/comments/${a.id}`).expect(404);
      await writer.agent.delete(`${api()}/posts/${item.id}/comments/${a.id}`).expect(204);
      await writer.agent.delete(`${api()}/posts/${item.id}/comments/${a.id}`).expect(404);
      expect(await audits(a.id)).toEqual([]);
      await author.agent.delete(`${api()}/posts/${item.id}/comments/${b.id}`).expect(204);
      expect((await audits(b.id)).map((e) => [e.action, e.actor_id])).toEqual([['comment.deleted', author.user.id]]);
      await owner.agent.delete(`${api()}/posts/${item.id}/comments/${c.id}`).expect(204);
      expect((await audits(c.id)).map((e) => [e.action, e.actor_id])).toEqual([['comment.deleted', owner.user.id]]);
    });
  });

  describe('reactions', () => {
    it('one per person and kind, idempotent; counts and my_reactions; withdrawal idempotent', async () => {
      const author = await person();
      const r1 = await person();
      const r2 = await person();
      const item = await post(author);
      const first = await r1.agent.put(`${api()}/feed/${item.id}/reactions/like`).expect(200);
      expect(first.body).toEqual({ reactions: { ...ZERO, like: 1 }, my_reactions: ['like'] });
      const again = await r1.agent.put(`${api()}/feed/${item.id}/reactions/like`).expect(200);
      expect(again.body).toEqual(first.body);
      const both = await r1.agent.put(`${api()}/feed/${item.id}/reactions/celebrate`).expect(200);
      expect(both.body).toEqual({ reactions: { ...ZERO, like: 1, celebrate: 1 }, my_reactions: ['like', 'celebrate'] });
      await r2.agent.put(`${api()}/feed/${item.id}/reactions/like`).expect(200);
      const read = await r2.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(read.body.reactions).toEqual({ ...ZERO, like: 2, celebrate: 1 });
      expect(read.body.my_reactions).toEqual(['like']);
      await r1.agent.delete(`${api()}/feed/${item.id}/reactions/like`).expect(204);
      await r1.agent.delete(`${api()}/feed/${item.id}/reactions/like`).expect(204);
      const after = await r1.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect(after.body.reactions).toEqual({ ...ZERO, like: 1, celebrate: 1 });
      expect(after.body.my_reactions).toEqual(['celebrate']);
    });

    it('422 for an unknown kind; 404 for an item not visible', async () => {
      const s = await person();
      const item = await post(s);
      const res = await s.agent.put(`${api()}/feed/${item.id}/reactions/love`);
      expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      await s.agent.delete(`${api()}/feed/${item.id}/reactions/love`).expect(422);
      await s.agent.put(`${api()}/feed/00000000-0000-4000-8000-000000000000/reactions/like`).expect(404);
    });
  });

  describe('reports and auto-hide', () => {
    it('201 report record; a repeat 200 with the same report; own post 422; bad reason or details 422', async () => {
      const author = await person();
      const reporter = await person();
      const item = await post(author);
      const since = new Date(Date.now() - 1000);
      const res = await reporter.agent
        .post(`${api()}/posts/${item.id}/reports`)
        .send({ reason: 'spam', details: 'd'.repeat(500) })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'item_id', 'item_type', 'reason']);
      expect(res.body).toMatchObject({ item_type: 'post', item_id: item.id, reason: 'spam' });
      const again = await reporter.agent
        .post(`${api()}/posts/${item.id}/reports`)
        .send({ reason: 'other' })
        .expect(200);
      expect(again.body).toEqual(res.body);
      const own = await author.agent.post(`${api()}/posts/${item.id}/reports`).send({ reason: 'spam' });
      expect([own.status, own.body.error.code]).toEqual([422, 'validation_error']);
      const other = await person();
      for (const body of [{ reason: 'boring' }, { reason: 'spam', details: 'd'.repeat(501) }, {}]) {
        const bad = await other.agent.post(`${api()}/posts/${item.id}/reports`).send(body);
        expect(bad.status).toBe(422);
      }
      const reported = (await events('content.reported', since)).filter((e) => e.payload.item_id === item.id);
      expect(reported.map((e) => e.payload)).toEqual([{ report_id: res.body.id, item_type: 'post', item_id: item.id }]);
    });

    it('comment reports: 201 with item_type comment, 200 on repeat, own 422', async () => {
      const author = await person();
      const writer = await person();
      const item = await post(author);
      const c = await comment(writer, item.id);
      const res = await author.agent
        .post(`${api()}/posts/${item.id}/comments/${c.id}/reports`)
        .send({ reason: 'harassment' })
        .expect(201);
      expect(res.body).toMatchObject({ item_type: 'comment', item_id: c.id, reason: 'harassment' });
      await author.agent
        .post(`${api()}/posts/${item.id}/comments/${c.id}/reports`)
        .send({ reason: 'spam' })
        .expect(200);
      await writer.agent
        .post(`${api()}/posts/${item.id}/comments/${c.id}/reports`)
        .send({ reason: 'spam' })
        .expect(422);
    });

    it('the Nth report hides the post at once: invisible to other members, visible to its author and moderators', async () => {
      const org = await createOrganization(t, owner, 'Auto hide');
      const members: SignedIn[] = [];
      for (let i = 0; i < 4; i++) {
        const s = await adult(t);
        await addMember(t, org, s.user.id, 'student');
        members.push(s);
      }
      await owner.agent
        .put(`${api(org)}/moderation/settings`)
        .send({ auto_hide_after_reports: 2 })
        .expect(200);
      const [author, r1, r2, reader] = members;
      const item = await post(author, 'contested', org);
      await r1.agent
        .post(`${api(org)}/posts/${item.id}/reports`)
        .send({ reason: 'spam' })
        .expect(201);
      // One report short of the threshold: still published for everyone.
      await reader.agent.get(`${api(org)}/posts/${item.id}`).expect(200);
      await r2.agent
        .post(`${api(org)}/posts/${item.id}/reports`)
        .send({ reason: 'inappropriate' })
        .expect(201);
      const [row] = await t.db.query(`SELECT status FROM feed_items WHERE id = $1`, [item.id]);
      expect(row.status).toBe('hidden');
      await reader.agent.get(`${api(org)}/posts/${item.id}`).expect(404);
      const feed = await reader.agent.get(`${api(org)}/feed`).expect(200);
      expect(feed.body).toMatchObject({ items: [], total: 0 });
      await reader.agent.put(`${api(org)}/feed/${item.id}/reactions/like`).expect(404);
      await reader.agent
        .post(`${api(org)}/posts/${item.id}/comments`)
        .send({ body_md: 'x' })
        .expect(404);
      const own = await author.agent.get(`${api(org)}/posts/${item.id}`).expect(200);
      expect(own.body.post.status).toBe('hidden');
      const ownFeed = await author.agent.get(`${api(org)}/feed`).expect(200);
      expect(ownFeed.body).toMatchObject({ total: 1, items: [{ id: item.id }] });
      await owner.agent.get(`${api(org)}/posts/${item.id}`).expect(200);
      const queue = await owner.agent.get(`${api(org)}/moderation/queue`).expect(200);
      expect(queue.body.total).toBe(1);
      expect(queue.body.items[0]).toMatchObject({
        item_type: 'post',
        item_id: item.id,
        post_id: item.id,
        author: { user_id: author.user.id, name: 'Test Person' },
        body_md: 'contested',
        status: 'hidden',
        reasons: ['reports'],
        reports_count: 2,
      });
      expect(queue.body.items[0].reports).toEqual(
        expect.arrayContaining([
          { reason: 'spam', count: 1 },
          { reason: 'inappropriate', count: 1 },
        ]),
      );
      // Approving publishes it again and dismisses the reports.
      await owner.agent
        .post(`${api(org)}/moderation/posts/${item.id}/decision`)
        .send({ action: 'approve', reason: 'Fine' })
        .expect(200);
      await reader.agent.get(`${api(org)}/posts/${item.id}`).expect(200);
      const reports = await t.db.query(`SELECT status FROM feed_reports WHERE post_id = $1`, [item.id]);
      expect(reports.map((r: { status: string }) => r.status)).toEqual(['dismissed', 'dismissed']);
    });

    it('a hidden comment is left out of the list for others, shown to its author and moderators', async () => {
      const org = await createOrganization(t, owner, 'Hidden comment');
      const people: SignedIn[] = [];
      for (let i = 0; i < 3; i++) {
        const s = await adult(t);
        await addMember(t, org, s.user.id, 'student');
        people.push(s);
      }
      await owner.agent
        .put(`${api(org)}/moderation/settings`)
        .send({ auto_hide_after_reports: 1 })
        .expect(200);
      const [author, writer, reader] = people;
      const item = await post(author, 'post', org);
      const c = (
        await writer.agent
          .post(`${api(org)}/posts/${item.id}/comments`)
          .send({ body_md: 'rude' })
          .expect(201)
      ).body;
      await reader.agent
        .post(`${api(org)}/posts/${item.id}/comments/${c.id}/reports`)
        .send({ reason: 'harassment' })
        .expect(201);
      const others = await reader.agent.get(`${api(org)}/posts/${item.id}/comments`).expect(200);
      expect(others.body).toMatchObject({ items: [], total: 0 });
      const mine = await writer.agent.get(`${api(org)}/posts/${item.id}/comments`).expect(200);
      expect(mine.body.items.map((x: { id: string; status: string }) => [x.id, x.status])).toEqual([[c.id, 'hidden']]);
      const ownerView = await owner.agent.get(`${api(org)}/posts/${item.id}/comments`).expect(200);
      expect(ownerView.body.total).toBe(1);
      const read = await reader.agent.get(`${api(org)}/posts/${item.id}`).expect(200);
      expect(read.body.post.comments_count).toBe(0);
    });

    it('20 reports per hour per account: the 20th passes, the 21st is 429', async () => {
      const author = await person();
      const reporter = await person();
      const items: string[] = [];
      // Posts written straight into the table: the author's own limit is not under test here.
      for (let i = 0; i < 21; i++) {
        const [row] = await t.db.query(
          `INSERT INTO feed_items (organization_id, kind, user_id, created_at, body_md, body_html, published_at)
           VALUES ($1, 'post', $2, now(), 'x', '<p>x</p>', now()) RETURNING id`,
          [orgA, author.user.id],
        );
        items.push(row.id);
      }
      for (let i = 0; i < 20; i++) {
        await reporter.agent.post(`${api()}/posts/${items[i]}/reports`).send({ reason: 'spam' }).expect(201);
      }
      const res = await reporter.agent.post(`${api()}/posts/${items[20]}/reports`).send({ reason: 'spam' });
      expect(res.status).toBe(429);
    });
  });

  describe('minors', () => {
    it('cannot post, comment or react (403 credential_read_only); may report (minors: always)', async () => {
      const author = await person();
      const item = await post(author);
      const minor = await signIn(t);
      await addMember(t, orgA, minor.user.id, 'student');
      await t.app.get(UsersRepository).update(minor.user.id, { ageBracket: 'under_18' }, t.clock.now());
      for (const res of [
        await minor.agent.post(`${api()}/posts`).send({ body_md: 'hi' }),
        await minor.agent.post(`${api()}/posts/${item.id}/comments`).send({ body_md: 'hi' }),
        await minor.agent.put(`${api()}/feed/${item.id}/reactions/like`),
      ]) {
        expect([res.status, res.body.error.code]).toEqual([403, 'credential_read_only']);
      }
      await minor.agent.get(`${api()}/feed`).expect(200);
      await minor.agent.post(`${api()}/posts/${item.id}/reports`).send({ reason: 'other' }).expect(201);
    });
  });

  describe('mutes', () => {
    it('a muted member cannot post, comment or react (403 posting_muted) until `until`', async () => {
      const s = await person();
      const item = await post(teacher);
      const until = new Date(t.clock.nowMs() + 3600_000).toISOString();
      const res = await owner.agent
        .post(`${api()}/moderation/mutes`)
        .send({ user_id: s.user.id, until, reason: 'Cool down' })
        .expect(201);
      expect(res.body).toEqual({
        user_id: s.user.id,
        name: 'Test Person',
        until,
        reason: 'Cool down',
        muted_by: { user_id: owner.user.id },
        created_at: expect.stringMatching(ISO),
      });
      for (const r of [
        await s.agent.post(`${api()}/posts`).send({ body_md: 'hi' }),
        await s.agent.post(`${api()}/posts/${item.id}/comments`).send({ body_md: 'hi' }),
        await s.agent.put(`${api()}/feed/${item.id}/reactions/like`),
      ]) {
        expect([r.status, r.body.error.code]).toEqual([403, 'posting_muted']);
      }
      // Replaced: 200.
      const later = new Date(t.clock.nowMs() + 7200_000).toISOString();
      await owner.agent
        .post(`${api()}/moderation/mutes`)
        .send({ user_id: s.user.id, until: later, reason: 'Longer' })
        .expect(200);
      const list = await admin.agent.get(`${api()}/moderation/mutes`).expect(200);
      expect(list.body.items.find((m: { user_id: string }) => m.user_id === s.user.id)).toMatchObject({
        until: later,
        reason: 'Longer',
      });
      expect((await audits(s.user.id)).map((e) => e.action)).toEqual(['member.muted', 'member.muted']);
      // Past `until` they may write again, and the mute is no longer listed.
      t.clock.advance(7200_000 + 1000);
      for (const p of [s, owner, admin, teacher]) await p.agent.post('/api/v1/auth/refresh').expect(200);
      await post(s, 'back');
      const after = await admin.agent.get(`${api()}/moderation/mutes`);
      expect(after.body.items.map((m: { user_id: string }) => m.user_id)).not.toContain(s.user.id);
      await owner.agent.delete(`${api()}/moderation/mutes/${s.user.id}`).expect(404);
    });

    it('unmute 204 (audited), then 404; owners/admins cannot be muted (403); non-members 404; until bounds 422', async () => {
      const s = await person();
      const now = t.clock.nowMs();
      const until = new Date(now + 60_000).toISOString();
      await owner.agent.post(`${api()}/moderation/mutes`).send({ user_id: s.user.id, until, reason: 'r' }).expect(201);
      await owner.agent.delete(`${api()}/moderation/mutes/${s.user.id}`).expect(204);
      await owner.agent.delete(`${api()}/moderation/mutes/${s.user.id}`).expect(404);
      expect((await audits(s.user.id)).map((e) => e.action)).toEqual(['member.muted', 'member.unmuted']);
      await post(s);
      for (const target of [admin, owner]) {
        const r = await owner.agent
          .post(`${api()}/moderation/mutes`)
          .send({ user_id: target.user.id, until, reason: 'r' });
        expect([r.status, r.body.error.code]).toEqual([403, 'forbidden']);
      }
      await owner.agent
        .post(`${api()}/moderation/mutes`)
        .send({ user_id: outsider.user.id, until, reason: 'r' })
        .expect(404);
      const day = 24 * 3600_000;
      for (const bad of [
        { until: new Date(now - 1000).toISOString() },
        { until: new Date(now + 365 * day + 60_000).toISOString() },
        { until: 'tomorrow' },
        { reason: '' },
        { reason: 'r'.repeat(501) },
      ]) {
        const r = await owner.agent
          .post(`${api()}/moderation/mutes`)
          .send({ user_id: s.user.id, until, reason: 'r', ...bad });
        expect([r.status, r.body.error.code]).toEqual([422, 'validation_error']);
      }
      await owner.agent
        .post(`${api()}/moderation/mutes`)
        .send({ user_id: s.user.id, until: new Date(now + 365 * day - 60_000).toISOString(), reason: 'r' })
        .expect(201);
    });
  });
});
