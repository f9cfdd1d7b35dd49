import { Injectable } from '@nestjs/common';
import { Realtime, userRoom } from '@/core/realtime/realtime.service';
import type { DuelRow } from './duels.repository';

export const DUELS_NAMESPACE = '/duels';
export const duelRoom = (duelId: string): string => `duel:${duelId}`;

/** The `/duels` namespace seen from the area: emits to people and duel rooms on every instance. */
@Injectable()
export class DuelsRealtime {
  constructor(private readonly realtime: Realtime) {}

  toUser(userId: string, event: string, payload: unknown): void {
    this.realtime.emitToUser(DUELS_NAMESPACE, userId, event, payload);
  }

  toDuel(duelId: string, event: string, payload: unknown): void {
    this.realtime.emit(DUELS_NAMESPACE, duelRoom(duelId), event, payload);
  }

  /** Every socket of both players, on any instance, joins `duel:<id>`. */
  async joinDuelRoom(row: DuelRow): Promise<void> {
    const nsp = this.realtime.namespace(DUELS_NAMESPACE);
    if (!nsp) return;
    const players = [row.challenger_id, row.opponent_id].filter((id): id is string => id !== null);
    nsp.in(players.map(userRoom)).socketsJoin(duelRoom(row.id));
    await Promise.resolve();
  }
}
