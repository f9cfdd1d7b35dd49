import { Injectable } from '@nestjs/common';
import { Realtime, userRoom } from '@/core/realtime/realtime.service';
import type { DuelRow } from './duels.repository';

export const DUELS_NAMESPACE = '/duels';

/**
 * The codes `/duels` answers client events with (acknowledgements and the `error` event), beside the realtime
 * core's own (`REALTIME_ERROR_CODES`) and the HTTP catalog's (`not_found`, `not_enrolled`, `duel_in_progress`,
 * `not_enough_questions`).
 */
export const duelRoom = (duelId: string): string => `duel:${duelId}`;
/**
 * The room of a bearer token's sockets (extensions-v3 6.2): a token acts in one organization, so its sockets leave
 * `user:<id>` (a browser session's, which sees every organization of the person) for this one.
 */
export const tokenRoom = (userId: string, organizationId: string): string => `duels:${userId}:${organizationId}`;
/** Every socket of a person that may hear of the duels of an organization: their sessions' and that org's tokens'. */
export const roomsOf = (userId: string, organizationId: string): string[] => [
  userRoom(userId),
  tokenRoom(userId, organizationId),
];

/** The `/duels` namespace seen from the area: emits to people and duel rooms on every instance. */
@Injectable()
export class DuelsRealtime {
  constructor(private readonly realtime: Realtime) {}

  /** To the person's sockets that may see duels of `organizationId` (never a token of another organization). */
  toUser(userId: string, organizationId: string, event: string, payload: unknown): void {
    this.realtime.emit(DUELS_NAMESPACE, roomsOf(userId, organizationId), event, payload);
  }

  toDuel(duelId: string, event: string, payload: unknown): void {
    this.realtime.emit(DUELS_NAMESPACE, duelRoom(duelId), event, payload);
  }

  /** Every socket of both players that may see the duel's organization, on any instance, joins `duel:<id>`. */
  async joinDuelRoom(row: DuelRow): Promise<void> {
    const nsp = this.realtime.namespace(DUELS_NAMESPACE);
    if (!nsp) return;
    const players = [row.challenger_id, row.opponent_id].filter((id): id is string => id !== null);
    nsp.in(players.flatMap((p) => roomsOf(p, row.organization_id))).socketsJoin(duelRoom(row.id));
    await Promise.resolve();
  }
}
