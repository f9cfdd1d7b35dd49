import type { Credential } from '@/core/auth/credential';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { FeedService, ModerationService } from '@/modules/community/social';
import { UsersService } from '@/modules/identity/users';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The feed's SQL on the embedded PostgreSQL (PGlite) as well as on the server: the counters' trigger (plpgsql), the
 * named statements on the driver's pool, the page with its aggregates, auto-hide and a decision. Driven through the
 * services, since the embedded mode has no mail to sign in with.
 */
describe('social feed on the embedded database', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ embedded: true, redis: false, smtp: false });
  }, 240_000);
  afterAll(() => t.close());

  it('posts, reacts, reports past the threshold and decides; page and total agree', async () => {
    const users = t.app.get(UsersService);
    const { user: owner } = await users.findOrCreate('owner@embedded.test', 'en');
    const { user: a } = await users.findOrCreate('a@embedded.test', 'en');
    const { user: b } = await users.findOrCreate('b@embedded.test', 'en');
    const credential: Credential = {
      kind: 'session',
      userId: owner.id,
      sessionId: null,
      tokenId: null,
      organizationId: null,
      access: 'write',
      impersonatorId: null,
      platformRoles: [],
      minor: false,
    };
    const orgs = t.app.get(OrganizationsService);
    const { organization } = await orgs.create(credential, { name: 'Embedded feed' }, undefined);
    await orgs.addMember(organization.id, a.id, 'student', null);
    await orgs.addMember(organization.id, b.id, 'student', null);
    const as = (userId: string, role: 'owner' | 'student' = 'student') => ({
      organizationId: organization.id,
      userId,
      role,
    });
    const feed = t.app.get(FeedService);
    const moderation = t.app.get(ModerationService);
    await moderation.updateSettings(as(owner.id, 'owner'), { auto_hide_after_reports: 1 });
    const post = await feed.createPost(as(a.id), { body_md: 'Hello <script>x</script>' });
    expect(post.post?.body_html).toBe('<p>Hello &lt;script&gt;x&lt;/script&gt;</p>');
    await feed.react(as(b.id), post.id, 'like');
    const page = await feed.feed(as(b.id), { kind: 'all', limit: 50, offset: 0 });
    expect(page.total).toBe(1);
    expect(page.items[0]).toMatchObject({ id: post.id, reactions: { like: 1 }, my_reactions: ['like'] });
    await feed.reportPost(as(b.id), post.id, { reason: 'spam' });
    expect((await feed.feed(as(b.id), { kind: 'all', limit: 50, offset: 0 })).total).toBe(0);
    expect((await feed.feed(as(a.id), { kind: 'all', limit: 50, offset: 0 })).total).toBe(1);
    const decided = await moderation.decidePost(as(owner.id, 'owner'), post.id, { action: 'approve', reason: 'ok' });
    expect(decided.post?.status).toBe('published');
    expect((await feed.feed(as(b.id), { kind: 'posts', limit: 50, offset: 0 })).total).toBe(1);
  });
});
