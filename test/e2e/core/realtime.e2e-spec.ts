import { Module } from '@nestjs/common';
import { type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import { IsInt, IsOptional, IsString, MaxLength, Min } from 'class-validator';
import type { Namespace } from 'socket.io';
import type { Socket } from 'socket.io-client';
import { HandshakeAuthenticator } from '@/core/realtime/handshake-auth';
import { Realtime, realtimeEvent, type RealtimeSocket } from '@/core/realtime/realtime.service';
import { RealtimeError } from '@/core/realtime/realtime-errors';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import type { SignedIn } from '../../support/auth';
import { member } from '../../support/exams';
import { accessCookie, call, connected, nextEvent, refused, socketTo } from '../../support/realtime';
import { adult, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { resendUntil } from '../../support/wait';

class EchoDto {
  @IsString()
  @MaxLength(20)
  text!: string;

  @IsOptional()
  @IsInt()
  @Min(0)
  n?: number;
}

class EmptyDto {}

/** A namespace served through the realtime core, as an area does it (organization required, takes writes). */
@WebSocketGateway({ namespace: '/probe-realtime' })
class ProbeGateway implements OnGatewayInit {
  constructor(private readonly realtime: Realtime) {}

  afterInit(nsp: Namespace): void {
    this.realtime.serve(nsp, {
      organization: 'required',
      writes: true,
      minorAccess: 'with_consent',
      events: {
        echo: realtimeEvent(EchoDto, (socket: RealtimeSocket, p) => ({
          text: p.text,
          user_id: socket.data.userId,
          organization_id: socket.data.organizationId,
          role: socket.data.role,
        })),
        fail: realtimeEvent(EmptyDto, () => {
          throw new RealtimeError('forbidden', 'Refused by the probe.');
        }),
      },
    });
  }
}

/** A read-only namespace where the organization is optional (as notifications, 13.4). */
@WebSocketGateway({ namespace: '/probe-optional' })
class ProbeOptionalGateway implements OnGatewayInit {
  constructor(private readonly realtime: Realtime) {}

  afterInit(nsp: Namespace): void {
    this.realtime.serve(nsp, {
      organization: 'optional',
      writes: false,
      events: {
        whoami: realtimeEvent(EmptyDto, (socket: RealtimeSocket) => ({ organization_id: socket.data.organizationId })),
      },
    });
  }
}

@Module({ providers: [ProbeGateway, ProbeOptionalGateway] })
class ProbeRealtimeModule {}

describe('Realtime core (Socket.IO at /api/v1/socket.io)', () => {
  let t: TestApp;
  let orgA: string;
  let orgB: string;
  let alice: SignedIn;
  let aliceCookie: string;
  const sockets: Socket[] = [];
  const track = (s: Socket): Socket => {
    sockets.push(s);
    return s;
  };

  beforeAll(async () => {
    t = await createTestApp({ imports: [ProbeRealtimeModule] });
    const owner = await adult(t);
    orgA = await createOrganization(t, owner, 'Realtime A');
    const ownerB = await adult(t);
    orgB = await createOrganization(t, ownerB, 'Realtime B');
    alice = await member(t, orgA, 'student');
    aliceCookie = await accessCookie(alice);
  });

  afterEach(() => {
    for (const s of sockets.splice(0)) s.disconnect();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('accepts the access_token cookie, scopes the socket to the organization and answers acknowledgements', async () => {
    const s = await connected(track(socketTo(t, '/probe-realtime', { cookie: aliceCookie, organizationId: orgA })));
    const ack = await call(s, 'echo', { text: 'hi' });
    expect(ack).toEqual({ ok: true, text: 'hi', user_id: alice.user.id, organization_id: orgA, role: 'student' });
  });

  it('refuses a handshake without credential with connect_error unauthorized', async () => {
    const r = await refused(socketTo(t, '/probe-realtime', { organizationId: orgA }));
    expect(r.message).toBe('unauthorized');
    expect(r.data).toEqual({ code: 'unauthorized', message: expect.any(String) });
    const bad = await refused(
      socketTo(t, '/probe-realtime', { cookie: 'access_token=forged.jwt.value', organizationId: orgA }),
    );
    expect(bad.message).toBe('unauthorized');
    const badToken = await refused(socketTo(t, '/probe-realtime', { token: 'svc_live_nope', organizationId: orgA }));
    expect(badToken.message).toBe('unauthorized');
  });

  it('refuses an organization the person is not in, a missing or malformed one, with not_found', async () => {
    expect((await refused(socketTo(t, '/probe-realtime', { cookie: aliceCookie, organizationId: orgB }))).message).toBe(
      'not_found',
    );
    expect((await refused(socketTo(t, '/probe-realtime', { cookie: aliceCookie }))).message).toBe('not_found');
    expect(
      (await refused(socketTo(t, '/probe-realtime', { cookie: aliceCookie, auth: { organization_id: 'x' } }))).message,
    ).toBe('not_found');
    expect(
      (await refused(socketTo(t, '/probe-realtime', { cookie: aliceCookie, auth: { organization_id: 42 } }))).message,
    ).toBe('not_found');
  });

  it('takes a personal token from auth.token or the Authorization header; a token of another organization is not_found', async () => {
    const both = await member(t, orgA, 'teacher');
    await t.app.get(OrganizationsService).addMember(orgB, both.user.id, 'student', null);
    const tokenA = await personalToken(t, both, orgA, 'write');
    const s = await connected(track(socketTo(t, '/probe-realtime', { token: tokenA, organizationId: orgA })));
    expect(await call(s, 'echo', { text: 'x' })).toMatchObject({ ok: true, user_id: both.user.id, role: 'teacher' });
    const h = await connected(
      track(socketTo(t, '/probe-realtime', { headers: { authorization: `Bearer ${tokenA}` }, organizationId: orgA })),
    );
    expect(await call(h, 'echo', { text: 'y' })).toMatchObject({ ok: true, organization_id: orgA });
    // The person belongs to B too, but this token acts in A only.
    const r = await refused(socketTo(t, '/probe-realtime', { token: tokenA, organizationId: orgB }));
    expect(r).toEqual({ message: 'not_found', data: { code: 'not_found', message: expect.any(String) } });
    // On the optional namespace, a token without organization_id is limited to its own.
    const o = await connected(track(socketTo(t, '/probe-optional', { token: tokenA })));
    expect(await call(o, 'whoami', {})).toEqual({ ok: true, organization_id: orgA });
    // A cookie session without organization_id has none there.
    const c = await connected(track(socketTo(t, '/probe-optional', { cookie: await accessCookie(both) })));
    expect(await call(c, 'whoami', {})).toEqual({ ok: true, organization_id: null });
  });

  it('refuses a read-only token where the namespace takes writes (credential_read_only), accepts it where it does not', async () => {
    const reader = await member(t, orgA, 'student');
    const token = await personalToken(t, reader, orgA, 'read');
    const r = await refused(socketTo(t, '/probe-realtime', { token, organizationId: orgA }));
    expect(r.message).toBe('credential_read_only');
    await connected(track(socketTo(t, '/probe-optional', { token, organizationId: orgA })));
  });

  it('refuses a suspended organization with organization_suspended', async () => {
    const owner = await adult(t);
    const orgS = await createOrganization(t, owner, 'Suspended');
    const cookie = await accessCookie(owner);
    await connected(track(socketTo(t, '/probe-realtime', { cookie, organizationId: orgS })));
    await t.app.get(OrganizationsService).setSuspended(orgS, true, 'test', owner.user.id, undefined);
    const r = await refused(socketTo(t, '/probe-realtime', { cookie, organizationId: orgS }));
    expect(r.message).toBe('organization_suspended');
  });

  it('answers unknown events and malformed payloads with a code (ack and error event), and keeps the socket', async () => {
    const s = await connected(track(socketTo(t, '/probe-realtime', { cookie: aliceCookie, organizationId: orgA })));
    const errorEvent = nextEvent(s, 'error');
    expect(await call(s, 'nope', {})).toEqual({
      ok: false,
      error: { code: 'unknown_event', message: expect.any(String) },
    });
    expect(await errorEvent).toMatchObject({ event: 'nope', code: 'unknown_event' });
    expect(await call(s, 'echo', { text: 5 })).toMatchObject({
      ok: false,
      error: {
        code: 'validation_error',
        details: expect.arrayContaining([{ field: 'text', message: 'text must be a string' }]),
      },
    });
    expect(await call(s, 'echo', { text: 'a', extra: 1 })).toMatchObject({
      ok: false,
      error: { code: 'validation_error' },
    });
    expect(await call(s, 'echo', 'text')).toMatchObject({ ok: false, error: { code: 'validation_error' } });
    expect(await call(s, 'echo', [1, 2])).toMatchObject({ ok: false, error: { code: 'validation_error' } });
    expect(await call(s, 'echo', null)).toMatchObject({ ok: false, error: { code: 'validation_error' } });
    expect(await call(s, 'echo', { text: 'a' }, { second: true })).toMatchObject({
      ok: false,
      error: { code: 'validation_error' },
    });
    expect(await call(s, 'fail', {})).toEqual({
      ok: false,
      error: { code: 'forbidden', message: 'Refused by the probe.' },
    });
    // Without an acknowledgement the error still arrives, as the error event.
    const viaEvent = nextEvent(s, 'error');
    s.emit('toString', {});
    expect(await viaEvent).toMatchObject({ event: 'toString', code: 'unknown_event' });
    expect(s.connected).toBe(true);
    expect(await call(s, 'echo', { text: 'still here' })).toMatchObject({ ok: true });
  });

  it('disconnects a socket sending more than 20 events in a second with too_many_requests', async () => {
    const s = await connected(track(socketTo(t, '/probe-realtime', { cookie: aliceCookie, organizationId: orgA })));
    const errors: { code: string }[] = [];
    s.on('error', (e: { code: string }) => errors.push(e));
    const gone = nextEvent<string>(s, 'disconnect');
    for (let i = 0; i < 20; i++) s.emit('echo', { text: `m${i}` });
    // The 20 first are fine: wait for one of them to be answered before the 21st.
    expect(await call(s, 'echo', { text: 'over' }).catch((e: Error) => e.message)).toMatchObject({
      ok: false,
      error: { code: 'too_many_requests' },
    });
    expect(await gone).toBe('io server disconnect');
    expect(errors.some((e) => e.code === 'too_many_requests')).toBe(true);
    // Another socket of the same person is unaffected.
    const other = await connected(track(socketTo(t, '/probe-realtime', { cookie: aliceCookie, organizationId: orgA })));
    expect(await call(other, 'echo', { text: 'ok' })).toMatchObject({ ok: true });
  });

  it('emits to user:<id> from the Realtime service, on every socket of the person', async () => {
    const s1 = await connected(track(socketTo(t, '/probe-realtime', { cookie: aliceCookie, organizationId: orgA })));
    const s2 = await connected(track(socketTo(t, '/probe-realtime', { cookie: aliceCookie, organizationId: orgA })));
    const p1 = nextEvent(s1, 'probe:hello');
    const p2 = nextEvent(s2, 'probe:hello');
    t.app.get(Realtime).emitToUser('/probe-realtime', alice.user.id, 'probe:hello', { n: 1 });
    expect(await p1).toEqual({ n: 1 });
    expect(await p2).toEqual({ n: 1 });
  });

  it('ends the connection with session_expired when the session is revoked or the access token expires', async () => {
    const bob = await member(t, orgA, 'student');
    const cookie = await accessCookie(bob);
    const s = await connected(track(socketTo(t, '/probe-realtime', { cookie, organizationId: orgA })));
    const expired = nextEvent(s, 'session_expired');
    const gone = nextEvent(s, 'disconnect');
    await bob.agent.post('/api/v1/auth/logout').expect((res) => expect([200, 204]).toContain(res.status));
    await t.app.get(Realtime).sweepCredentials('/probe-realtime');
    expect(await expired).toEqual({});
    expect(await gone).toBe('io server disconnect');

    const carol = await member(t, orgA, 'student');
    const carolCookie = await accessCookie(carol);
    const c = await connected(track(socketTo(t, '/probe-realtime', { cookie: carolCookie, organizationId: orgA })));
    const cExpired = nextEvent(c, 'session_expired');
    t.clock.advance(16 * 60_000);
    try {
      await t.app.get(Realtime).sweepCredentials('/probe-realtime');
      expect(await cExpired).toEqual({});
    } finally {
      t.clock.advance(-16 * 60_000);
    }
  });

  it('reaches a socket held by another instance through the Redis streams adapter', async () => {
    const other = await createTestApp({
      imports: [ProbeRealtimeModule],
      databaseName: t.dbName,
      suffix: t.suffix,
      // Instances of one deployment share BASE_URL (the issuer of access tokens).
      env: { BASE_URL: t.config.baseUrl },
    });
    try {
      const s = await connected(track(socketTo(t, '/probe-realtime', { cookie: aliceCookie, organizationId: orgA })));
      // The handshake on the second instance uses the same credential rules.
      const s2 = await connected(
        track(socketTo(other, '/probe-realtime', { cookie: aliceCookie, organizationId: orgA })),
      );
      expect(await call(s2, 'echo', { text: 'b' })).toMatchObject({ ok: true, user_id: alice.user.id });
      const got = nextEvent(s, 'probe:cross');
      const got2 = nextEvent(s2, 'probe:cross');
      // The second instance's stream reader may still be starting: the emit is repeated until it has arrived.
      const emit = (): void =>
        other.app.get(Realtime).emitToUser('/probe-realtime', alice.user.id, 'probe:cross', { from: 'other' });
      expect(await resendUntil(emit, got)).toEqual({ from: 'other' });
      expect(await got2).toEqual({ from: 'other' });
    } finally {
      for (const s of sockets.splice(0)) s.disconnect();
      await other.close();
    }
  });
});

describe('Realtime core from a process without the HTTP server (the worker)', () => {
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
  });

  it('emits through a detached server on the Redis streams adapter', async () => {
    t = await createTestApp({ imports: [ProbeRealtimeModule] });
    const owner = await adult(t);
    const org = await createOrganization(t, owner, 'Worker emits');
    const s = await connected(
      socketTo(t, '/probe-realtime', { cookie: await accessCookie(owner), organizationId: org }),
    );
    // What worker.ts builds: the same service, never attached to an HTTP server.
    const detached = new Realtime(t.config, t.clock, t.app.get(HandshakeAuthenticator));
    try {
      const got = nextEvent(s, 'probe:from-worker');
      // The detached server's connection may still be opening: the emit is repeated until it has arrived.
      const emit = (): void => detached.emitToUser('/probe-realtime', owner.user.id, 'probe:from-worker', { job: 1 });
      expect(await resendUntil(emit, got)).toEqual({ job: 1 });
    } finally {
      s.disconnect();
      await detached.onApplicationShutdown();
    }
  });
});

describe('Realtime core without Redis (embedded single process)', () => {
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
  });

  it('serves the namespace with the in-memory adapter', async () => {
    t = await createTestApp({ imports: [ProbeRealtimeModule], redis: false });
    const owner = await adult(t);
    const org = await createOrganization(t, owner, 'Embedded');
    const s = await connected(
      socketTo(t, '/probe-realtime', { cookie: await accessCookie(owner), organizationId: org }),
    );
    try {
      expect(await call(s, 'echo', { text: 'solo' })).toMatchObject({ ok: true, role: 'owner' });
      const got = nextEvent(s, 'probe:solo');
      t.app.get(Realtime).emitToUser('/probe-realtime', owner.user.id, 'probe:solo', {});
      expect(await got).toEqual({});
    } finally {
      s.disconnect();
    }
  });
});
