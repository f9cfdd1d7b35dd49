import { Inject, Injectable, Logger, type OnApplicationShutdown, type Type } from '@nestjs/common';
import { createAdapter } from '@socket.io/redis-streams-adapter';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import Redis from 'ioredis';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { Server, type DefaultEventsMap, type Namespace, type Socket } from 'socket.io';
import { PacketType } from 'socket.io-parser';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { Clock } from '@/core/clock/clock';
import { flattenValidationErrors } from '@/core/http/validation';
import { HandshakeAuthenticator, type HandshakeRules, type SocketIdentity } from './handshake-auth';
import { REALTIME_EVENTS_PER_SECOND, REALTIME_RECHECK_MS } from './realtime.constants';
import { type RealtimeErrorBody, RealtimeError, realtimeErrorBody } from './realtime-errors';

/** What every socket of a served namespace carries in `socket.data` (restored by connection state recovery). */
export interface RealtimeSocketData {
  userId: string;
  /** The organization of the handshake, or null (a browser session on a namespace where it is optional). */
  organizationId: string | null;
  role: string | null;
  credentialKind: string;
  minor: boolean;
}

export type RealtimeSocket = Socket<DefaultEventsMap, DefaultEventsMap, DefaultEventsMap, RealtimeSocketData>;

type HandlerResult = Promise<Record<string, unknown> | void> | Record<string, unknown> | void;

/** One client event: its payload DTO (class-validator) and what it does; the result goes into `{ok: true, ...}`. */
export interface RealtimeEventHandler {
  readonly dto: Type<object>;
  handle(socket: RealtimeSocket, payload: object): HandlerResult;
}

/** A client event whose payload is validated as `dto` before `handle` sees it. */
export function realtimeEvent<T extends object>(
  dto: Type<T>,
  handle: (socket: RealtimeSocket, payload: T) => HandlerResult,
): RealtimeEventHandler {
  return { dto, handle: (socket, payload) => handle(socket, payload as T) };
}

/** How an area serves a namespace through the realtime core. */
export interface RealtimeNamespaceDefinition extends HandshakeRules {
  /** Client events by name; anything else answers `unknown_event`. A namespace without client events gives `{}`. */
  readonly events: Readonly<Record<string, RealtimeEventHandler>>;
  /** After the handshake, once the socket joined `user:<id>`. */
  onConnection?(socket: RealtimeSocket): Promise<void> | void;
  onDisconnect?(socket: RealtimeSocket, reason: string): Promise<void> | void;
  /** Client events per second per socket (default 20, 8.3). */
  readonly eventsPerSecond?: number;
}

/**
 * Writes an event straight to the socket's connection, before a disconnect. `socket.emit` goes through the adapter
 * when connection state recovery is on (to number the packet), which the Redis streams adapter does after a round
 * trip: a disconnect right after it would overtake the event. A last word needs no recovery.
 */
function sendNow(socket: Socket, event: string, payload: unknown): void {
  (socket as unknown as { packet(packet: { type: number; data: unknown[] }): void }).packet({
    type: PacketType.EVENT,
    data: [event, payload],
  });
}

/**
 * The streams adapter subscribes on a duplicate of the connection it is given and leaves the promise of SUBSCRIBE
 * unhandled: a shutdown before Redis confirmed the subscription (an instance stopped right after it started) turns
 * it into an unhandled rejection, which ends a Node process. The duplicates of this connection hand such failures
 * to `onFailure` instead; the subscription itself is unchanged. Each duplicate is added to `copies`, so that a
 * shutdown can end the ones the adapter would only end after its next blocking read.
 */
export function withHandledSubscriptions(redis: Redis, onFailure: (err: Error) => void, copies: Set<Redis>): Redis {
  const duplicate = redis.duplicate.bind(redis);
  redis.duplicate = (override) => {
    const copy = duplicate(override);
    copies.add(copy);
    const subscribe = copy.subscribe.bind(copy) as (...args: unknown[]) => Promise<unknown>;
    (copy as { subscribe: unknown }).subscribe = (...args: unknown[]) => {
      const pending = subscribe(...args);
      pending.catch(onFailure);
      return pending;
    };
    return copy;
  };
  return redis;
}

