import { Webhook } from 'standardwebhooks';
import { JobRunner } from '@/core/queue/job-runner';
import { SchedulerService } from '@/core/queue/scheduler.service';
import { DISABLE_FAILING, PRUNE_DELIVERIES, WebhookSender } from '@/modules/integrations/webhooks/testing';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { signIn, type SignedIn, stepUpByEmail } from '../../support/auth';
import { addMember, adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { backgroundIdle, waitUntil } from '../../support/wait';
import { WebhookReceiver, type ReceivedWebhook } from '../../support/webhook-receiver';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ENDPOINT_KEYS = [
  'created_at',
  'created_by',
  'description',
  'disabled_reason',
  'enabled',
  'events',
  'id',
  'secret_rotated_at',
  'updated_at',
  'url',
];
const DELIVERY_KEYS = [
  'attempts',
  'created_at',
  'event_id',
  'event_type',
  'id',
  'last_attempt_at',
  'last_error',
  'last_status_code',
  'next_attempt_at',
  'response_ms',
  'status',
];

/** Verifies a delivery with the `standardwebhooks` package (its own 5-minute timestamp rule, on real time). */
function verify(secret: string, r: ReceivedWebhook): Record<string, unknown> {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  }) as Record<string, unknown>;
}

/** The signature the package computes for this delivery with this secret (any time: no timestamp rule). */
function expectedSignature(secret: string, r: ReceivedWebhook): string {
  const at = new Date(Number(r.headers['webhook-timestamp']) * 1000);
  return new Webhook(secret).sign(String(r.headers['webhook-id']), at, r.body);
}

