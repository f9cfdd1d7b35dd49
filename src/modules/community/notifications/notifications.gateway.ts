import { type OnGatewayInit, WebSocketGateway } from '@nestjs/websockets';
import type { Namespace } from 'socket.io';
import { Realtime, userRoom } from '@/core/realtime/realtime.service';
import { NOTIFICATIONS_NAMESPACE, tokenRoom } from './notifications-realtime';
import { NotificationsRepository } from './notifications.repository';

/**
 * The namespace `/notifications` (extensions-v2 13.4): same server, path and handshake as duels, with
 * `auth.organization_id` optional and no client events. The core joins every socket to `user:<id>`; a bearer token
 * is limited to its organization, so its socket moves to that organization's room. On connection the socket gets
 * its `unread_count`.
 */
@WebSocketGateway({ namespace: NOTIFICATIONS_NAMESPACE })
export class NotificationsGateway implements OnGatewayInit {
  constructor(
    private readonly realtime: Realtime,
    private readonly repository: NotificationsRepository,
  ) {}

  afterInit(nsp: Namespace): void {
    this.realtime.serve(nsp, {
      organization: 'optional',
      writes: false,
      events: {},
      onConnection: async (socket) => {
        const { userId, organizationId, credentialKind } = socket.data;
        const scope = credentialKind === 'session' ? null : organizationId;
        if (scope) {
          await socket.leave(userRoom(userId));
          await socket.join(tokenRoom(userId, scope));
        }
        socket.emit('unread_count', { unread: await this.repository.unreadCount(userId, scope) });
      },
    });
  }
}
