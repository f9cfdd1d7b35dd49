import { Global, Module } from '@nestjs/common';
import { HandshakeAuthenticator } from './handshake-auth';
import { Realtime } from './realtime.service';

/**
 * The realtime core (extensions-v2 8.3, 13.4): one Socket.IO server per API process on the HTTP server at
 * `/api/v1/socket.io`, installed by `prepareApp` (so main.ts and the test app get it) through `RealtimeIoAdapter`.
 *
 * An area serves a namespace with a gateway and the `Realtime` service:
 *
 * ```ts
 * @WebSocketGateway({ namespace: '/duels' })
 * export class DuelsGateway implements OnGatewayInit {
 *   constructor(private readonly realtime: Realtime) {}
 *   afterInit(nsp: Namespace): void {
 *     this.realtime.serve(nsp, {
 *       organization: 'required', writes: true, minorAccess: 'with_consent',
 *       events: { 'queue:join': realtimeEvent(QueueJoinDto, (socket, p) => this.duels.join(socket.data, p)) },
 *       onConnection: (socket) => ..., onDisconnect: (socket, reason) => ...,
 *     });
 *   }
 * }
 * ```
 *
 * The handshake runs the HTTP passport strategies and org-scope rules; every socket joins `user:<id>`; client
 * events are validated (class-validator), rate limited (20/s, then disconnected) and acknowledged `{ok, ...}` or
 * `{ok: false, error: {code, message}}` (also sent as the `error` event). `Realtime.emit` / `emitToUser` work from
 * anywhere, the worker process included (a detached server on the Redis streams adapter).
 */
@Global()
@Module({
  providers: [HandshakeAuthenticator, Realtime],
  exports: [Realtime, HandshakeAuthenticator],
})
export class RealtimeModule {}
