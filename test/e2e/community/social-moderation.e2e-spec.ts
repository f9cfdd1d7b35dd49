import type { SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

const DEFAULTS = { feed_enabled: true, pre_moderation: false, auto_hide_after_reports: 3, blocked_terms: [] };

describe('moderation: queue, decisions, settings', () => {
  let t: TestApp;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let student: SignedIn;
  let org: string;

  const api = (o = org): string => `/api/v1/organizations/${o}`;
  async function freshOrg(name: string): Promise<void> {
    org = await createOrganization(t, owner, name);
    await addMember(t, org, admin.user.id, 'admin');
    await addMember(t, org, teacher.user.id, 'teacher');
    await addMember(t, org, student.user.id, 'student');
  }
  async function studentOf(o = org): Promise<SignedIn> {
    const s = await adult(t);
    await addMember(t, o, s.user.id, 'student');
    return s;
  }
  async function audits(targetId: string): Promise<{ action: string; actor_id: string; metadata: unknown }[]> {
    return t.db.query(`SELECT action, actor_id, metadata FROM audit_log WHERE target_id = $1 ORDER BY created_at`, [
      targetId,
    ]);
  }
  async function events(name: string, itemKey: string, id: string): Promise<Record<string, unknown>[]> {
    const rows: { payload: Record<string, unknown> }[] = await t.db.query(
      `SELECT payload FROM domain_events WHERE name = $1 AND payload ->> $2 = $3 ORDER BY created_at`,
      [name, itemKey, id],
    );
    return rows.map((r) => r.payload);
  }

  beforeAll(async () => {
    t = await createTestApp();
    owner = await adult(t);
    admin = await adult(t);
    teacher = await adult(t);
    student = await adult(t);
  });
  afterAll(() => t.close());

  describe('settings', () => {
    beforeAll(() => freshOrg('Settings'));

    it('defaults; a PUT keeps the keys it leaves out; audited moderation.settings_updated', async () => {
      const res = await admin.agent.get(`${api()}/moderation/settings`).expect(200);
      expect(res.body).toEqual(DEFAULTS);
      const put = await owner.agent
        .put(`${api()}/moderation/settings`)
        .send({ pre_moderation: true, blocked_terms: ['Estafa', 'compra ya'] })
        .expect(200);
      expect(put.body).toEqual({ ...DEFAULTS, pre_moderation: true, blocked_terms: ['Estafa', 'compra ya'] });
      const second = await admin.agent.put(`${api()}/moderation/settings`).send({ auto_hide_after_reports: 20 });
      expect(second.body).toEqual({
        ...DEFAULTS,
        pre_moderation: true,
        auto_hide_after_reports: 20,
        blocked_terms: ['Estafa', 'compra ya'],
      });
      const entries = (await audits(org)).filter((e) => e.action === 'moderation.settings_updated');
      expect(entries).toHaveLength(2);
      expect(entries[0].metadata).toEqual({
        feed_enabled: true,
        pre_moderation: true,
        auto_hide_after_reports: 3,
        blocked_terms_count: 2,
      });
      await owner.agent.put(`${api()}/moderation/settings`).send(DEFAULTS).expect(200);
    });

    it('limits: auto_hide 1 and 20 accepted, 0 and 21 refused; 200 terms of 2..40 characters accepted, 201 or 1 or 41 refused', async () => {
      for (const n of [1, 20]) {
        await owner.agent.put(`${api()}/moderation/settings`).send({ auto_hide_after_reports: n }).expect(200);
      }
      const terms = Array.from({ length: 200 }, (_, i) => `t${i}`);
      terms[0] = 'x'.repeat(40);
      await owner.agent.put(`${api()}/moderation/settings`).send({ blocked_terms: terms }).expect(200);
      const before = (await owner.agent.get(`${api()}/moderation/settings`)).body;
      for (const bad of [
        { auto_hide_after_reports: 0 },
        { auto_hide_after_reports: 21 },
        { auto_hide_after_reports: 2.5 },
        { blocked_terms: [...terms, 'one more'] },
        { blocked_terms: ['x'] },
        { blocked_terms: [' x '] },
        { blocked_terms: ['y'.repeat(41)] },
        { blocked_terms: 'spam' },
        { feed_enabled: 'no' },
      ]) {
        const res = await owner.agent.put(`${api()}/moderation/settings`).send(bad);
        expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      }
      expect((await owner.agent.get(`${api()}/moderation/settings`)).body).toEqual(before);
      await owner.agent.put(`${api()}/moderation/settings`).send(DEFAULTS).expect(200);
    });

    it('teachers and students cannot moderate (403) any route', async () => {
      for (const s of [teacher, student]) {
        for (const res of [
          await s.agent.get(`${api()}/moderation/settings`),
          await s.agent.put(`${api()}/moderation/settings`).send({ pre_moderation: true }),
          await s.agent.get(`${api()}/moderation/queue`),
          await s.agent.get(`${api()}/moderation/mutes`),
          await s.agent
            .post(`${api()}/moderation/posts/00000000-0000-4000-8000-000000000000/decision`)
            .send({ action: 'approve', reason: 'x' }),
          await s.agent
            .post(`${api()}/moderation/comments/00000000-0000-4000-8000-000000000000/decision`)
            .send({ action: 'approve', reason: 'x' }),
        ]) {
          expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
        }
      }
      expect((await admin.agent.get(`${api()}/moderation/settings`)).body.pre_moderation).toBe(false);
    });

    it('feed_enabled false: every feed and moderation route 404 feature_disabled except the settings', async () => {
      const item = (await student.agent.post(`${api()}/posts`).send({ body_md: 'before' }).expect(201)).body;
      await owner.agent.put(`${api()}/moderation/settings`).send({ feed_enabled: false }).expect(200);
      for (const res of [
        await student.agent.get(`${api()}/feed`),
        await student.agent.post(`${api()}/posts`).send({ body_md: 'x' }),
        await student.agent.get(`${api()}/posts/${item.id}`),
        await student.agent.patch(`${api()}/posts/${item.id}`).send({ body_md: 'x' }),
        await student.agent.get(`${api()}/posts/${item.id}/comments`),
        await student.agent.post(`${api()}/posts/${item.id}/comments`).send({ body_md: 'x' }),
        await teacher.agent.put(`${api()}/feed/${item.id}/reactions/like`),
        await teacher.agent.delete(`${api()}/feed/${item.id}/reactions/like`),
        await teacher.agent.post(`${api()}/posts/${item.id}/reports`).send({ reason: 'spam' }),
        await owner.agent.get(`${api()}/moderation/queue`),
        await owner.agent.get(`${api()}/moderation/mutes`),
        await owner.agent.post(`${api()}/moderation/posts/${item.id}/decision`).send({ action: 'remove', reason: 'x' }),
        await student.agent.delete(`${api()}/posts/${item.id}`),
      ]) {
        expect([res.status, res.body.error?.code]).toEqual([404, 'feature_disabled']);
      }
      await owner.agent.get(`${api()}/moderation/settings`).expect(200);
      await owner.agent.put(`${api()}/moderation/settings`).send({ feed_enabled: true }).expect(200);
      await student.agent.get(`${api()}/posts/${item.id}`).expect(200);
    });
  });

  describe('pre-moderation and blocked terms', () => {
    beforeAll(() => freshOrg('Pre-moderation'));

    it('holds students’ posts and comments as pending; owners, admins and teachers publish directly', async () => {
      await owner.agent.put(`${api()}/moderation/settings`).send({ pre_moderation: true }).expect(200);
      const held = (await student.agent.post(`${api()}/posts`).send({ body_md: 'mine' }).expect(201)).body;
      expect(held.post.status).toBe('pending');
      expect(await events('post.created', 'post_id', held.id)).toEqual([]);
      for (const s of [owner, admin, teacher]) {
        const res = await s.agent.post(`${api()}/posts`).send({ body_md: 'staff' }).expect(201);
        expect(res.body.post.status).toBe('published');
      }
      const staffPost = (await teacher.agent.post(`${api()}/posts`).send({ body_md: 'thread' }).expect(201)).body;
      const c = (
        await student.agent.post(`${api()}/posts/${staffPost.id}/comments`).send({ body_md: 'reply' }).expect(201)
      ).body;
      expect(c.status).toBe('pending');
      expect(await events('comment.created', 'comment_id', c.id)).toEqual([]);

      // Pending: the author sees it, other members do not.
      const other = await studentOf();
      await student.agent.get(`${api()}/posts/${held.id}`).expect(200);
      await other.agent.get(`${api()}/posts/${held.id}`).expect(404);
      const feed = await other.agent.get(`${api()}/feed`).expect(200);
      expect(feed.body.items.map((i: { id: string }) => i.id)).not.toContain(held.id);
      expect(feed.body.total).toBe(4);
      const own = await student.agent.get(`${api()}/feed`).expect(200);
      expect(own.body.total).toBe(5);
      const comments = await other.agent.get(`${api()}/posts/${staffPost.id}/comments`).expect(200);
      expect(comments.body.total).toBe(0);

      const queue = await admin.agent.get(`${api()}/moderation/queue?status=pending`).expect(200);
      expect(queue.body.items.map((q: { item_id: string; item_type: string; reasons: string[] }) => q)).toEqual([
        expect.objectContaining({
          item_type: 'post',
          item_id: held.id,
          status: 'pending',
          reasons: ['pre_moderation'],
        }),
        expect.objectContaining({
          item_type: 'comment',
          item_id: c.id,
          post_id: staffPost.id,
          reasons: ['pre_moderation'],
          reports: [],
          reports_count: 0,
        }),
      ]);

      // Approval publishes (the event of a new post now), audited with the reason.
      const approved = await admin.agent
        .post(`${api()}/moderation/posts/${held.id}/decision`)
        .send({ action: 'approve', reason: 'Looks fine' })
        .expect(200);
      expect(approved.body.post.status).toBe('published');
      await other.agent.get(`${api()}/posts/${held.id}`).expect(200);
      expect(await events('post.created', 'post_id', held.id)).toEqual([
        { post_id: held.id, author_id: student.user.id },
      ]);
      expect(await audits(held.id)).toEqual([
        {
          action: 'moderation.decided',
          actor_id: admin.user.id,
          metadata: { item_type: 'post', item_id: held.id, action: 'approve', reason: 'Looks fine' },
        },
      ]);
      expect(await events('moderation.decided', 'item_id', held.id)).toEqual([
        { item_type: 'post', item_id: held.id, action: 'approve', author_id: student.user.id, warn_author: false },
      ]);
      const again = await admin.agent
        .post(`${api()}/moderation/posts/${held.id}/decision`)
        .send({ action: 'approve', reason: 'twice' });
      expect([again.status, again.body.error.code]).toEqual([409, 'nothing_to_moderate']);

      // The comment: removed, with the reason going to its author.
      const removed = await owner.agent
        .post(`${api()}/moderation/comments/${c.id}/decision`)
        .send({ action: 'remove', reason: 'Off topic', warn_author: true })
        .expect(200);
      expect(removed.body).toMatchObject({ id: c.id, status: 'removed' });
      expect(await events('moderation.decided', 'item_id', c.id)).toEqual([
        { item_type: 'comment', item_id: c.id, action: 'remove', author_id: student.user.id, warn_author: true },
      ]);
      expect(await events('comment.created', 'comment_id', c.id)).toEqual([]);
      const gone = await owner.agent
        .post(`${api()}/moderation/comments/${c.id}/decision`)
        .send({ action: 'approve', reason: 'x' });
      expect([gone.status, gone.body.error.code]).toEqual([409, 'nothing_to_moderate']);
      const queueAfter = await admin.agent.get(`${api()}/moderation/queue`).expect(200);
      expect(queueAfter.body.total).toBe(0);
    });

    it('editing one’s post under pre-moderation makes it pending again', async () => {
      await owner.agent.put(`${api()}/moderation/settings`).send({ pre_moderation: false }).expect(200);
      const item = (await student.agent.post(`${api()}/posts`).send({ body_md: 'v1' }).expect(201)).body;
      expect(item.post.status).toBe('published');
      await owner.agent.put(`${api()}/moderation/settings`).send({ pre_moderation: true }).expect(200);
      const edited = await student.agent.patch(`${api()}/posts/${item.id}`).send({ body_md: 'v2' }).expect(200);
      expect(edited.body.post.status).toBe('pending');
      const byTeacher = (await teacher.agent.post(`${api()}/posts`).send({ body_md: 't1' }).expect(201)).body;
      const tEdit = await teacher.agent.patch(`${api()}/posts/${byTeacher.id}`).send({ body_md: 't2' }).expect(200);
      expect(tEdit.body.post.status).toBe('published');
      await owner.agent.put(`${api()}/moderation/settings`).send({ pre_moderation: false }).expect(200);
    });

    it('a blocked term (case- and accent-insensitive, whole word) holds content whoever writes it', async () => {
      await owner.agent
        .put(`${api()}/moderation/settings`)
        .send({ blocked_terms: ['estafa'] })
        .expect(200);
      const held = await owner.agent.post(`${api()}/posts`).send({ body_md: 'Una ESTÁFA total' }).expect(201);
      expect(held.body.post.status).toBe('pending');
      const fine = await owner.agent.post(`${api()}/posts`).send({ body_md: 'Un estafador' }).expect(201);
      expect(fine.body.post.status).toBe('published');
      const c = await admin.agent.post(`${api()}/posts/${fine.body.id}/comments`).send({ body_md: 'estafa!' });
      expect(c.body.status).toBe('pending');
      const queue = await admin.agent.get(`${api()}/moderation/queue?status=pending`).expect(200);
      expect(queue.body.items.map((q: { item_id: string; reasons: string[] }) => [q.item_id, q.reasons])).toEqual(
        expect.arrayContaining([
          [held.body.id, ['blocked_term']],
          [c.body.id, ['blocked_term']],
        ]),
      );
      await owner.agent.put(`${api()}/moderation/settings`).send({ blocked_terms: [] }).expect(200);
    });
  });

  describe('reported items and decisions', () => {
    beforeAll(() => freshOrg('Decisions'));

    it('published items with open reports are queued; remove upholds the reports; 404s and 422s', async () => {
      const item = (await student.agent.post(`${api()}/posts`).send({ body_md: 'spammy' }).expect(201)).body;
      const r1 = await studentOf();
      await r1.agent.post(`${api()}/posts/${item.id}/reports`).send({ reason: 'spam' }).expect(201);
      const queue = await owner.agent.get(`${api()}/moderation/queue?status=reported`).expect(200);
      expect(queue.body.items).toEqual([
        expect.objectContaining({
          item_id: item.id,
          status: 'published',
          reasons: ['reports'],
          reports: [{ reason: 'spam', count: 1 }],
          reports_count: 1,
        }),
      ]);
      expect((await owner.agent.get(`${api()}/moderation/queue?status=hidden`)).body.total).toBe(0);
      for (const bad of [
        { action: 'ban', reason: 'x' },
        { action: 'remove', reason: '' },
        { action: 'remove', reason: 'r'.repeat(501) },
        { action: 'remove' },
        { action: 'remove', reason: 'x', warn_author: 'yes' },
      ]) {
        const res = await owner.agent.post(`${api()}/moderation/posts/${item.id}/decision`).send(bad);
        expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      }
      await owner.agent
        .post(`${api()}/moderation/posts/00000000-0000-4000-8000-000000000000/decision`)
        .send({ action: 'remove', reason: 'x' })
        .expect(404);
      await owner.agent.get(`${api()}/moderation/queue?status=everything`).expect(422);
      const res = await owner.agent
        .post(`${api()}/moderation/posts/${item.id}/decision`)
        .send({ action: 'remove', reason: 'r'.repeat(500) })
        .expect(200);
      expect(res.body.post.status).toBe('removed');
      const reports = await t.db.query(`SELECT status, decided_at FROM feed_reports WHERE post_id = $1`, [item.id]);
      expect(reports).toEqual([{ status: 'upheld', decided_at: expect.any(Date) }]);
      // Removed: gone for everyone but the moderators, the author included.
      await r1.agent.get(`${api()}/posts/${item.id}`).expect(404);
      await student.agent.get(`${api()}/posts/${item.id}`).expect(404);
      await owner.agent.get(`${api()}/posts/${item.id}`).expect(200);
      expect((await owner.agent.get(`${api()}/moderation/queue`)).body.total).toBe(0);
      const published = (await student.agent.post(`${api()}/posts`).send({ body_md: 'fine' }).expect(201)).body;
      const nothing = await owner.agent
        .post(`${api()}/moderation/posts/${published.id}/decision`)
        .send({ action: 'approve', reason: 'x' });
      expect([nothing.status, nothing.body.error.code]).toEqual([409, 'nothing_to_moderate']);
    });

    it('the queue is oldest first and pages', async () => {
      await owner.agent.put(`${api()}/moderation/settings`).send({ pre_moderation: true }).expect(200);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        t.clock.advance(1000);
        ids.push(
          (
            await student.agent
              .post(`${api()}/posts`)
              .send({ body_md: `q${i}` })
              .expect(201)
          ).body.id,
        );
      }
      const first = await owner.agent.get(`${api()}/moderation/queue?limit=2`).expect(200);
      expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0 });
      expect(first.body.items.map((q: { item_id: string }) => q.item_id)).toEqual(ids.slice(0, 2));
      const second = await owner.agent.get(`${api()}/moderation/queue?limit=2&offset=2`).expect(200);
      expect(second.body.items.map((q: { item_id: string }) => q.item_id)).toEqual([ids[2]]);
    });

    it('another organization’s moderators reach nothing here', async () => {
      const otherOwner = await adult(t);
      const other = await createOrganization(t, otherOwner, 'Elsewhere');
      const item = (await student.agent.post(`${api()}/posts`).send({ body_md: 'held' }).expect(201)).body;
      await otherOwner.agent
        .post(`${api(other)}/moderation/posts/${item.id}/decision`)
        .send({ action: 'remove', reason: 'x' })
        .expect(404);
      await otherOwner.agent.get(`${api()}/moderation/queue`).expect(404);
      const theirs = await otherOwner.agent.get(`${api(other)}/moderation/queue`).expect(200);
      expect(theirs.body.total).toBe(0);
    });
  });
});
