import { type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Namespace } from 'socket.io';
import { Realtime, realtimeEvent } from '@/core/realtime/realtime.service';
import { DuelEngine } from './duel-engine';
import { DUELS_NAMESPACE } from './duels-realtime';
import { DuelAnswerDto, DuelIdDto, QueueJoinDto, QueueLeaveDto } from './dto/duel.dto';

/**
 * The `/duels` namespace (extensions-v2 8.3) on the realtime core: handshake with `auth.organization_id`
 * required, writes (read-only credentials refused, minors with consent), the six client events.
 */
@WebSocketGateway({ namespace: DUELS_NAMESPACE })
export class DuelsGateway implements OnGatewayInit {
  constructor(
    private readonly realtime: Realtime,
    private readonly engine: DuelEngine,
  ) {}

  afterInit(nsp: Namespace): void {
    this.engine.attach(nsp);
    this.realtime.serve(nsp, {
      organization: 'required',
      writes: true,
      minorAccess: 'with_consent',
      events: {
        'queue:join': realtimeEvent(QueueJoinDto, (socket, p) =>
          this.engine.joinQueue(socket, p.course_id?.toLowerCase() ?? null),
        ),
        'queue:leave': realtimeEvent(QueueLeaveDto, (socket) => this.engine.leaveQueue(socket)),
        'duel:ready': realtimeEvent(DuelIdDto, (socket, p) => this.engine.ready(socket, p.duel_id.toLowerCase())),
        'duel:answer': realtimeEvent(DuelAnswerDto, (socket, p) =>
          this.engine.answer(socket, { ...p, duel_id: p.duel_id.toLowerCase() }),
        ),
        'duel:forfeit': realtimeEvent(DuelIdDto, (socket, p) => this.engine.forfeit(socket, p.duel_id.toLowerCase())),
        'duel:state': realtimeEvent(DuelIdDto, (socket, p) => this.engine.state(socket, p.duel_id.toLowerCase())),
      },
      onConnection: (socket) => this.engine.connected(socket),
      onDisconnect: (socket) => this.engine.disconnected(socket),
    });
  }
}
