import { createECDH, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { jwtVerify } from 'jose';
import webpush from 'web-push';
import { TransactionRunner } from '@/core/database/transaction';
import { JobRunner } from '@/core/queue/job-runner';
import { DomainEvents } from '@/core/events/domain-events.service';
import type { EventName, EventPayload } from '@/core/events/event-catalog';
import { WebPushSender } from '@/modules/community/notifications/testing';
import type { SignedIn } from '../../support/auth';
import { privateInterfaceAddress } from '../../support/net';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PushApiModel } = require('web-push-testing/src/PushApiModel') as {
  PushApiModel: new () => {
    subscribe(o: Record<string, string>): Promise<PushSubscriptionJson>;
    getNotifications(o: { clientHash: string }): { messages: string[] };
    expireSubscription(hash: string): void;
  };
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const WebPushTestingServer = require('web-push-testing/src/server') as new (
  model: unknown,
  port: number,
) => { startServer(): void; _server: Server };

interface PushSubscriptionJson {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  clientHash: string;
}

const SUBS = '/api/v1/push/subscriptions';
const DEVICES = '/api/v1/push/devices';

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/**
 * Web push against `web-push-testing` as the real push service (it decrypts what it receives with the
 * subscription's keys, as a browser would), and native push against a local FCM HTTP v1 stand-in that checks the
 * RFC 7523 assertion. Without keys, push answers 404 `push_disabled` and devices are stored, not sent to.
 */
describe('push', () => {
  describe('web push with VAPID keys and FCM credentials', () => {
    let t: TestApp;
    let pushService: { _server: Server };
    const model = new PushApiModel();
    const vapid = webpush.generateVAPIDKeys();
    let owner: SignedIn;
    let ann: SignedIn;
    let org: string;
    // FCM stand-in.
    let fcm: Server;
    const fcmSent: { token: string; body: Record<string, unknown>; auth: string }[] = [];
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    let tokenRequests = 0;
    let quiet: jest.SpyInstance | undefined;

    async function publish<N extends EventName>(
      name: N,
      payload: EventPayload<N>,
      orgId: string | null,
    ): Promise<string> {
      return t.app
        .get(TransactionRunner)
        .run((tx) => t.app.get(DomainEvents).publish(tx, name, payload, { organizationId: orgId, actorId: null }));
    }

    async function browserSubscription(): Promise<PushSubscriptionJson> {
      return model.subscribe({ userVisibleOnly: 'true', applicationServerKey: vapid.publicKey });
    }

    beforeAll(async () => {
      const pushPort = await freePort();
      pushService = new WebPushTestingServer(model, pushPort);
      // Its "Server running" line, printed from the listen callback (restored in afterAll).
      quiet = jest.spyOn(console, 'log').mockImplementation(() => undefined);
      (pushService as unknown as { startServer(): void }).startServer();
      await waitUntil(() => pushService._server?.listening);

      const fcmPort = await freePort();
      const fcmBase = `http://127.0.0.1:${fcmPort}`;
      fcm = createServer((req, res) => {
        void readBody(req).then(async (text) => {
          if (req.url === '/token') {
            const form = new URLSearchParams(text);
            try {
              const { payload } = await jwtVerify(form.get('assertion') ?? '', rsa.publicKey, {
                issuer: 'push@test.iam',
                audience: `${fcmBase}/token`,
              });
              if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw new Error('grant');
              if (payload.scope !== 'https://www.googleapis.com/auth/firebase.messaging') throw new Error('scope');
              tokenRequests++;
              res
                .writeHead(200, { 'content-type': 'application/json' })
                .end(JSON.stringify({ access_token: 'at-1', expires_in: 3600 }));
            } catch {
              res.writeHead(400).end('{"error":"invalid_grant"}');
            }
            return;
          }
          if (req.url === '/v1/projects/test-project/messages:send') {
            const body = JSON.parse(text) as { message: { token: string } };
            fcmSent.push({ token: body.message.token, body, auth: req.headers.authorization ?? '' });
            if (body.message.token === 'dead-token') {
              res.writeHead(404, { 'content-type': 'application/json' }).end(
                JSON.stringify({
                  error: { code: 404, status: 'NOT_FOUND', details: [{ errorCode: 'UNREGISTERED' }] },
                }),
              );
            } else
              res
                .writeHead(200, { 'content-type': 'application/json' })
                .end('{"name":"projects/test-project/messages/1"}');
            return;
          }
          res.writeHead(404).end();
        });
      }).listen(fcmPort, '127.0.0.1');

      const credentials = {
        project_id: 'test-project',
        client_email: 'push@test.iam',
        private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        token_uri: `${fcmBase}/token`,
      };
      t = await createTestApp({
        env: {
          VAPID_PUBLIC_KEY: vapid.publicKey,
          VAPID_PRIVATE_KEY: vapid.privateKey,
          FCM_CREDENTIALS: Buffer.from(JSON.stringify(credentials)).toString('base64'),
          FCM_BASE_URL: fcmBase,
        },
      });
      owner = await adult(t);
      ann = await adult(t);
      org = await createOrganization(t, owner, 'Push org');
      await addMember(t, org, ann.user.id, 'student');
    });

    afterAll(async () => {
      await t?.close();
      pushService?._server.close();
      quiet?.mockRestore();
      fcm?.close();
    });

    it('answers the VAPID public key', async () => {
      expect((await t.http().get('/api/v1/push/vapid-key').expect(200)).body).toEqual({ public_key: vapid.publicKey });
    });

    it('registers a subscription (201), again is 200 and moves it to the caller; lists and deletes per person', async () => {
      const sub = await browserSubscription();
      const body = { endpoint: sub.endpoint, keys: sub.keys, expiration_time: null };
      const created = (await owner.agent.post(SUBS).send(body).expect(201)).body;
      expect(created).toEqual({
        id: expect.any(String),
        endpoint_origin: new URL(sub.endpoint).origin,
        created_at: expect.stringMatching(/Z$/),
        last_success_at: null,
      });
      const again = (await owner.agent.post(SUBS).send(body).expect(200)).body;
      expect(again.id).toBe(created.id);
      const moved = (await ann.agent.post(SUBS).send(body).expect(200)).body;
      expect(moved.id).toBe(created.id);
      expect((await owner.agent.get(SUBS).expect(200)).body.items).toEqual([]);
      expect((await ann.agent.get(SUBS).expect(200)).body.items.map((s: { id: string }) => s.id)).toEqual([created.id]);
      await owner.agent.delete(`${SUBS}/${created.id}`).expect(404);
      await ann.agent.delete(`${SUBS}/${created.id}`).expect(204);
      await ann.agent.delete(`${SUBS}/${created.id}`).expect(404);
      await ann.agent.delete(`${SUBS}/nope`).expect(404);
    });

    it('refuses endpoints that are not https on public addresses, and malformed keys (422)', async () => {
      const sub = await browserSubscription();
      for (const endpoint of [
        'http://example.com/push/1',
        'https://127.0.0.1/push/1',
        'https://10.0.0.1/push/1',
        'https://[::1]/push',
        'https://169.254.169.254/latest',
        'ftp://push.example/1',
        'not a url',
        'http://10.0.0.1/push',
      ]) {
        const res = await ann.agent.post(SUBS).send({ endpoint, keys: sub.keys, expiration_time: null }).expect(422);
        expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain('endpoint');
      }
      const bad = (keys: Record<string, string>, expiration_time: unknown = null) =>
        ann.agent.post(SUBS).send({ endpoint: sub.endpoint, keys, expiration_time }).expect(422);
      await bad({ p256dh: sub.keys.p256dh.slice(1), auth: sub.keys.auth });
      await bad({ p256dh: sub.keys.p256dh, auth: `${sub.keys.auth}AA` });
      await bad({ p256dh: Buffer.alloc(65, 5).toString('base64url'), auth: sub.keys.auth }); // not an uncompressed point
      await bad(sub.keys, -1);
      await bad(sub.keys, 'soon');
      await ann.agent
        .post(SUBS)
        .send({ endpoint: `${sub.endpoint}${'x'.repeat(2049)}`, keys: sub.keys, expiration_time: null })
        .expect(422);
      expect((await ann.agent.get(SUBS).expect(200)).body.items).toEqual([]);
    });

    it('the sender connects only to public addresses itself: no check-then-connect gap (extensions-v3 6.7)', async () => {
      // Stands for a name that resolved to a public address when checked and to this private one at delivery.
      const privateAddress = privateInterfaceAddress();
      const connections: string[] = [];
      const inside = createTcpServer((socket) => {
        connections.push(socket.remoteAddress ?? '');
        socket.destroy();
      });
      await new Promise<void>((resolve) => inside.listen(0, privateAddress, resolve));
      const { port } = inside.address() as AddressInfo;
      try {
        const sub = await browserSubscription();
        const send = t.app
          .get(WebPushSender)
          .send({ endpoint: `https://${privateAddress}:${port}/push/1`, ...sub.keys }, '{}', {
            topic: 'system',
            urgency: 'normal',
          });
        await expect(send).rejects.toMatchObject({ name: 'AddressRefused' });
        expect(connections).toEqual([]);
      } finally {
        await new Promise((resolve) => inside.close(resolve));
      }
    });

    it('delivers an encrypted payload the push service decrypts; success is recorded', async () => {
      const sub = await browserSubscription();
      const registered = (
        await ann.agent
          .post(SUBS)
          .send({ endpoint: sub.endpoint, keys: sub.keys, expiration_time: Date.now() + 1e9 })
          .expect(201)
      ).body;
      const eventId = await publish('badge.awarded', { user_id: ann.user.id, code: 'quiz_ace', kind: 'system' }, org);
      const messages = await waitUntil(() => {
        const m = model.getNotifications({ clientHash: sub.clientHash }).messages;
        return m.length > 0 ? m : null;
      });
      const payload = JSON.parse(messages[0]);
      const [row] = await t.db.query(`SELECT id FROM notifications WHERE source_key = $1`, [eventId]);
      expect(payload).toEqual({
        notification_id: row.id,
        category: 'badge_earned',
        title: 'Nueva insignia',
        body: 'Has conseguido la insignia quiz_ace.',
        url: 'http://web.test/profile/badges',
        organization_id: org,
      });
      const listed = await waitUntil(async () => {
        const items = (await ann.agent.get(SUBS).expect(200)).body.items as {
          id: string;
          last_success_at: string | null;
        }[];
        return items.find((s) => s.id === registered.id && s.last_success_at) ?? null;
      });
      expect(listed.last_success_at).toMatch(/Z$/);
    });

    it('a 410 from the push service removes the subscription', async () => {
      const sub = await browserSubscription();
      const registered = (
        await ann.agent.post(SUBS).send({ endpoint: sub.endpoint, keys: sub.keys, expiration_time: null }).expect(201)
      ).body;
      model.expireSubscription(sub.clientHash);
      await publish('badge.awarded', { user_id: ann.user.id, code: 'gone', kind: 'system' }, org);
      await waitUntil(async () => {
        const items = (await ann.agent.get(SUBS).expect(200)).body.items as { id: string }[];
        return !items.some((s) => s.id === registered.id);
      });
    });

    it('429 and 5xx from the push service are retried; another 4xx is dropped without retry; the subscription stays', async () => {
      let status = 503;
      const received: string[] = [];
      const service = createServer((req, res) => {
        received.push(req.headers.topic as string);
        req.resume();
        req.on('end', () => res.writeHead(status).end());
      }).listen(0, '127.0.0.1');
      await waitUntil(() => service.listening);
      try {
        const ecdh = createECDH('prime256v1');
        ecdh.generateKeys();
        const keys = { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
        const endpoint = `http://127.0.0.1:${(service.address() as AddressInfo).port}/push/1`;
        const gus = await adult(t);
        const sub = (await gus.agent.post(SUBS).send({ endpoint, keys, expiration_time: null }).expect(201)).body;
        const eventId = await publish(
          'duel.challenged',
          { duel_id: '77777777-7777-4777-8777-777777777777', challenger_id: ann.user.id, opponent_id: gus.user.id },
          org,
        );
        const job = await waitUntil(async () => {
          const [n] = await t.db.query(`SELECT id FROM notifications WHERE source_key = $1`, [eventId]);
          if (!n) return null;
          const [j] = await t.db.query(`SELECT id, status, attempts, last_error FROM jobs WHERE dedupe_key = $1`, [
            `push:${n.id}:${sub.id}`,
          ]);
          return j?.attempts === 1 && j.status === 'pending' ? j : null;
        });
        expect(job.last_error).toContain('503');
        expect(received).toEqual(['duels']); // Topic: the category
        status = 429;
        await expect(t.app.get(JobRunner).execute(job.id)).rejects.toThrow('429');
        status = 400;
        await t.app.get(JobRunner).execute(job.id);
        const [done] = await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [job.id]);
        expect(done.status).toBe('completed');
        const items = (await gus.agent.get(SUBS).expect(200)).body.items;
        expect(items).toEqual([{ ...sub, last_success_at: null }]);
        expect(received).toHaveLength(3);
      } finally {
        service.close();
      }
    });

    it('keeps at most 20 subscriptions per person (the oldest is dropped)', async () => {
      const carol = await adult(t);
      const ids: string[] = [];
      for (let i = 0; i < 21; i++) {
        const sub = await browserSubscription();
        ids.push(
          (
            await carol.agent
              .post(SUBS)
              .send({ endpoint: sub.endpoint, keys: sub.keys, expiration_time: null })
              .expect(201)
          ).body.id,
        );
      }
      const items = (await carol.agent.get(SUBS).expect(200)).body.items.map((s: { id: string }) => s.id);
      expect(items).toHaveLength(20);
      expect(items).not.toContain(ids[0]);
      expect(items).toContain(ids[20]);
    });

    it('push test: one per subscription and device, 202; 5 per hour per account', async () => {
      const dan = await adult(t);
      const sub = await browserSubscription();
      await dan.agent.post(SUBS).send({ endpoint: sub.endpoint, keys: sub.keys, expiration_time: null }).expect(201);
      await dan.agent.post(DEVICES).send({ platform: 'android', token: 'dan-phone' }).expect(201);
      expect((await dan.agent.post('/api/v1/push/test').send({}).expect(202)).body).toEqual({ queued: 2 });
      const messages = await waitUntil(() => {
        const m = model.getNotifications({ clientHash: sub.clientHash }).messages;
        return m.length > 0 ? m : null;
      });
      expect(JSON.parse(messages[0])).toMatchObject({
        notification_id: null,
        category: 'test',
        title: 'Notificación de prueba',
      });
      await waitUntil(() => fcmSent.find((m) => m.token === 'dan-phone'));
      for (let i = 0; i < 4; i++) await dan.agent.post('/api/v1/push/test').send({}).expect(202);
      await dan.agent.post('/api/v1/push/test').send({}).expect(429);
    });

    it('native devices: FCM HTTP v1 with a JWT-bearer access token; UNREGISTERED removes the device', async () => {
      const device = (
        await ann.agent.post(DEVICES).send({ platform: 'ios', token: 'ann-phone', app_version: '1.2.3' }).expect(201)
      ).body;
      expect(device).toEqual({
        id: expect.any(String),
        platform: 'ios',
        created_at: expect.stringMatching(/Z$/),
        last_success_at: null,
        delivery: 'enabled',
      });
      const dead = (await ann.agent.post(DEVICES).send({ platform: 'android', token: 'dead-token' }).expect(201)).body;
      const eventId = await publish(
        'duel.challenged',
        { duel_id: '11111111-1111-4111-8111-111111111111', challenger_id: owner.user.id, opponent_id: ann.user.id },
        org,
      );
      const sent = await waitUntil(() => fcmSent.find((m) => m.token === 'ann-phone'));
      const [row] = await t.db.query(`SELECT id FROM notifications WHERE source_key = $1`, [eventId]);
      expect(sent.auth).toBe('Bearer at-1');
      expect(sent.body).toEqual({
        message: {
          token: 'ann-phone',
          notification: {
            title: 'Te han retado a un duelo',
            body: 'Acepta o rechaza el reto en las próximas 24 horas.',
          },
          data: {
            notification_id: row.id,
            category: 'duels',
            url: 'http://web.test/duels/11111111-1111-4111-8111-111111111111',
            organization_id: org,
          },
          android: { collapse_key: 'duels' },
          apns: { headers: { 'apns-collapse-id': 'duels' } },
        },
      });
      expect(tokenRequests).toBe(1); // cached
      await waitUntil(async () => {
        const items = (await ann.agent.get(DEVICES).expect(200)).body.items as { id: string }[];
        return !items.some((d) => d.id === dead.id) && items.some((d) => d.id === device.id);
      });
      // The same token again is 200 and moves to the caller.
      const moved = (await owner.agent.post(DEVICES).send({ platform: 'ios', token: 'ann-phone' }).expect(200)).body;
      expect(moved.id).toBe(device.id);
      await ann.agent.delete(`${DEVICES}/${device.id}`).expect(404);
      await owner.agent.delete(`${DEVICES}/${device.id}`).expect(204);
      for (const body of [
        { platform: 'web', token: 'x' },
        { platform: 'ios', token: '' },
        { platform: 'ios', token: 'x'.repeat(4097) },
        { platform: 'ios', token: 'x', app_version: 'v'.repeat(33) },
      ]) {
        await owner.agent.post(DEVICES).send(body).expect(422);
      }
      await owner.agent
        .post(DEVICES)
        .send({ platform: 'ios', token: 'x'.repeat(4096), app_version: 'v'.repeat(32) })
        .expect(201);
    });

    it('push waits for the end of quiet hours', async () => {
      const eve = await adult(t);
      const sub = await browserSubscription();
      const registered = (
        await eve.agent.post(SUBS).send({ endpoint: sub.endpoint, keys: sub.keys, expiration_time: null }).expect(201)
      ).body;
      const hour = new Date(t.clock.nowMs()).getUTCHours();
      const hh = (h: number) => `${String(h % 24).padStart(2, '0')}:00`;
      await eve.agent
        .patch('/api/v1/me/notification-preferences')
        .send({ quiet_hours: { enabled: true, start: hh(hour), end: hh(hour + 1) } })
        .expect(200);
      const eventId = await publish('badge.awarded', { user_id: eve.user.id, code: 'night', kind: 'system' }, null);
      const job = await waitUntil(async () => {
        const [n] = await t.db.query(`SELECT id FROM notifications WHERE source_key = $1`, [eventId]);
        if (!n) return null;
        const rows = await t.db.query(`SELECT run_after, status FROM jobs WHERE dedupe_key = $1`, [
          `push:${n.id}:${registered.id}`,
        ]);
        return rows[0];
      });
      expect(job.status).toBe('pending');
      const expected = Math.ceil((t.clock.nowMs() + 1) / 3_600_000) * 3_600_000;
      expect(Math.abs(new Date(job.run_after).getTime() - expected)).toBeLessThan(5_000);
      expect(model.getNotifications({ clientHash: sub.clientHash }).messages).toEqual([]);
    });

    it('a bearer token sees the person’s subscriptions and devices (they belong to no organization)', async () => {
      const token = await personalToken(t, ann, org, 'read');
      const items = (await bearer(t, token).get(DEVICES).expect(200)).body.items;
      expect(Array.isArray(items)).toBe(true);
      await bearer(t, token).post(DEVICES).send({ platform: 'ios', token: 'y' }).expect(403);
      await t.http().get(SUBS).expect(401);
    });
  });

  describe('without keys', () => {
    let t: TestApp;
    let ann: SignedIn;

    beforeAll(async () => {
      t = await createTestApp();
      ann = await adult(t);
    });

    afterAll(async () => {
      await t?.close();
    });

    it('web push routes answer 404 push_disabled; devices are stored with delivery disabled', async () => {
      const r = await t.http().get('/api/v1/push/vapid-key').expect(404);
      expect(r.body.error.code).toBe('push_disabled');
      const keys = {
        p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url'),
        auth: Buffer.alloc(16, 2).toString('base64url'),
      };
      expect(
        (
          await ann.agent
            .post(SUBS)
            .send({ endpoint: 'https://push.example/1', keys, expiration_time: null })
            .expect(404)
        ).body.error.code,
      ).toBe('push_disabled');
      expect((await ann.agent.post('/api/v1/push/test').send({}).expect(404)).body.error.code).toBe('push_disabled');
      const device = (await ann.agent.post(DEVICES).send({ platform: 'android', token: 'stored-only' }).expect(201))
        .body;
      expect(device.delivery).toBe('disabled');
      expect((await ann.agent.get(DEVICES).expect(200)).body.items).toEqual([device]);
      await t.app
        .get(TransactionRunner)
        .run((tx) =>
          t.app
            .get(DomainEvents)
            .publish(
              tx,
              'badge.awarded',
              { user_id: ann.user.id, code: 'x', kind: 'system' },
              { organizationId: null, actorId: null },
            ),
        );
      const [n] = await waitUntil(async () => {
        const rows = await t.db.query(`SELECT id FROM notifications WHERE user_id = $1`, [ann.user.id]);
        return rows.length ? rows : null;
      });
      const jobs = await t.db.query(`SELECT name FROM jobs WHERE dedupe_key LIKE $1`, [`%${n.id}%`]);
      expect(jobs).toEqual([]);
    });
  });
});
