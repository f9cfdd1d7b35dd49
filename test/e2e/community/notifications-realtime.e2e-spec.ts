import type { Socket } from 'socket.io-client';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import type { EventName, EventPayload } from '@/core/events/event-catalog';
import type { SignedIn } from '../../support/auth';
import { accessCookie, connected, nextEvent, refused, socketTo } from '../../support/realtime';
import { addMember, adult, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const NS = '/notifications';

interface NotificationEvent {
  notification: { id: string; category: string; organization_id: string | null; title: string; read_at: null };
}

/** The real-time namespace `/notifications` (extensions-v2 13.4), through socket.io-client. */
describe('notifications real time', () => {
  let t: TestApp;
  let ann: SignedIn;
  let orgA: string;
  let orgB: string;
  const sockets: Socket[] = [];
  const track = (s: Socket): Socket => {
    sockets.push(s);
    return s;
  };

  async function publish<N extends EventName>(name: N, payload: EventPayload<N>, org: string | null): Promise<string> {
    return t.app
      .get(TransactionRunner)
      .run((tx) => t.app.get(DomainEvents).publish(tx, name, payload, { organizationId: org, actorId: null }));
  }

  beforeAll(async () => {
    t = await createTestApp();
    const owner = await adult(t);
    ann = await adult(t);
    orgA = await createOrganization(t, owner, 'RT A');
    orgB = await createOrganization(t, owner, 'RT B');
    await addMember(t, orgA, ann.user.id, 'student');
    await addMember(t, orgB, ann.user.id, 'student');
  });

  afterEach(() => {
    for (const s of sockets.splice(0)) s.disconnect();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('refuses a handshake without credential', async () => {
    expect((await refused(socketTo(t, NS))).message).toBe('unauthorized');
  });

  it('a session socket (no organization needed) gets unread_count, notification:new and notification:read', async () => {
    const s = track(socketTo(t, NS, { cookie: await accessCookie(ann) }));
    const first = nextEvent<{ unread: number }>(s, 'unread_count');
    await connected(s);
    expect(await first).toEqual({ unread: 0 });

    const created = nextEvent<NotificationEvent>(s, 'notification:new');
    const counted = nextEvent<{ unread: number }>(s, 'unread_count');
    await publish('badge.awarded', { user_id: ann.user.id, code: 'live', kind: 'system' }, orgA);
    const { notification } = await created;
    expect(notification).toMatchObject({
      category: 'badge_earned',
      organization_id: orgA,
      title: 'Nueva insignia',
      read_at: null,
    });
    expect(await counted).toEqual({ unread: 1 });

    const read = nextEvent<{ notification_id: string | null }>(s, 'notification:read');
    const recount = nextEvent<{ unread: number }>(s, 'unread_count');
    await ann.agent.post(`/api/v1/notifications/${notification.id}/read`).expect(204);
    expect(await read).toEqual({ notification_id: notification.id });
    expect(await recount).toEqual({ unread: 0 });

    await publish('badge.awarded', { user_id: ann.user.id, code: 'live2', kind: 'system' }, orgB);
    await nextEvent(s, 'notification:new');
    const all = nextEvent<{ notification_id: string | null }>(s, 'notification:read');
    await ann.agent.post('/api/v1/notifications/read-all').send({}).expect(200);
    expect(await all).toEqual({ notification_id: null });
  });

  it('a bearer token’s socket hears only of its organization’s notifications and those of none', async () => {
    const token = await personalToken(t, ann, orgA, 'read');
    const s = track(socketTo(t, NS, { token }));
    await connected(s);
    const seen: NotificationEvent[] = [];
    s.on('notification:new', (e: NotificationEvent) => seen.push(e));
    // Listening before the publishes: a count sent in the same packet as the last notification is dispatched before
    // the test resumes from awaiting that notification, and was missed when the listener came after.
    const counts: number[] = [];
    s.on('unread_count', (e: { unread: number }) => counts.push(e.unread));
    const third = new Promise<void>((resolve) => s.on('notification:new', () => seen.length === 2 && resolve()));
    await publish('badge.awarded', { user_id: ann.user.id, code: 'in_b', kind: 'system' }, orgB);
    await publish('badge.awarded', { user_id: ann.user.id, code: 'in_a', kind: 'system' }, orgA);
    await publish('support.replied', { ticket_id: '55555555-5555-4555-8555-555555555555', user_id: ann.user.id }, null);
    await third;
    expect(seen.map((e) => e.notification.organization_id).sort()).toEqual([orgA, null].sort());
    // Its unread count is its scope's: A's badge and the support reply, not B's badge; then the reply read.
    await waitUntil(() => counts.includes(2));
    await ann.agent.post('/api/v1/notifications/read-all').send({ category: 'support' }).expect(200);
    await waitUntil(() => counts[counts.length - 1] === 1);
    expect(counts.every((n) => n <= 2)).toBe(true);
  });
});