/** The room every socket of a person joins in each namespace. */
export const userRoom = (userId: string): string => `user:${userId}`;

/**
 * The realtime core: serves Socket.IO namespaces (handshake authentication, per-socket rate limit, payload
 * validation, acknowledgements and error events) and emits to rooms from anywhere. In an API process it uses the
 * server the Nest adapter created; in a process without HTTP (the worker) it emits through a detached server on
 * the Redis streams adapter, which reaches the sockets held by every API instance.
 */
@Injectable()
export class Realtime implements OnApplicationShutdown {
  private readonly logger = new Logger('Realtime');
  private server: Server | null = null;
  private emitter: Server | null = null;
  private redis: Redis | null = null;
  private readonly redisCopies = new Set<Redis>();
  private readonly identities = new WeakMap<Socket, SocketIdentity>();
  private readonly closing = new WeakSet<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly served = new Map<string, { nsp: Namespace; def: RealtimeNamespaceDefinition }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly handshake: HandshakeAuthenticator,
  ) {}

  /** Socket.IO server options shared by the HTTP server and the detached emitter. */
  serverOptions(): Partial<import('socket.io').ServerOptions> {
    const adapter = this.adapterFactory();
    return {
      serveClient: false,
      cors: { origin: [...this.config.corsOrigins], credentials: true },
      connectionStateRecovery: {
        maxDisconnectionDuration: this.config.duels.reconnectWindowMs,
        skipMiddlewares: false,
      },
      ...(adapter ? { adapter } : {}),
    };
  }

  /** Called by the Nest adapter once it created the server on the HTTP server. */
  attach(server: Server): void {
    this.server = server;
  }

  /** The served namespace of this process (null in a process without the HTTP server, or before init). */
  namespace(name: string): Namespace | null {
    return this.server?.of(name) ?? null;
  }

  /**
   * Whether an emit to the rooms that `match` selects could reach a socket: always with Redis (another instance may
   * hold it); without Redis (one process) only when this process has such a room. Lets an area skip the queries
   * that prepare an emit nobody would receive.
   */
  mayReach(namespace: string, match: (room: string) => boolean): boolean {
    if (this.config.redis.url) return true;
    const rooms = this.server?.of(namespace).adapter.rooms;
    if (!rooms) return false;
    for (const room of rooms.keys()) if (match(room)) return true;
    return false;
  }

  /** Emits to a room of a namespace on every instance (through the adapter). */
  emit(namespace: string, room: string | string[], event: string, payload: unknown): void {
    const io = this.server ?? this.detachedEmitter();
    if (!io) {
      this.logger.debug({ namespace, event }, 'No realtime server in this process; event dropped');
      return;
    }
    io.of(namespace).to(room).emit(event, payload);
  }

  /** Emits to every socket of a person in a namespace (`user:<id>`), on every instance. */
  emitToUser(namespace: string, userId: string, event: string, payload: unknown): void {
    this.emit(namespace, userRoom(userId), event, payload);
  }

  /**
   * Serves a namespace the Nest adapter created (call from the gateway's `afterInit`): handshake authentication by
   * `def`'s rules, `user:<id>` room, client events through `def.events`, credential expiry and revocation.
   */
  serve(nsp: Namespace, def: RealtimeNamespaceDefinition): void {
    this.served.set(nsp.name, { nsp, def });
    nsp.use((socket, next) => {
      this.handshake
        .authenticate({ auth: socket.handshake.auth ?? {}, headers: socket.handshake.headers }, def)
        .then((identity) => {
          this.identities.set(socket, identity);
          const data: RealtimeSocketData = {
            userId: identity.credential.userId,
            organizationId: identity.membership?.organizationId ?? null,
            role: identity.membership?.role ?? null,
            credentialKind: identity.credential.kind,
            minor: identity.credential.minor,
          };
          socket.data = data;
          next();
        })
        .catch((err: unknown) => {
          const body = realtimeErrorBody(err);
          if (!body) this.logger.error({ err }, 'Handshake failed');
          const refusal = new Error(body?.code ?? 'internal_error') as Error & { data: RealtimeErrorBody };
          refusal.data = body ?? { code: 'internal_error', message: 'Internal error.' };
          next(refusal);
        });
    });
    const limiter = new RateLimiterMemory({ points: def.eventsPerSecond ?? REALTIME_EVENTS_PER_SECOND, duration: 1 });
    nsp.on('connection', (raw: Socket) => {
      const socket = raw as RealtimeSocket;
      void socket.join(userRoom(socket.data.userId));
      this.watchExpiry(socket);
      socket.onAny((event: string, ...args: unknown[]) => void this.dispatch(socket, def, limiter, event, args));
      socket.on('disconnect', (reason) => {
        void limiter.delete(socket.id).catch(() => undefined);
        if (def.onDisconnect) {
          Promise.resolve(def.onDisconnect(socket, reason)).catch((err: unknown) =>
            this.logger.error({ err, namespace: nsp.name }, 'Disconnect handler failed'),
          );
        }
      });
      if (def.onConnection) {
        Promise.resolve(def.onConnection(socket)).catch((err: unknown) =>
          this.logger.error({ err, namespace: nsp.name }, 'Connection handler failed'),
        );
      }
    });
    const sweep = setInterval(() => void this.sweepCredentials(nsp.name), REALTIME_RECHECK_MS);
    sweep.unref();
    this.timers.add(sweep);
  }

  /**
   * Checks every local socket of a namespace (or of all) again: an expired access token or a revoked credential
   * gets `session_expired` and is disconnected. Runs every 20 s; tests call it after moving the clock.
   */
  async sweepCredentials(namespace?: string): Promise<void> {
    const now = this.clock.nowMs();
    for (const { nsp } of this.served.values()) {
      if (namespace && nsp.name !== namespace) continue;
      for (const socket of nsp.sockets.values()) {
        const identity = this.identities.get(socket);
        if (!identity) continue;
        const valid =
          (identity.expiresAt === null || identity.expiresAt > now) &&
          (await this.handshake.stillValid(identity).catch((err: unknown) => {
            this.logger.warn({ err }, 'Credential re-check failed; kept until the next sweep');
            return true;
          }));
        if (!valid) this.endSession(socket);
      }
    }
  }

  private endSession(socket: Socket): void {
    sendNow(socket, 'session_expired', {});
    socket.disconnect(true);
  }

  private watchExpiry(socket: Socket): void {
    const identity = this.identities.get(socket);
    if (identity?.expiresAt === null || identity?.expiresAt === undefined) return;
    // Timers cannot hold more than ~24.8 days; the sweep covers anything further away.
    const delay = Math.min(identity.expiresAt - this.clock.nowMs(), 2 ** 31 - 1);
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (socket.connected && identity.expiresAt !== null && identity.expiresAt <= this.clock.nowMs()) {
          this.endSession(socket);
        }
      },
      Math.max(0, delay),
    );
    timer.unref();
    this.timers.add(timer);
    socket.once('disconnect', () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    });
  }

  private async dispatch(
    socket: RealtimeSocket,
    def: RealtimeNamespaceDefinition,
    limiter: RateLimiterMemory,
    event: string,
    args: unknown[],
  ): Promise<void> {
    const ack = typeof args[args.length - 1] === 'function' ? (args.pop() as (answer: unknown) => void) : null;
    if (this.closing.has(socket)) return;
    try {
      await limiter.consume(socket.id);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        if (this.closing.has(socket)) return;
        this.closing.add(socket);
        const body = { code: 'too_many_requests', message: 'Too many events on this connection; it is closed.' };
        ack?.({ ok: false, error: body });
        sendNow(socket, 'error', { event, ...body });
        // The flood's connection is closed, not just the namespace.
        socket.disconnect(true);
        return;
      }
      throw rejection;
    }
    try {
      const handler = Object.prototype.hasOwnProperty.call(def.events, event) ? def.events[event] : undefined;
      if (!handler) throw new RealtimeError('unknown_event', `No client event "${event}" in this namespace.`);
      const payload = await this.validPayload(handler.dto, args);
      const result = await handler.handle(socket, payload);
      ack?.({ ok: true, ...(result ?? {}) });
    } catch (err) {
      let body = realtimeErrorBody(err);
      if (!body) {
        this.logger.error({ err, event, namespace: socket.nsp.name }, 'Realtime handler failed');
        body = { code: 'internal_error', message: 'Internal error.' };
      }
      this.reply(socket, event, ack, body);
    }
  }

  /** An error answers the acknowledgement when there is one, and always also comes as the `error` event. */
  private reply(socket: Socket, event: string, ack: ((answer: unknown) => void) | null, body: RealtimeErrorBody): void {
    ack?.({ ok: false, error: body });
    sendNow(socket, 'error', { event, ...body });
  }

  private async validPayload(dto: Type<object>, args: unknown[]): Promise<object> {
    const raw = args.length === 0 ? {} : args[0];
    if (args.length > 1 || typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new RealtimeError('validation_error', 'The payload must be one object.');
    }
    const instance = plainToInstance(dto, raw);
    const errors = await validate(instance, {
      whitelist: true,
      forbidNonWhitelisted: true,
      // A DTO without rules (an empty payload) then refuses every key through the whitelist.
      forbidUnknownValues: false,
      validationError: { target: false, value: false },
    });
    if (errors.length) {
      throw new RealtimeError('validation_error', 'The payload is invalid.', flattenValidationErrors(errors));
    }
    return instance;
  }

  /** The Redis streams adapter of every server of this process, or null without Redis (in-memory, one process). */
  private adapterFactory(): ReturnType<typeof createAdapter> | null {
    if (!this.config.redis.url) return null;
    if (!this.redis) {
      // A connection of its own: the adapter duplicates it for blocking XREAD and PUB/SUB.
      this.redis = withHandledSubscriptions(
        new Redis(this.config.redis.url, { maxRetriesPerRequest: null }),
        (err) => this.logger.debug({ err: err.message }, 'Realtime subscription ended before it was confirmed'),
        this.redisCopies,
      );
      this.redis.on('error', (err: Error) => this.logger.warn({ err: err.message }, 'Realtime Redis error'));
    }
    const prefix = `${this.config.redis.keyPrefix}:sio`;
    return createAdapter(this.redis, {
      streamName: prefix,
      channelPrefix: prefix,
      sessionKeyPrefix: `${prefix}:session:`,
      onlyPlaintext: true,
      // The stream reader notices a shutdown after at most this long.
      blockTimeInMs: 1000,
    });
  }

  private detachedEmitter(): Server | null {
    if (this.emitter) return this.emitter;
    const adapter = this.adapterFactory();
    if (!adapter) return null;
    this.emitter = new Server({ adapter, serveClient: false });
    return this.emitter;
  }

  /**
   * A stopping instance drops every socket (server-side reason `server shutting down`; a transport close for the
   * client, which reconnects, through the balancer, to another instance) and stops the engine.
   */
  async closeServer(): Promise<void> {
    if (!this.server) return;
    const served = this.server;
    this.server = null;
    // Socket.IO's close() also closes the HTTP server it is attached to, and Node's http.Server.close() resets the
    // idle keep-alive connections at once, racing a client that has just picked one for a request. The HTTP
    // listener is the shutdown's to close (core/http/shutdown.ts): detach it, then close sockets and the engine.
    (served as unknown as { httpServer?: unknown }).httpServer = undefined;
    await served.close().catch((err: unknown) => this.logger.warn({ err }, 'Closing the Socket.IO server failed'));
  }

  async onApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    // A detached server has no engine: close() closes the adapters (the stream readers), then fails on the engine.
    if (this.emitter) await this.emitter.close().catch(() => undefined);
    this.emitter = null;
    this.server = null;
    if (this.redis && this.redis.status !== 'end') await this.redis.quit().catch(() => this.redis?.disconnect());
    this.redis = null;
    // The adapter's stream reader and subscriber (its reader would otherwise wait out its blocking read).
    for (const copy of this.redisCopies) copy.disconnect();
    this.redisCopies.clear();
  }
}
