import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, ALL_ROLES, type ScopedRoute } from './route';

const base = (o: OrgFixture): string => `/api/v1/organizations/${o.id}`;

/** A post by `author` (and, with `withComment`, a comment by the owner on it), ids under `o.ids[key + ...]`. */
async function postOf(
  t: TestApp,
  o: OrgFixture,
  key: string,
  author: 'owner' | 'teacher' | 'student',
  options: { withComment?: 'owner' | 'student'; pending?: boolean } = {},
): Promise<void> {
  const [post] = await t.db.query(
    `INSERT INTO feed_items (organization_id, kind, user_id, created_at, body_md, body_html, status, pending_reason,
       published_at)
     VALUES ($1, 'post', $2, now(), 'x', '<p>x</p>', $3, $4, CASE WHEN $3 = 'published' THEN now() END) RETURNING id`,
    [
      o.id,
      o.people[author].user.id,
      options.pending ? 'pending' : 'published',
      options.pending ? 'pre_moderation' : null,
    ],
  );
  o.ids[`${key}Post`] = post.id;
  if (options.withComment) {
    const [comment] = await t.db.query(
      `INSERT INTO feed_comments (organization_id, post_id, user_id, body_md, body_html, status, pending_reason,
         created_at)
       VALUES ($1, $2, $3, 'c', '<p>c</p>', $4, $5, now()) RETURNING id`,
      [
        o.id,
        post.id,
        o.people[options.withComment].user.id,
        options.pending ? 'pending' : 'published',
        options.pending ? 'pre_moderation' : null,
      ],
    );
    o.ids[`${key}Comment`] = comment.id;
  }
}

export const socialRoutes: ScopedRoute[] = [
  { name: 'the feed', method: 'get', path: (o) => `${base(o)}/feed`, roles: ALL_ROLES, ok: 200 },
  {
    name: 'post to the feed',
    method: 'post',
    path: (o) => `${base(o)}/posts`,
    body: () => ({ body_md: 'Hello' }),
    roles: ALL_ROLES,
    ok: 201,
  },
  {
    name: 'a post',
    method: 'get',
    path: (o) => `${base(o)}/posts/${o.ids.readPost}`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => postOf(t, o, 'read', 'owner'),
  },
  {
    name: 'edit one’s post',
    method: 'patch',
    path: (o) => `${base(o)}/posts/${o.ids.editPost}`,
    body: () => ({ body_md: 'edited' }),
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => postOf(t, o, 'edit', 'student'),
  },
  {
    name: 'delete one’s post',
    method: 'delete',
    path: (o) => `${base(o)}/posts/${o.ids.dropPost}`,
    roles: ALL_ROLES,
    ok: 204,
    setup: (t, o) => postOf(t, o, 'drop', 'student'),
  },
  {
    name: 'comments of a post',
    method: 'get',
    path: (o) => `${base(o)}/posts/${o.ids.commentsPost}/comments`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => postOf(t, o, 'comments', 'owner', { withComment: 'owner' }),
  },
  {
    name: 'comment on a post',
    method: 'post',
    path: (o) => `${base(o)}/posts/${o.ids.commentPost}/comments`,
    body: () => ({ body_md: 'Nice' }),
    roles: ALL_ROLES,
    ok: 201,
    setup: (t, o) => postOf(t, o, 'comment', 'owner'),
  },
  {
    name: 'delete one’s comment',
    method: 'delete',
    path: (o) => `${base(o)}/posts/${o.ids.dropCommentPost}/comments/${o.ids.dropCommentComment}`,
    roles: ALL_ROLES,
    ok: 204,
    setup: (t, o) => postOf(t, o, 'dropComment', 'owner', { withComment: 'student' }),
  },
  {
    name: 'react to a feed item',
    method: 'put',
    path: (o) => `${base(o)}/feed/${o.ids.reactPost}/reactions/like`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => postOf(t, o, 'react', 'owner'),
  },
  {
    name: 'withdraw a reaction',
    method: 'delete',
    path: (o) => `${base(o)}/feed/${o.ids.unreactPost}/reactions/like`,
    roles: ALL_ROLES,
    ok: 204,
    setup: (t, o) => postOf(t, o, 'unreact', 'owner'),
  },
  {
    name: 'report a post',
    method: 'post',
    path: (o) => `${base(o)}/posts/${o.ids.reportPost}/reports`,
    body: () => ({ reason: 'spam' }),
    roles: ALL_ROLES,
    ok: 201,
    setup: (t, o) => postOf(t, o, 'report', 'owner'),
  },
  {
    name: 'report a comment',
    method: 'post',
    path: (o) => `${base(o)}/posts/${o.ids.reportCommentPost}/comments/${o.ids.reportCommentComment}/reports`,
    body: () => ({ reason: 'spam' }),
    roles: ALL_ROLES,
    ok: 201,
    setup: (t, o) => postOf(t, o, 'reportComment', 'owner', { withComment: 'owner' }),
  },
  {
    name: 'the moderation queue',
    method: 'get',
    path: (o) => `${base(o)}/moderation/queue`,
    roles: ADMINS,
    ok: 200,
  },
  {
    name: 'decide about a post',
    method: 'post',
    path: (o) => `${base(o)}/moderation/posts/${o.ids.decidePost}/decision`,
    body: () => ({ action: 'approve', reason: 'Fine' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => postOf(t, o, 'decide', 'student', { pending: true }),
  },
  {
    name: 'decide about a comment',
    method: 'post',
    path: (o) => `${base(o)}/moderation/comments/${o.ids.decideCommentComment}/decision`,
    body: () => ({ action: 'approve', reason: 'Fine' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => postOf(t, o, 'decideComment', 'owner', { withComment: 'student', pending: true }),
  },
  {
    name: 'moderation settings',
    method: 'get',
    path: (o) => `${base(o)}/moderation/settings`,
    roles: ADMINS,
    ok: 200,
  },
  {
    name: 'change the moderation settings',
    method: 'put',
    path: (o) => `${base(o)}/moderation/settings`,
    body: () => ({ auto_hide_after_reports: 3 }),
    roles: ADMINS,
    ok: 200,
  },
  { name: 'muted members', method: 'get', path: (o) => `${base(o)}/moderation/mutes`, roles: ADMINS, ok: 200 },
  {
    name: 'mute a member',
    method: 'post',
    path: (o) => `${base(o)}/moderation/mutes`,
    body: (o) => ({
      user_id: o.people.student.user.id,
      until: new Date(Date.now() + 3600_000).toISOString(),
      reason: 'Cool down',
    }),
    roles: ADMINS,
    ok: 201,
  },
  {
    name: 'unmute a member',
    method: 'delete',
    path: (o) => `${base(o)}/moderation/mutes/${o.people.teacher.user.id}`,
    roles: ADMINS,
    ok: 204,
    setup: async (t, o) => {
      await t.db.query(
        `INSERT INTO member_mutes (organization_id, user_id, until, reason, muted_by, created_at)
         VALUES ($1, $2, now() + interval '30 days', 'r', $3, now())`,
        [o.id, o.people.teacher.user.id, o.people.owner.user.id],
      );
    },
  },
];
