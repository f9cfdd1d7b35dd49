import { io, type Socket } from 'socket.io-client';
import { setCookies, type SignedIn } from './auth';
import type { TestApp } from './test-app';

export const REALTIME_PATH = '/api/v1/socket.io';

/** A fresh `access_token` cookie of this person (a refresh), as a Cookie header value. */
export async function accessCookie(s: SignedIn): Promise<string> {
  const res = await s.agent.post('/api/v1/auth/refresh').expect(200);
  const access = setCookies(res).get('access_token');
  if (!access) throw new Error('no access_token cookie on refresh');
  return `access_token=${access.value}`;
}

export interface ConnectOptions {
  cookie?: string;
  token?: string;
  organizationId?: string | null;
  headers?: Record<string, string>;
  /** Extra `auth` fields (malformed values). */
  auth?: Record<string, unknown>;
  reconnection?: boolean;
}

/** A socket.io-client socket on a namespace of the test app (websocket transport, not yet connected). */
export function socketTo(t: TestApp | string, namespace: string, o: ConnectOptions = {}): Socket {
  const base = typeof t === 'string' ? t : t.baseUrl;
  const auth: Record<string, unknown> = { ...(o.auth ?? {}) };
  if (o.organizationId !== undefined && o.organizationId !== null) auth.organization_id = o.organizationId;
  if (o.token) auth.token = o.token;
  return io(base + namespace, {
    path: REALTIME_PATH,
    transports: ['websocket'],
    autoConnect: false,
    reconnection: o.reconnection ?? false,
    forceNew: true,
    auth,
    extraHeaders: { ...(o.cookie ? { cookie: o.cookie } : {}), ...(o.headers ?? {}) },
  });
}

/** Connects and resolves once connected; rejects with the `connect_error` (message = code, data = {code, message}). */
export function connected(socket: Socket, timeoutMs = 5000): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('connect timeout')), timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('connect_error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.connect();
  });
}

/** The `connect_error` of a refused handshake. */
export async function refused(socket: Socket): Promise<{ message: string; data: unknown }> {
  try {
    await connected(socket);
  } catch (err) {
    const e = err as Error & { data?: unknown };
    return { message: e.message, data: e.data };
  } finally {
    socket.disconnect();
  }
  throw new Error('the handshake was accepted');
}

/** Emits with an acknowledgement and resolves with it. */
export function call<T = Record<string, unknown>>(socket: Socket, event: string, ...args: unknown[]): Promise<T> {
  return socket.timeout(5000).emitWithAck(event, ...args) as Promise<T>;
}

/** The next occurrence of a server event. */
export function nextEvent<T = Record<string, unknown>>(socket: Socket, event: string, timeoutMs = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.off(event, on);
      reject(new Error(`no ${event} within ${timeoutMs} ms`));
    }, timeoutMs);
    const on = (payload: T): void => {
      clearTimeout(timer);
      resolve(payload);
    };
    socket.once(event, on);
  });
}

/** Records every server event of a socket, in order. */
export function recorder(socket: Socket): { events: { event: string; payload: unknown }[] } {
  const log = { events: [] as { event: string; payload: unknown }[] };
  socket.onAny((event: string, payload: unknown) => log.events.push({ event, payload }));
  return log;
}

/** Every server event of a socket kept in order; `take` consumes the oldest unread occurrence, or waits for one. */
export class Inbox {
  private readonly seen: { event: string; payload: unknown }[] = [];
  private readonly waiting: { event: string; resolve: (p: unknown) => void }[] = [];

  constructor(socket: Socket) {
    socket.onAny((event: string, payload: unknown) => {
      const i = this.waiting.findIndex((w) => w.event === event);
      if (i >= 0) this.waiting.splice(i, 1)[0].resolve(payload);
      else this.seen.push({ event, payload });
    });
  }

  take<T = Record<string, unknown>>(event: string, timeoutMs = 5000): Promise<T> {
    const i = this.seen.findIndex((e) => e.event === event);
    if (i >= 0) return Promise.resolve(this.seen.splice(i, 1)[0].payload as T);
    return new Promise<T>((resolve, reject) => {
      const entry = { event, resolve: (p: unknown) => (clearTimeout(timer), resolve(p as T)) };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(entry), 1);
        reject(new Error(`no ${event} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiting.push(entry);
    });
  }
}
