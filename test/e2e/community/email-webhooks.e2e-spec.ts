import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { CryptoService } from '@/core/crypto/crypto.service';
import type { MailKind } from '@/core/mail/mail.jobs';
import { MailService } from '@/core/mail/mail.service';
import { defineMailTemplate } from '@/core/mail/mail-template';
import { SchedulerService } from '@/core/queue/scheduler.service';
import { PRUNE_EMAIL_WEBHOOK_IDS } from '@/modules/community/email-webhooks/testing';
import { signIn, type SignedIn } from '../../support/auth';
import { createTestApp, type TestApp } from '../../support/test-app';
import { waitUntil } from '../../support/wait';

const PATH = '/api/v1/webhooks/email';
const SUPPRESSIONS = '/api/v1/admin/email-suppressions';
const DAY = 86_400_000;

const secret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
const OLD_SECRET = secret();
const NEW_SECRET = secret();
const ADMIN_EMAIL = 'suppression-admin@ops.test';

const PROBE_MAIL = defineMailTemplate<{ n: number }>('probe.suppression', {
  es: ({ n }) => ({ subject: `Supresión ${n}`, heading: 'Prueba', paragraphs: [`Mensaje ${n}`] }),
  en: ({ n }) => ({ subject: `Suppression ${n}`, heading: 'Probe', paragraphs: [`Message ${n}`] }),
});

let idCounter = 0;
const nextId = (): string => `msg_${process.pid}_${++idCounter}`;

interface SendOptions {
  id?: string;
  /** Signing time in seconds (default: the Clock's now). */
  at?: number;
  key?: string;
  contentType?: string;
  /** Replace or drop signed headers. */
  headers?: Record<string, string | undefined>;
  ip?: string;
}

/**
 * Email-provider webhooks and the suppression list (extensions-v2 22): Standard Webhooks verification with the
 * library's own signer, the Resend events, replay refusal, the suppression list as every send sees it (real SMTP
 * sink), the admin routes and the pruning of event ids.
 */