describe('outbound webhooks (extensions-v2 25.3)', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  let owner: SignedIn;
  let admin: SignedIn;
  let teacher: SignedIn;
  let student: SignedIn;
  let ownerB: SignedIn;
  let orgA: string;
  let orgB: string;
  let pathCounter = 0;

  const base = (org = orgA): string => `/api/v1/organizations/${org}/webhook-endpoints`;
  const nextPath = (): string => `/hook-${++pathCounter}`;

  async function createEndpoint(
    body: Record<string, unknown>,
    who: SignedIn = owner,
  ): Promise<{ id: string; secret: string; [k: string]: unknown }> {
    const res = await who.agent.post(base()).send(body).expect(201);
    return res.body;
  }

  async function deliveries(endpointId: string, query = ''): Promise<Record<string, unknown>[]> {
    const res = await owner.agent.get(`${base()}/${endpointId}/deliveries${query}`).expect(200);
    return res.body.items;
  }

  /** The delivery log read from the table (while the Clock is moved, sessions would have expired). */
  async function logOf(endpointId: string): Promise<Record<string, unknown>[]> {
    const rows = await t.db.query<Record<string, unknown>[]>(
      `SELECT id, status, attempts, last_attempt_at, next_attempt_at, last_status_code, last_error
       FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC`,
      [endpointId],
    );
    return rows;
  }

  async function endpointRow(endpointId: string): Promise<{ enabled: boolean; disabled_reason: string | null }> {
    const [row] = await t.db.query(`SELECT enabled, disabled_reason FROM webhook_endpoints WHERE id = $1`, [
      endpointId,
    ]);
    return row;
  }

  async function jobFor(deliveryId: string, attempt: number): Promise<string> {
    const rows = await t.db.query<{ id: string }[]>(`SELECT id FROM jobs WHERE dedupe_key = $1`, [
      `webhooks.deliver:${deliveryId}:${attempt}`,
    ]);
    return rows[0]?.id;
  }

  async function newMember(role: 'student' | 'teacher' = 'student'): Promise<string> {
    const person = await signIn(t);
    await addMember(t, orgA, person.user.id, role);
    return person.user.id;
  }

  beforeAll(async () => {
    t = await createTestApp();
    receiver = new WebhookReceiver();
    await receiver.start();
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Hooks Org');
    admin = await adult(t);
    teacher = await adult(t);
    student = await adult(t);
    await addMember(t, orgA, admin.user.id, 'admin');
    await addMember(t, orgA, teacher.user.id, 'teacher');
    await addMember(t, orgA, student.user.id, 'student');
    ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Other Org');
    await stepUpByEmail(t, owner);
    await stepUpByEmail(t, admin);
    await stepUpByEmail(t, ownerB);
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  describe('endpoints', () => {
    it('creates an endpoint: 201 with the whsec_ secret shown once, audited; reads never show it', async () => {
      const res = await owner.agent
        .post(base())
        .send({ url: receiver.url('/created'), description: 'LRS bridge', events: ['member.joined'] })
        .expect(201);
      expect(Object.keys(res.body).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
      expect(res.body).toMatchObject({
        id: expect.stringMatching(UUID),
        url: receiver.url('/created'),
        description: 'LRS bridge',
        events: ['member.joined'],
        enabled: true,
        disabled_reason: null,
        secret_rotated_at: null,
        created_by: { user_id: owner.user.id },
        created_at: expect.stringMatching(ISO),
      });
      expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32);

      const one = await admin.agent.get(`${base()}/${res.body.id}`).expect(200);
      expect(Object.keys(one.body).sort()).toEqual(ENDPOINT_KEYS);
      const list = await owner.agent.get(base()).expect(200);
      expect(list.body.items.map((e: { id: string }) => e.id)).toContain(res.body.id);
      expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
      // Stored sealed, never in clear.
      const [row] = await t.db.query(`SELECT secret_sealed FROM webhook_endpoints WHERE id = $1`, [res.body.id]);
      expect(row.secret_sealed).not.toContain(res.body.secret.slice(6));
      const [audit] = await t.db.query(
        `SELECT action, actor_id, organization_id, metadata FROM audit_log WHERE target_id = $1`,
        [res.body.id],
      );
      expect(audit).toMatchObject({
        action: 'webhook_endpoint.created',
        actor_id: owner.user.id,
        organization_id: orgA,
        metadata: { events: ['member.joined'], enabled: true },
      });
    });

    it('validates the body: events 1.. of the catalog, unique; description max 200; url max 2048 and https', async () => {
      const url = receiver.url('/v');
      const bad: Record<string, unknown>[] = [
        { url, events: [] },
        { url, events: ['user.created'] },
        { url, events: ['webhook.test'] },
        { url, events: ['member.joined', 'member.joined'] },
        { url, events: 'member.joined' },
        { url },
        { url, events: ['member.joined'], description: 'x'.repeat(201) },
        { url, events: ['member.joined'], enabled: 'yes' },
        { url: `https://example.com/${'a'.repeat(2030)}`, events: ['member.joined'] },
        { url: 'ftp://127.0.0.1/x', events: ['member.joined'] },
        { url: 'not a url', events: ['member.joined'] },
        { url: 'https://user:pw@127.0.0.1/x', events: ['member.joined'] },
      ];
      for (const body of bad) {
        const res = await owner.agent.post(base()).send(body);
        expect({ body, status: res.status, code: res.body.error?.code }).toEqual({
          body,
          status: 422,
          code: 'validation_error',
        });
      }
      const ok = await owner.agent
        .post(base())
        .send({ url, events: ['member.joined'], description: 'x'.repeat(200), enabled: false })
        .expect(201);
      expect(ok.body).toMatchObject({ enabled: false, disabled_reason: null });
      await owner.agent.delete(`${base()}/${ok.body.id}`).expect(204);
    });

    it('refuses private, link-local, reserved and unresolvable addresses with 422 (loopback is accepted outside production)', async () => {
      for (const url of [
        'https://10.1.2.3/hook',
        'https://192.168.0.10/hook',
        'https://172.16.5.5/hook',
        'https://169.254.169.254/latest/meta-data',
        'https://[fe80::1]/hook',
        'https://[fd00::1]/hook',
        'https://[::ffff:10.0.0.1]/hook',
        'https://100.64.0.1/hook',
        'https://0.0.0.0/hook',
        'https://no-such-host.invalid/hook',
      ]) {
        const res = await owner.agent.post(base()).send({ url, events: ['member.joined'] });
        expect({ url, status: res.status, field: res.body.error?.details?.[0]?.field }).toEqual({
          url,
          status: 422,
          field: 'url',
        });
      }
      const loop = await owner.agent
        .post(base())
        .send({ url: `http://localhost:${receiver.port}/loop`, events: ['member.joined'] })
        .expect(201);
      await owner.agent.delete(`${base()}/${loop.body.id}`).expect(204);
      expect(await t.db.query(`SELECT 1 FROM webhook_endpoints WHERE url LIKE 'https://10.%'`)).toHaveLength(0);
    });

    it('needs owner/admin, a step-up for writes, and stays inside the organization', async () => {
      const { id } = await createEndpoint({ url: receiver.url('/acl'), events: ['member.left'] });
      for (const who of [teacher, student]) {
        await who.agent.get(base()).expect(403);
        await who.agent.get(`${base()}/${id}`).expect(403);
        await who.agent
          .post(base())
          .send({ url: receiver.url('/x'), events: ['member.left'] })
          .expect(403);
        await who.agent.post(`${base()}/${id}/test`).expect(403);
        await who.agent.get(`${base()}/${id}/deliveries`).expect(403);
      }
      // Another organization's owner: the organization does not exist for them.
      await ownerB.agent.get(base()).expect(404);
      await ownerB.agent.get(`${base()}/${id}`).expect(404);
      await ownerB.agent.delete(`${base()}/${id}`).expect(404);
      // Their own organization's path does not reach this endpoint either.
      await ownerB.agent.get(`${base(orgB)}/${id}`).expect(404);
      await ownerB.agent
        .patch(`${base(orgB)}/${id}`)
        .send({ enabled: false })
        .expect(404);
      await ownerB.agent.post(`${base(orgB)}/${id}/rotate-secret`).expect(404);
      await ownerB.agent.post(`${base(orgB)}/${id}/test`).expect(404);
      await ownerB.agent.get(`${base(orgB)}/${id}/deliveries`).expect(404);
      expect((await ownerB.agent.get(base(orgB)).expect(200)).body.items).toEqual([]);
      // A token of organization B on organization A: 404; a token of A reads, but cannot step up for writes.
      const tokenB = await personalToken(t, ownerB, orgB, 'write');
      await bearer(t, tokenB).get(base()).expect(404);
      const tokenA = await personalToken(t, admin, orgA, 'write');
      await bearer(t, tokenA).get(`${base()}/${id}`).expect(200);
      const refused = await bearer(t, tokenA)
        .post(base())
        .send({ url: receiver.url('/t'), events: ['member.left'] });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('step_up_required');
      await bearer(t, tokenA).post(`${base()}/${id}/rotate-secret`).expect(403);
      await bearer(t, tokenA).patch(`${base()}/${id}`).send({ enabled: false }).expect(403);
      // Without a step-up a session is refused too.
      const fresh = await adult(t);
      await addMember(t, orgA, fresh.user.id, 'admin');
      const noStep = await fresh.agent.post(base()).send({ url: receiver.url('/s'), events: ['member.left'] });
      expect(noStep.body.error.code).toBe('step_up_required');
      // Malformed ids are 404.
      await owner.agent.get(`${base()}/not-a-uuid`).expect(404);
      await owner.agent.post(`${base()}/${id}/deliveries/not-a-uuid/redeliver`).expect(404);
      await owner.agent.delete(`${base()}/${id}`).expect(204);
    });

    it('patches only the fields sent, audits it, and deletes with 204 then 404', async () => {
      const { id } = await createEndpoint({ url: receiver.url('/p'), events: ['member.left'], description: 'd' });
      const res = await owner.agent
        .patch(`${base()}/${id}`)
        .send({ events: ['member.left', 'exam.graded'], description: null })
        .expect(200);
      expect(res.body).toMatchObject({
        url: receiver.url('/p'),
        events: ['member.left', 'exam.graded'],
        description: null,
      });
      for (const body of [{ url: null }, { events: [] }, { enabled: null }, { url: 'https://10.0.0.1/' }]) {
        const bad = await owner.agent.patch(`${base()}/${id}`).send(body);
        expect({ body, status: bad.status }).toEqual({ body, status: 422 });
      }
      await owner.agent.delete(`${base()}/${id}`).expect(204);
      await owner.agent.delete(`${base()}/${id}`).expect(404);
      await owner.agent.get(`${base()}/${id}`).expect(404);
      const actions = await t.db.query<{ action: string; metadata: unknown }[]>(
        `SELECT action, metadata FROM audit_log WHERE target_id = $1 ORDER BY action`,
        [id],
      );
      expect(actions.map((a) => a.action)).toEqual([
        'webhook_endpoint.created',
        'webhook_endpoint.deleted',
        'webhook_endpoint.updated',
      ]);
      expect(actions[2].metadata).toEqual({ fields: ['description', 'events'], enabled: true });
    });

    it('allows 10 endpoints per organization; the 11th is 409 endpoint_limit_reached', async () => {
      await t.db.query(`DELETE FROM webhook_endpoints WHERE organization_id = $1`, [orgB]);
      for (let i = 0; i < 10; i++) {
        await ownerB.agent
          .post(base(orgB))
          .send({ url: receiver.url(`/b${i}`), events: ['member.left'] })
          .expect(201);
      }
      const res = await ownerB.agent.post(base(orgB)).send({ url: receiver.url('/b10'), events: ['member.left'] });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('endpoint_limit_reached');
      expect((await ownerB.agent.get(base(orgB)).expect(200)).body.items).toHaveLength(10);
      await t.db.query(`DELETE FROM webhook_endpoints WHERE organization_id = $1`, [orgB]);
    });
  });

  describe('deliveries', () => {
    // Each test starts with no endpoint in organization A (the limit is 10; a failing one would be disabled later).
    beforeEach(async () => {
      await t.db.query(`DELETE FROM webhook_endpoints WHERE organization_id = $1`, [orgA]);
    });

    it('delivers a catalog event signed (Standard Webhooks), retries a 500 after 5 s with the same webhook-id, then succeeds', async () => {
      const path = nextPath();
      const endpoint = await createEndpoint({ url: receiver.url(path), events: ['member.joined'] });
      receiver.answer(path, 500);
      const joined = await newMember('teacher');

      const first = await waitUntil(() => receiver.at(path)[0], { what: 'the first attempt' });
      const body = verify(endpoint.secret, first);
      expect(first.headers['content-type']).toBe('application/json');
      expect(first.headers['user-agent']).toBe('LearningPlatform-Webhooks/1');
      expect(first.headers['webhook-id']).toEqual(body.id);
      expect(String(first.headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(body).toEqual({
        id: expect.stringMatching(UUID),
        type: 'member.joined',
        timestamp: expect.stringMatching(ISO),
        organization_id: orgA,
        data: { user_id: joined, role: 'teacher' },
      });
      // The event id is the domain event's.
      const [event] = await t.db.query(`SELECT id FROM domain_events WHERE id = $1 AND name = 'member.joined'`, [
        body.id,
      ]);
      expect(event).toBeDefined();

      const [pending] = await waitUntil(async () => {
        const items = await deliveries(endpoint.id);
        return items[0]?.attempts === 1 ? items : null;
      });
      expect(Object.keys(pending).sort()).toEqual(DELIVERY_KEYS);
      expect(pending).toMatchObject({
        event_id: body.id,
        event_type: 'member.joined',
        status: 'pending',
        attempts: 1,
        last_status_code: 500,
        last_error: 'HTTP 500',
        response_ms: expect.any(Number),
      });
      const gap = Date.parse(pending.next_attempt_at as string) - Date.parse(pending.last_attempt_at as string);
      expect(gap).toBeGreaterThanOrEqual(5 * SECOND - 50);
      expect(gap).toBeLessThan(5 * SECOND + 1_000);

      const retry = await jobFor(pending.id as string, 2);
      expect(retry).toBeDefined();
      t.clock.advance(5 * SECOND);
      await t.app.get(JobRunner).execute(retry);
      const second = receiver.at(path)[1];
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.body).toBe(first.body);
      expect(Number(second.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(
        Number(first.headers['webhook-timestamp']) + 5,
      );
      verify(endpoint.secret, second);
      const [done] = await deliveries(endpoint.id);
      expect(done).toMatchObject({
        status: 'succeeded',
        attempts: 2,
        last_status_code: 200,
        last_error: null,
        next_attempt_at: null,
      });
      // A redelivered job changes nothing.
      await t.app.get(JobRunner).execute(retry);
      expect(receiver.at(path)).toHaveLength(2);
      t.clock.advance(-5 * SECOND);
    });

    it('sends only subscribed types, to enabled endpoints of the event’s organization', async () => {
      const path = nextPath();
      const other = nextPath();
      await createEndpoint({ url: receiver.url(path), events: ['member.role_changed'] });
      const off = await createEndpoint({ url: receiver.url(other), events: ['member.joined', 'member.role_changed'] });
      await owner.agent.patch(`${base()}/${off.id}`).send({ enabled: false }).expect(200);
      await ownerB.agent
        .post(base(orgB))
        .send({ url: receiver.url(other), events: ['member.joined'] })
        .expect(201);
      const person = await signIn(t);
      await addMember(t, orgA, person.user.id, 'student'); // member.joined: nobody enabled subscribes here
      await owner.agent
        .patch(`/api/v1/organizations/${orgA}/members/${person.user.id}`)
        .send({ role: 'teacher' })
        .expect(200);
      const got = await waitUntil(() => receiver.at(path)[0], { what: 'the role change' });
      expect(JSON.parse(got.body)).toMatchObject({
        type: 'member.role_changed',
        data: { user_id: person.user.id, from: 'student', to: 'teacher' },
      });
      // Once no delivery or job is left to run, nothing went to the disabled endpoint or to organization B's.
      await backgroundIdle(t, 'the webhook fan-out');
      expect(receiver.at(other)).toHaveLength(0);
      expect(receiver.at(path)).toHaveLength(1);
      await t.db.query(`DELETE FROM webhook_endpoints WHERE organization_id = $1`, [orgB]);
    });

    it('after a rotation signs with both secrets for 24 h, then with the new one only', async () => {
      const path = nextPath();
      const endpoint = await createEndpoint({ url: receiver.url(path), events: ['member.left'] });
      const rotated = await owner.agent.post(`${base()}/${endpoint.id}/rotate-secret`).expect(200);
      expect(Object.keys(rotated.body).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
      expect(rotated.body.secret).toMatch(/^whsec_/);
      expect(rotated.body.secret).not.toBe(endpoint.secret);
      expect(rotated.body.secret_rotated_at).toMatch(ISO);
      const test = await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      expect(test.body).toEqual({ event_id: expect.stringMatching(UUID) });
      const got = await waitUntil(() => receiver.at(path)[0], { what: 'the test event' });
      expect(got.headers['webhook-id']).toBe(test.body.event_id);
      expect(JSON.parse(got.body)).toMatchObject({ type: 'webhook.test', data: {}, organization_id: orgA });
      const signatures = String(got.headers['webhook-signature']).split(' ');
      expect(signatures).toHaveLength(2);
      expect(signatures).toEqual([
        expectedSignature(rotated.body.secret, got),
        expectedSignature(endpoint.secret, got),
      ]);
      // A receiver still on the old secret and one already on the new secret both verify it.
      verify(endpoint.secret, got);
      verify(rotated.body.secret, got);

      // 24 h later (no HTTP call while the Clock is moved: sessions would have expired), a member leaves.
      const leaving = await newMember();
      t.clock.advance(DAY + SECOND);
      try {
        await t.app.get(OrganizationsService).removeMember(orgA, leaving, null);
        const after = await waitUntil(() => receiver.at(path)[1], { what: 'the event after 24 h' });
        expect(JSON.parse(after.body)).toMatchObject({ type: 'member.left', data: { user_id: leaving } });
        expect(String(after.headers['webhook-signature'])).toBe(expectedSignature(rotated.body.secret, after));
        expect(String(after.headers['webhook-signature'])).not.toContain(expectedSignature(endpoint.secret, after));
      } finally {
        t.clock.advance(-(DAY + SECOND));
      }
      const audit = await t.db.query(`SELECT action FROM audit_log WHERE target_id = $1 ORDER BY id`, [endpoint.id]);
      expect(audit.map((a: { action: string }) => a.action)).toContain('webhook_endpoint.secret_rotated');
    });

    it('redelivers: a new delivery of the same event (same webhook-id), a new cycle of attempts', async () => {
      const path = nextPath();
      const endpoint = await createEndpoint({ url: receiver.url(path), events: ['member.left'] });
      await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      const first = await waitUntil(() => receiver.at(path)[0]);
      const [original] = (await waitUntil(async () => {
        const items = await deliveries(endpoint.id);
        return items[0]?.status === 'succeeded' ? items : null;
      })) as { id: string; event_id: string }[];
      const res = await owner.agent.post(`${base()}/${endpoint.id}/deliveries/${original.id}/redeliver`).expect(202);
      expect(Object.keys(res.body).sort()).toEqual(DELIVERY_KEYS);
      expect(res.body).toMatchObject({ event_id: original.event_id, status: 'pending', attempts: 0 });
      expect(res.body.id).not.toBe(original.id);
      const again = await waitUntil(() => receiver.at(path)[1], { what: 'the redelivery' });
      expect(again.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(again.body).toBe(first.body);
      verify(endpoint.secret, again);
      const items = await deliveries(endpoint.id);
      expect(items).toHaveLength(2);
      // Another endpoint's delivery id under this endpoint is 404.
      const other = await createEndpoint({ url: receiver.url(nextPath()), events: ['member.left'] });
      await owner.agent.post(`${base()}/${other.id}/deliveries/${original.id}/redeliver`).expect(404);
      await ownerB.agent.post(`${base(orgB)}/${endpoint.id}/deliveries/${original.id}/redeliver`).expect(404);
      // Disabled: 409 endpoint_disabled for test and redeliver.
      await owner.agent.patch(`${base()}/${endpoint.id}`).send({ enabled: false }).expect(200);
      const r1 = await owner.agent.post(`${base()}/${endpoint.id}/deliveries/${original.id}/redeliver`);
      expect([r1.status, r1.body.error.code]).toEqual([409, 'endpoint_disabled']);
      const r2 = await owner.agent.post(`${base()}/${endpoint.id}/test`);
      expect([r2.status, r2.body.error.code]).toEqual([409, 'endpoint_disabled']);
    });

    it('follows the retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h): 8 attempts, then failed', async () => {
      const path = nextPath();
      const endpoint = await createEndpoint({ url: receiver.url(path), events: ['member.left'] });
      receiver.answer(path, ...Array(8).fill(503));
      await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      const [d] = await waitUntil(async () => {
        const items = await deliveries(endpoint.id);
        return items[0]?.attempts === 1 ? items : null;
      });
      const schedule = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
      let moved = 0;
      try {
        for (let attempt = 2; attempt <= 8; attempt++) {
          const [before] = await logOf(endpoint.id);
          expect(before.attempts).toBe(attempt - 1);
          const gap = (before.next_attempt_at as Date).getTime() - (before.last_attempt_at as Date).getTime();
          expect(Math.abs(gap - schedule[attempt - 2])).toBeLessThan(1_000);
          const job = await jobFor(d.id as string, attempt);
          t.clock.advance(schedule[attempt - 2]);
          moved += schedule[attempt - 2];
          await t.app.get(JobRunner).execute(job);
        }
        const [last] = await logOf(endpoint.id);
        expect(last).toMatchObject({ status: 'failed', attempts: 8, last_status_code: 503, next_attempt_at: null });
        expect(await jobFor(d.id as string, 9)).toBeUndefined();
        expect(receiver.at(path)).toHaveLength(8);
        expect(new Set(receiver.at(path).map((r) => r.headers['webhook-id'])).size).toBe(1);
        // 32 h 35 min of failures is not 5 days: still enabled.
        expect((await endpointRow(endpoint.id)).enabled).toBe(true);
      } finally {
        t.clock.advance(-moved);
      }
      // Filters of the log.
      expect(await deliveries(endpoint.id, '?status=failed')).toHaveLength(1);
      expect(await deliveries(endpoint.id, '?status=succeeded')).toHaveLength(0);
      expect(await deliveries(endpoint.id, '?event_type=webhook.test')).toHaveLength(1);
      expect(await deliveries(endpoint.id, '?event_type=member.left')).toHaveLength(0);
      await owner.agent.get(`${base()}/${endpoint.id}/deliveries?status=lost`).expect(422);
      await owner.agent.get(`${base()}/${endpoint.id}/deliveries?limit=201`).expect(422);
    });

    it('a 410 disables the endpoint at once (gone) and tells owners and admins; enabling clears the reason', async () => {
      const path = nextPath();
      const endpoint = await createEndpoint({ url: receiver.url(path), events: ['member.left'] });
      receiver.answer(path, 410);
      const before = t.mail.count();
      await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      const got = await waitUntil(async () => {
        const e = (await owner.agent.get(`${base()}/${endpoint.id}`).expect(200)).body;
        return e.enabled ? null : e;
      });
      expect(got).toMatchObject({ enabled: false, disabled_reason: 'gone' });
      const [d] = await deliveries(endpoint.id);
      expect(d).toMatchObject({ status: 'failed', attempts: 1, last_status_code: 410 });
      const toOwner = await t.mail.waitForTo(owner.email, { after: before, subject: /Webhook/ });
      expect(toOwner.text).toContain(receiver.url(path));
      await t.mail.waitForTo(admin.email, { after: before, subject: /Webhook/ });
      expect(t.mail.to(teacher.email).filter((m) => /Webhook/.test(m.subject))).toHaveLength(0);
      const enabled = await owner.agent.patch(`${base()}/${endpoint.id}`).send({ enabled: true }).expect(200);
      expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
    });

    it('disables an endpoint whose deliveries have all failed for 5 days (the schedule), telling owners and admins', async () => {
      const path = nextPath();
      const endpoint = await createEndpoint({ url: receiver.url(path), events: ['member.left'] });
      // Every attempt fails (the 5 s retry may run on its own by wall time while the test runs).
      receiver.answer(path, ...Array(8).fill(500));
      await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      await waitUntil(async () => ((await deliveries(endpoint.id))[0]?.attempts === 1 ? true : null));
      const before = t.mail.count();
      const scheduler = t.app.get(SchedulerService);
      const runSchedule = async (): Promise<void> => {
        const jobId = await scheduler.enqueue(DISABLE_FAILING, t.clock.now());
        await waitUntil(
          async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [jobId]))[0]?.status === 'completed',
          { what: 'the schedule run' },
        );
      };
      t.clock.advance(5 * DAY - HOUR);
      try {
        await runSchedule();
        expect(await endpointRow(endpoint.id)).toEqual({ enabled: true, disabled_reason: null });
        t.clock.advance(HOUR + MINUTE);
        await runSchedule();
        expect(await endpointRow(endpoint.id)).toEqual({ enabled: false, disabled_reason: 'failing' });
        const mail = await t.mail.waitForTo(owner.email, { after: before, subject: /Webhook/ });
        expect(mail.text).toMatch(/5 d[ií]as|5 days/);
        await t.mail.waitForTo(admin.email, { after: before, subject: /Webhook/ });
        // A second run tells nobody again (other schedules may email about other things as the clock moves).
        const webhookMails = (): number => t.mail.messages.filter((m) => /Webhook/.test(m.subject)).length;
        // Every email of the first run delivered (not only the two awaited above) before counting.
        await waitUntil(
          async () =>
            (
              await t.db.query(
                `SELECT 1 FROM jobs WHERE name = 'mail.send' AND status IN ('pending', 'running') LIMIT 1`,
              )
            ).length === 0,
          { what: 'the first run’s emails' },
        );
        const sent = webhookMails();
        await runSchedule();
        expect(webhookMails()).toBe(sent);
        // Pending attempts of a disabled endpoint are abandoned.
        const [d] = await logOf(endpoint.id);
        const requests = receiver.at(path).length;
        const [next] = await t.db.query<{ id: string }[]>(
          `SELECT id FROM jobs WHERE dedupe_key LIKE $1 AND status = 'pending' ORDER BY created_at DESC LIMIT 1`,
          [`webhooks.deliver:${d.id as string}:%`],
        );
        if (next) await t.app.get(JobRunner).execute(next.id);
        expect(receiver.at(path)).toHaveLength(requests);
        expect((await logOf(endpoint.id))[0]).toMatchObject({ status: 'failed', next_attempt_at: null });
      } finally {
        t.clock.advance(-(5 * DAY + MINUTE));
      }
    });

    it('a success clears the failure clock', async () => {
      const path = nextPath();
      const endpoint = await createEndpoint({ url: receiver.url(path), events: ['member.left'] });
      receiver.answer(path, 500);
      await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      await waitUntil(async () => ((await deliveries(endpoint.id))[0]?.attempts === 1 ? true : null));
      const [{ failing_since }] = await t.db.query(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [
        endpoint.id,
      ]);
      expect(failing_since).not.toBeNull();
      await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      await waitUntil(async () =>
        (await t.db.query(`SELECT failing_since FROM webhook_endpoints WHERE id = $1`, [endpoint.id]))[0]
          .failing_since === null
          ? true
          : null,
      );
    });

    it('limits test deliveries to 10 per minute per account', async () => {
      const endpoint = await createEndpoint({ url: receiver.url(nextPath()), events: ['member.left'] }, admin);
      for (let i = 0; i < 10; i++) await admin.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      const res = await admin.agent.post(`${base()}/${endpoint.id}/test`);
      expect(res.status).toBe(429);
      expect(res.headers['retry-after']).toBeDefined();
    });

    it('deleting an endpoint drops its pending deliveries', async () => {
      const path = nextPath();
      const endpoint = await createEndpoint({ url: receiver.url(path), events: ['member.left'] });
      receiver.answer(path, 500);
      await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      const [d] = await waitUntil(async () => {
        const items = await deliveries(endpoint.id);
        return items[0]?.attempts === 1 ? items : null;
      });
      await owner.agent.delete(`${base()}/${endpoint.id}`).expect(204);
      expect(await t.db.query(`SELECT 1 FROM webhook_deliveries WHERE id = $1`, [d.id])).toHaveLength(0);
      await t.app.get(JobRunner).execute(await jobFor(d.id as string, 2));
      expect(receiver.at(path)).toHaveLength(1);
    });

    it('prunes deliveries older than 30 days', async () => {
      const endpoint = await createEndpoint({ url: receiver.url(nextPath()), events: ['member.left'] });
      await owner.agent.post(`${base()}/${endpoint.id}/test`).expect(202);
      await waitUntil(async () => ((await deliveries(endpoint.id))[0]?.status === 'succeeded' ? true : null));
      const scheduler = t.app.get(SchedulerService);
      const run = async (at: Date): Promise<void> => {
        const jobId = await scheduler.enqueue(PRUNE_DELIVERIES, at);
        await waitUntil(
          async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [jobId]))[0]?.status === 'completed',
        );
      };
      await run(new Date(t.clock.now().getTime() + 29 * DAY));
      expect(await deliveries(endpoint.id)).toHaveLength(1);
      await run(new Date(t.clock.now().getTime() + 31 * DAY));
      expect(await deliveries(endpoint.id)).toHaveLength(0);
    });
  });
});

describe('outbound webhooks in production mode', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ env: { NODE_ENV: 'production' } });
    receiver = new WebhookReceiver();
    await receiver.start();
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('refuses loopback (literal or resolved by DNS) and plain http, at creation and at every delivery', async () => {
    const sender = t.app.get(WebhookSender);
    expect(sender.allowLoopback).toBe(false);
    for (const url of [
      receiver.url('/prod'),
      `https://127.0.0.1:${receiver.port}/prod`,
      `https://localhost:${receiver.port}/prod`,
      `https://[::1]:${receiver.port}/prod`,
      `https://[::ffff:127.0.0.1]:${receiver.port}/prod`,
      'https://10.0.0.5/prod',
      'https://169.254.169.254/prod',
    ]) {
      await expect(sender.check(url)).rejects.toThrow(/non-public|https/);
      const result = await sender.send(url, { 'content-type': 'application/json' }, '{}');
      expect({ url, status: result.status, error: result.error }).toEqual({
        url,
        status: null,
        error: expect.stringMatching(/non-public|https/),
      });
    }
    expect(receiver.received).toHaveLength(0);
  });
});