describe('email-provider webhooks', () => {
  let t: TestApp;
  let admin: SignedIn;
  let mailN = 0;

  beforeAll(async () => {
    t = await createTestApp({
      env: { EMAIL_WEBHOOK_SECRET: `${OLD_SECRET},${NEW_SECRET}`, PLATFORM_ADMIN_EMAILS: ADMIN_EMAIL },
    });
    admin = await signIn(t, ADMIN_EMAIL);
  });
  afterAll(() => t.close());

  /** Posts `body` (a string is sent as is) signed with the package's signer, unless told otherwise. */
  function deliver(body: unknown, options: SendOptions = {}) {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const id = options.id ?? nextId();
    const at = options.at ?? t.clock.nowSeconds();
    const signed: Record<string, string | undefined> = {
      'webhook-id': id,
      'webhook-timestamp': String(at),
      'webhook-signature': new Webhook(options.key ?? NEW_SECRET).sign(id, new Date(at * 1000), raw),
      ...options.headers,
    };
    let req = t
      .client(options.ip)
      .post(PATH)
      .set('Content-Type', options.contentType ?? 'application/json');
    for (const [name, value] of Object.entries(signed)) if (value !== undefined) req = req.set(name, value);
    return req.send(raw);
  }

  const bounced = (to: string | string[], type?: unknown) => ({
    type: 'email.bounced',
    created_at: new Date().toISOString(),
    data: { email_id: 'em_1', to, ...(type === undefined ? {} : { bounce: { type, subType: 'General' } }) },
  });
  const complained = (to: string | string[]) => ({ type: 'email.complained', data: { to } });

  async function recorded(id: string): Promise<{ event_type: string; outcome: string } | undefined> {
    return (await t.db.query(`SELECT event_type, outcome FROM email_webhook_events WHERE webhook_id = $1`, [id]))[0];
  }

  async function entryOf(address: string): Promise<({ id: string } & Record<string, unknown>) | undefined> {
    const hash = t.app.get(CryptoService).keyedHash('email-suppression', address.trim().toLowerCase());
    return (await t.db.query(`SELECT * FROM email_suppressions WHERE address_hash = $1`, [hash]))[0];
  }

  async function send(to: string, kind: MailKind): Promise<{ id: string; n: number }> {
    const n = ++mailN;
    const id = await t.app.get(MailService).send(PROBE_MAIL, { n }, { to, locale: 'en', organizationId: null, kind });
    return { id, n };
  }

  async function jobDone(id: string): Promise<void> {
    await waitUntil(
      async () => (await t.db.query(`SELECT status FROM jobs WHERE id = $1`, [id]))[0]?.status === 'completed',
      { what: `job ${id}` },
    );
  }

  /** Sends messages of these kinds, then a control message, and answers which subjects reached the address. */
  async function delivered(to: string, kinds: MailKind[]): Promise<string[]> {
    const before = t.mail.count();
    const jobs = [];
    for (const kind of kinds) jobs.push(await send(to, kind));
    for (const job of jobs) await jobDone(job.id);
    const control = t.nextEmail('control');
    const last = await send(control, 'transactional');
    await t.mail.waitForTo(control, { after: before });
    await jobDone(last.id);
    return t.mail.messages
      .slice(before)
      .filter((m) => m.envelopeTo.includes(to.toLowerCase()))
      .map((m) => m.subject);
  }

  describe('verification (Standard Webhooks)', () => {
    it('processes an event signed by the library with a configured secret, as raw bytes of any content type', async () => {
      const id = nextId();
      // Pretty-printed with odd spacing: a re-serialized body would not verify.
      const raw = `{\n  "type" :  "email.delivered",\n  "data": {"to": ["someone@example.org"]}\n}`;
      const res = await deliver(raw, { id, contentType: 'text/plain' });
      expect([res.status, res.body]).toEqual([200, { status: 'ignored' }]);
      expect(await recorded(id)).toEqual({ event_type: 'email.delivered', outcome: 'ignored' });
    });

    it('accepts every secret of a rotation', async () => {
      const res = await deliver({ type: 'email.opened', data: { to: 'a@example.org' } }, { key: OLD_SECRET });
      expect([res.status, res.body]).toEqual([200, { status: 'ignored' }]);
    });

    it('refuses a wrong signature, another secret and a body changed after signing with 401, recording nothing', async () => {
      const body = bounced('victim@example.org');
      const cases = [
        deliver(body, { key: secret() }),
        deliver(body, { headers: { 'webhook-signature': `v1,${randomBytes(32).toString('base64')}` } }),
        deliver(body, { headers: { 'webhook-signature': 'v2,abc' } }),
        deliver(body, { headers: { 'webhook-id': 'another-id' } }),
      ];
      for (const res of await Promise.all(cases)) {
        expect([res.status, res.body.error.code]).toEqual([401, 'invalid_signature']);
      }
      const id = nextId();
      const raw = JSON.stringify(body);
      const at = t.clock.nowSeconds();
      const signature = new Webhook(NEW_SECRET).sign(id, new Date(at * 1000), raw);
      const tampered = await t
        .client()
        .post(PATH)
        .set('Content-Type', 'application/json')
        .set({ 'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': signature })
        .send(raw.replace('victim', 'other'));
      expect([tampered.status, tampered.body.error.code]).toEqual([401, 'invalid_signature']);
      expect(await recorded(id)).toBeUndefined();
      expect(await entryOf('victim@example.org')).toBeUndefined();
    });

    it('refuses missing or malformed headers with 401', async () => {
      const body = { type: 'email.sent' };
      for (const headers of [
        { 'webhook-id': undefined },
        { 'webhook-timestamp': undefined },
        { 'webhook-signature': undefined },
        { 'webhook-timestamp': 'yesterday' },
        { 'webhook-id': 'x'.repeat(257) },
      ]) {
        const res = await deliver(body, { headers });
        expect([res.status, res.body.error.code]).toEqual([401, 'invalid_signature']);
      }
    });

    it('keeps the timestamp within 300 seconds of the Clock, either way', async () => {
      t.clock.advance(3 * 3_600_000); // the wall clock is now three hours behind the service's time
      // Still for the whole test: a running clock crossing a second boundary moved the window by one (flaky at +-301).
      const still = t.clock.now().getTime();
      const frozen = jest.spyOn(t.clock, 'now').mockImplementation(() => new Date(still));
      try {
        const now = t.clock.nowSeconds();
        for (const at of [now - 300, now + 300]) {
          const res = await deliver({ type: 'email.sent' }, { at });
          expect([at - now, res.status]).toEqual([at - now, 200]);
        }
        for (const at of [now - 301, now + 301, Math.floor(Date.now() / 1000)]) {
          const id = nextId();
          const res = await deliver(bounced('late@example.org'), { at, id });
          expect([at - now, res.status, res.body.error?.code]).toEqual([at - now, 401, 'invalid_signature']);
          expect(await recorded(id)).toBeUndefined();
        }
        expect(await entryOf('late@example.org')).toBeUndefined();
      } finally {
        frozen.mockRestore();
        t.clock.reset();
      }
    });

    it('answers 422 for a body that is not JSON or has no string type, without recording the id', async () => {
      for (const raw of ['not json', '', '[1,2]', '{"data":{}}', '{"type":42}']) {
        const id = nextId();
        const res = await deliver(raw, { id });
        expect([raw, res.status, res.body.error?.code]).toEqual([raw, 422, 'validation_error']);
        expect(await recorded(id)).toBeUndefined();
        // The id was not consumed: the provider's corrected retry with it is applied.
        const retry = await deliver({ type: 'email.sent' }, { id });
        expect(retry.body).toEqual({ status: 'ignored' });
      }
    });

    it('reads NUL characters in a signed body as data: stripped from the stored type, never an address', async () => {
      const id = nextId();
      const res = await deliver('{"type":"email.sent\\u0000","data":{}}', { id });
      expect([res.status, res.body]).toEqual([200, { status: 'ignored' }]);
      expect(await recorded(id)).toEqual({ event_type: 'email.sent', outcome: 'ignored' });
      const complaint = await deliver({ type: 'email.complained', data: { to: ['x\u0000@example.org'] } });
      expect(complaint.body).toEqual({ status: 'ignored' });
    });

    it('takes a body of exactly 256 KiB and refuses one byte more with 413', async () => {
      const frame = JSON.stringify({ type: 'email.sent', pad: '' });
      const exact = frame.replace('"pad":""', `"pad":"${'x'.repeat(256 * 1024 - frame.length)}"`);
      expect(Buffer.byteLength(exact)).toBe(256 * 1024);
      const ok = await deliver(exact);
      expect([ok.status, ok.body]).toEqual([200, { status: 'ignored' }]);
      const over = await deliver(exact.replace('"pad":"', '"pad":"x'));
      expect([over.status, over.body.error.code]).toEqual([413, 'payload_too_large']);
    });
  });

  describe('events and replays', () => {
    it('a hard bounce suppresses each recipient; only a keyed hash and a masked address are stored', async () => {
      const [a, b] = [t.nextEmail('Hard'), t.nextEmail('hard')];
      const id = nextId();
      const res = await deliver(bounced([a, `Someone <${b}>`], 'Permanent'), { id });
      expect([res.status, res.body]).toEqual([200, { status: 'processed' }]);
      expect(await recorded(id)).toEqual({ event_type: 'email.bounced', outcome: 'processed' });
      for (const address of [a, b]) {
        const entry = await entryOf(address);
        expect(entry).toMatchObject({ reason: 'hard_bounce', source_event_id: id });
        expect(entry!.email_masked).toBe(`${address[0].toLowerCase()}***@example.test`);
        expect(JSON.stringify(entry).toLowerCase()).not.toContain(address.toLowerCase().split('@')[0]);
      }
    });

    it.each([[undefined], ['hard'], ['HARD'], ['permanent']])('a bounce of type %p is hard', async (type) => {
      const address = t.nextEmail('bounce');
      const res = await deliver(bounced(address, type));
      expect(res.body).toEqual({ status: 'processed' });
      expect(await entryOf(address)).toMatchObject({ reason: 'hard_bounce' });
    });

    it.each([['Transient'], ['soft'], ['Undetermined'], ['Suppressed']])(
      'a %s bounce changes nothing and is answered ignored (its id recorded)',
      async (type) => {
        const address = t.nextEmail('soft');
        const id = nextId();
        const res = await deliver(bounced(address, type), { id });
        expect([res.status, res.body]).toEqual([200, { status: 'ignored' }]);
        expect(await recorded(id)).toEqual({ event_type: 'email.bounced', outcome: 'ignored' });
        expect(await entryOf(address)).toBeUndefined();
      },
    );

    it('a complaint suppresses as a complaint; a later hard bounce strengthens it, a complaint never weakens it', async () => {
      const address = t.nextEmail('complains');
      expect((await deliver(complained(address))).body).toEqual({ status: 'processed' });
      const first = await entryOf(address);
      expect(first).toMatchObject({ reason: 'complaint' });
      const bounceId = nextId();
      await deliver(bounced(address), { id: bounceId });
      expect(await entryOf(address)).toMatchObject({ id: first!.id, reason: 'hard_bounce', source_event_id: bounceId });
      await deliver(complained(address));
      expect(await entryOf(address)).toMatchObject({ id: first!.id, reason: 'hard_bounce', source_event_id: bounceId });
    });

    it('other event types change nothing', async () => {
      const address = t.nextEmail('delivered');
      for (const type of ['email.sent', 'email.delivered', 'email.delivery_delayed', 'email.clicked', 'contact.x']) {
        const res = await deliver({ type, data: { to: address } });
        expect([type, res.body]).toEqual([type, { status: 'ignored' }]);
      }
      expect(await entryOf(address)).toBeUndefined();
    });

    it('a replay answers duplicate and applies nothing, whatever its body', async () => {
      const address = t.nextEmail('replayed');
      const id = nextId();
      expect((await deliver(bounced(address), { id })).body).toEqual({ status: 'processed' });
      // An admin lifts the suppression; the same event delivered again must not bring it back.
      const entry = await entryOf(address);
      await admin.agent.delete(`${SUPPRESSIONS}/${entry!.id}`).expect(204);
      const replay = await deliver(bounced(address), { id });
      expect([replay.status, replay.body]).toEqual([200, { status: 'duplicate' }]);
      const other = t.nextEmail('replayed-other');
      const changed = await deliver(complained(other), { id });
      expect(changed.body).toEqual({ status: 'duplicate' });
      expect(await entryOf(address)).toBeUndefined();
      expect(await entryOf(other)).toBeUndefined();
      // Ignored events are recorded too.
      const ignoredId = nextId();
      expect((await deliver({ type: 'email.sent' }, { id: ignoredId })).body).toEqual({ status: 'ignored' });
      expect((await deliver({ type: 'email.sent' }, { id: ignoredId })).body).toEqual({ status: 'duplicate' });
    });

    it('two simultaneous deliveries of one event: one applies it, the other is a duplicate', async () => {
      const address = t.nextEmail('parallel');
      const id = nextId();
      const answers = await Promise.all([1, 2, 3].map(() => deliver(complained(address), { id })));
      expect(answers.map((r) => r.body.status).sort()).toEqual(['duplicate', 'duplicate', 'processed']);
      expect(
        await t.db.query(`SELECT count(*)::int AS n FROM email_suppressions WHERE source_event_id = $1`, [id]),
      ).toEqual([{ n: 1 }]);
    });

    it('is limited to 600 per minute per client address', async () => {
      const ip = t.nextIp();
      for (let sent = 0; sent < 600; sent += 50) {
        const batch = await Promise.all(
          Array.from({ length: 50 }, () => t.client(ip).post(PATH).set('Content-Type', 'application/json').send('{}')),
        );
        for (const res of batch) expect(res.status).toBe(401);
      }
      const limited = await deliver({ type: 'email.sent' }, { ip });
      expect([limited.status, limited.body.error.code]).toEqual([429, 'too_many_requests']);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect((await deliver({ type: 'email.sent' })).status).toBe(200);
    });

    it('prunes event ids after 7 days (schedule email_webhooks.prune_ids)', async () => {
      const old = nextId();
      await deliver({ type: 'email.sent' }, { id: old });
      t.clock.advance(7 * DAY - 60_000);
      try {
        const recent = nextId();
        await deliver({ type: 'email.sent' }, { id: recent });
        t.clock.advance(2 * 60_000); // `old` is now 7 days and a minute old, `recent` two minutes
        const job = await t.app.get(SchedulerService).enqueue(PRUNE_EMAIL_WEBHOOK_IDS, t.clock.now());
        await jobDone(job);
        expect(await recorded(old)).toBeUndefined();
        expect(await recorded(recent)).toEqual({ event_type: 'email.sent', outcome: 'ignored' });
      } finally {
        t.clock.reset();
      }
    });
  });

  describe('the suppression list as every send sees it (through the SMTP sink)', () => {
    it('a hard bounce stops every kind of message, whatever the case of the address', async () => {
      const address = t.nextEmail('Bounced');
      await deliver(bounced(address.toUpperCase()));
      expect(await delivered(address, ['transactional', 'notification', 'announcement'])).toEqual([]);
      expect(await delivered(address.toLowerCase(), ['transactional'])).toEqual([]);
    });

    it('a complaint stops notifications and announcements; transactional messages still arrive', async () => {
      const address = t.nextEmail('complained');
      await deliver(complained(address));
      const subjects = await delivered(address, ['notification', 'announcement', 'transactional']);
      expect(subjects).toEqual([`Suppression ${mailN - 1}`]);
    });

    it('a soft bounce stops nothing', async () => {
      const address = t.nextEmail('softened');
      await deliver(bounced(address, 'Transient'));
      expect(await delivered(address, ['notification', 'announcement', 'transactional'])).toHaveLength(3);
    });

    it('a stopped message completes its job and leaves no payload behind', async () => {
      const address = t.nextEmail('stopped');
      await deliver(bounced(address));
      const { id } = await send(address, 'notification');
      await jobDone(id);
      expect((await t.db.query(`SELECT payload, last_error FROM jobs WHERE id = $1`, [id]))[0]).toEqual({
        payload: null,
        last_error: null,
      });
    });
  });

  describe('admin routes (platform_admin)', () => {
    it('lists newest first, by reason, and finds one exact address by its keyed hash', async () => {
      const [hard, complaint] = [t.nextEmail('listed-hard'), t.nextEmail('listed-complaint')];
      const hardId = nextId();
      // The Clock stands still in tests: each entry a second after the last, so that "newest" has a meaning.
      t.clock.advance(1000);
      await deliver(bounced(hard), { id: hardId });
      t.clock.advance(1000);
      await deliver(complained(complaint));
      const page = await admin.agent.get(SUPPRESSIONS).query({ limit: 2 }).expect(200);
      expect(page.body).toMatchObject({ limit: 2, offset: 0 });
      expect(page.body.total).toBeGreaterThanOrEqual(2);
      expect(page.body.items.map((e: { email_masked: string }) => e.email_masked)).toEqual([
        `l***@example.test`,
        `l***@example.test`,
      ]);
      const found = await admin.agent
        .get(SUPPRESSIONS)
        .query({ email: ` ${hard.toUpperCase()} ` })
        .expect(200);
      expect(found.body).toEqual({
        items: [
          {
            id: expect.any(String),
            email_masked: 'l***@example.test',
            reason: 'hard_bounce',
            source_event_id: hardId,
            created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          },
        ],
        total: 1,
        limit: 50,
        offset: 0,
      });
      const byReason = await admin.agent
        .get(SUPPRESSIONS)
        .query({ email: complaint, reason: 'hard_bounce' })
        .expect(200);
      expect(byReason.body.total).toBe(0);
      const complaints = await admin.agent.get(SUPPRESSIONS).query({ reason: 'complaint', limit: 200 }).expect(200);
      expect(complaints.body.items.every((e: { reason: string }) => e.reason === 'complaint')).toBe(true);
      expect(
        (
          await admin.agent
            .get(SUPPRESSIONS)
            .query({ email: t.nextEmail('never') })
            .expect(200)
        ).body.total,
      ).toBe(0);
    });

    it('adds a manual entry (201), answers 200 when suppressed already, and turns a complaint into manual', async () => {
      const address = t.nextEmail('manual');
      const created = await admin.agent.post(SUPPRESSIONS).send({ email: address, reason: 'manual' }).expect(201);
      expect(created.body).toMatchObject({
        reason: 'manual',
        source_event_id: null,
        email_masked: 'm***@example.test',
      });
      const again = await admin.agent.post(SUPPRESSIONS).send({ email: address.toUpperCase(), reason: 'manual' });
      expect([again.status, again.body]).toEqual([200, created.body]);
      expect(await delivered(address, ['transactional'])).toEqual([]);

      const complainer = t.nextEmail('complainer');
      await deliver(complained(complainer));
      const upgraded = await admin.agent.post(SUPPRESSIONS).send({ email: complainer, reason: 'manual' });
      expect([upgraded.status, upgraded.body.reason]).toEqual([200, 'manual']);
      expect(await delivered(complainer, ['transactional'])).toEqual([]);
    });

    it('refuses bad input with 422 and changes nothing', async () => {
      const address = t.nextEmail('bad-input');
      for (const body of [
        { email: address, reason: 'hard_bounce' },
        { email: address },
        { email: 'not-an-address', reason: 'manual' },
        { email: `${'a'.repeat(250)}@example.org`, reason: 'manual' },
        { email: address, reason: 'manual', extra: 1 },
      ]) {
        const res = await admin.agent.post(SUPPRESSIONS).send(body);
        expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      }
      expect(await entryOf(address)).toBeUndefined();
      for (const query of [{ reason: 'bounced' }, { email: 'x' }, { limit: 201 }, { offset: -1 }]) {
        const res = await admin.agent.get(SUPPRESSIONS).query(query);
        expect([res.status, res.body.error.code]).toEqual([422, 'validation_error']);
      }
    });

    it('lifts a suppression (204, audited); mail flows again; a second delete and a malformed id are 404', async () => {
      const address = t.nextEmail('lifted');
      await deliver(bounced(address));
      const entry = await entryOf(address);
      await admin.agent.delete(`${SUPPRESSIONS}/${entry!.id}`).expect(204);
      const [audit] = await t.db.query(
        `SELECT actor_id, organization_id, target_type, metadata FROM audit_log
         WHERE action = 'email_suppression.removed' AND target_id = $1`,
        [entry!.id],
      );
      expect(audit).toEqual({
        actor_id: admin.user.id,
        organization_id: null,
        target_type: 'email_suppression',
        metadata: { reason: 'hard_bounce' },
      });
      expect(await delivered(address, ['notification'])).toHaveLength(1);
      const again = await admin.agent.delete(`${SUPPRESSIONS}/${entry!.id}`);
      expect([again.status, again.body.error.code]).toEqual([404, 'not_found']);
      const malformed = await admin.agent.delete(`${SUPPRESSIONS}/not-a-uuid`);
      expect([malformed.status, malformed.body.error.code]).toEqual([404, 'not_found']);
    });

    it('is for platform admins only', async () => {
      const someone = await signIn(t);
      const address = t.nextEmail('guarded');
      await deliver(bounced(address));
      const entry = await entryOf(address);
      for (const res of [
        await someone.agent.get(SUPPRESSIONS),
        await someone.agent.post(SUPPRESSIONS).send({ email: t.nextEmail(), reason: 'manual' }),
        await someone.agent.delete(`${SUPPRESSIONS}/${entry!.id}`),
      ]) {
        expect([res.status, res.body.error.code]).toEqual([403, 'forbidden']);
      }
      const anonymous = await t.client().get(SUPPRESSIONS);
      expect([anonymous.status, anonymous.body.error.code]).toEqual([401, 'unauthorized']);
      expect(await entryOf(address)).toBeDefined();
    });
  });
});

describe('email-provider webhooks without a secret', () => {
  let t: TestApp;
  beforeAll(async () => (t = await createTestApp()));
  afterAll(() => t.close());

  it('answer 404 feature_disabled, even to a signed request', async () => {
    const raw = JSON.stringify({ type: 'email.complained', data: { to: 'x@example.org' } });
    const at = t.clock.nowSeconds();
    const res = await t
      .client()
      .post(PATH)
      .set('Content-Type', 'application/json')
      .set({
        'webhook-id': 'msg_disabled',
        'webhook-timestamp': String(at),
        'webhook-signature': new Webhook(secret()).sign('msg_disabled', new Date(at * 1000), raw),
      })
      .send(raw);
    expect([res.status, res.body.error.code]).toEqual([404, 'feature_disabled']);
    expect(await t.db.query(`SELECT 1 FROM email_webhook_events`)).toEqual([]);
  });
});
