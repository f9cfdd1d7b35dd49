import { randomUUID } from 'node:crypto';
import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { Namespace } from 'socket.io';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type RealtimeSocket, userRoom } from '@/core/realtime/realtime.service';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import {
  RealtimeError,
  realtimeErrorBody,
  type RealtimeErrorBody,
  type RealtimeErrorCode,
} from '@/core/realtime/realtime-errors';
import {
  answerMs,
  answerWindow,
  ANSWER_GRACE_MS,
  DUEL_ROUNDS,
  type DuelRole,
  isCorrect,
  points,
  QUEUE_TIMEOUT_MS,
  READY_TTL_MS,
  resultFor,
  type ResultReason,
  winnerOf,
  xpFor,
} from './duel-rules';
import { DuelLiveStore } from './duel-live.store';
import { type DuelRow, DuelsRepository } from './duels.repository';
import { duelRoom, DuelsRealtime, roomsOf, tokenRoom } from './duels-realtime';
import { QUEUE_JOIN_ACCOUNT } from './duels.limits';
import { DuelsService, roleOf } from './duels.service';
import type { DuelDto } from './dto/duel.dto';

/** The durations of play (8.3); settings, shortened by tests. */
export class DuelTiming {
  constructor(
    readonly roundMs: number,
    readonly countdownMs: number,
    readonly reconnectWindowMs: number,
    /** Between a round's result and the next round (8.3: 2 000 ms). */
    readonly resultGapMs = 2_000,
    /** A queued player without a match for this long leaves the queue with `queue:timeout` (8.3: 60 s). */
    readonly queueTimeoutMs = QUEUE_TIMEOUT_MS,
  ) {}
}

/**
 * Input from a player. `scope`: the one organization a bearer token's socket may act in (extensions-v3 6.2), null
 * for a browser session (every organization of the person).
 */
type Input = { duelId: string; userId: string; scope?: string | null } & (
  | { type: 'answer'; round: number; optionIds: string[]; receivedAt: number }
  | { type: 'forfeit' }
  | { type: 'state' }
  | { type: 'absent' }
  | { type: 'present' }
);

/** The organization a socket is limited to: a bearer token's; null for a browser session (it sees them all). */
function scopeOf(socket: RealtimeSocket): string | null {
  return socket.data.credentialKind === 'session' ? null : socket.data.organizationId;
}

type Outcome = { result: Record<string, unknown> } | { error: RealtimeErrorBody };

interface Answer {
  optionIds: string[];
  receivedAt: number;
}

interface Run {
  duel: DuelRow;
  roles: Map<string, DuelRole>;
  round: number;
  startsAt: number;
  deadlineAt: number;
  phase: 'open' | 'between' | 'done';
  answers: Map<string, Answer>;
  scores: { challenger: number; opponent: number };
  absent: Map<string, number>;
  /** The next round waits for a player who is away. */
  waitingRound: number | null;
  timers: Set<NodeJS.Timeout>;
}

const FORWARD_EVENT = 'duels:input';

/** What a driver stores of a live duel in Redis (`duel:<id>`), enough for another instance to continue. */
interface SavedState {
  round: number;
  phase: 'open' | 'between' | 'done';
  scores: { challenger: number; opponent: number };
}

/**
 * Plays duels in real time (extensions-v2 8.3): matchmaking, the ready handshake and the rounds, with the server's
 * clock deciding what was in time. Exactly one instance drives a duel (the one that saw both players ready; it
 * holds the lease `duel:<id>:driver`): input arriving on another instance is forwarded to it with
 * `serverSideEmit`, and every emit goes through the adapter, so the two players may sit on two instances.
 */
@Injectable()
export class DuelEngine implements BeforeApplicationShutdown, OnApplicationShutdown {
  private readonly logger = new Logger('Duels');
  private readonly instanceId = randomUUID();
  private readonly runs = new Map<string, Run>();
  private readonly queueTimers = new Map<string, NodeJS.Timeout>();
  /** Active duels with a player's socket here and a driver elsewhere: taken over if that driver disappears. */
  private readonly watched = new Set<string>();
  private watchdog: NodeJS.Timeout | null = null;
  private nsp: Namespace | null = null;

  constructor(
    private readonly timing: DuelTiming,
    private readonly duels: DuelsRepository,
    private readonly service: DuelsService,
    private readonly store: DuelLiveStore,
    private readonly realtime: DuelsRealtime,
    private readonly transactions: TransactionRunner,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    private readonly limits: RateLimitService,
  ) {}

  /** The gateway's namespace: forwarded input from other instances arrives here. */
  attach(nsp: Namespace): void {
    this.nsp = nsp;
    if (this.store.shared) {
      this.watchdog = setInterval(() => void this.takeOverOrphans().catch(() => undefined), 1_000);
      this.watchdog.unref();
    }
    nsp.on(FORWARD_EVENT, (input: Input, reply: (outcome: Outcome | null) => void) => {
      const run = this.runs.get(input.duelId);
      if (!run) {
        reply(null);
        return;
      }
      void this.handle(run, input).then(reply);
    });
  }

  // ---- matchmaking ----

  /**
   * extensions-v3 6.4: the rate limit, "already queued" and the person's live duels come before any other work
   * (the question draw is a random scan of every visible question).
   */
  async joinQueue(socket: RealtimeSocket, courseId: string | null): Promise<Record<string, unknown>> {
    const { userId, organizationId } = socket.data;
    const orgId = organizationId!;
    try {
      await this.limits.consume(QUEUE_JOIN_ACCOUNT, userId);
    } catch (err) {
      if (err instanceof ApiError && err.status === 429) {
        throw new RealtimeError('rate_limited', 'Too many queue joins: at most 10 a minute.');
      }
      throw err;
    }
    if (await this.store.isQueued(userId)) throw new RealtimeError('already_queued', 'You are already in the queue.');
    if (await this.duels.liveOf(userId)) throw new RealtimeError('duel_in_progress', 'You already have a duel.');
    if (courseId) {
      if (!(await this.duels.courseVisible(orgId, courseId))) throw new RealtimeError('not_found', 'No such course.');
      if (!(await this.duels.isEnrolled(orgId, userId, courseId))) {
        throw new RealtimeError('not_enrolled', 'Enroll in the course first.');
      }
    }
    const pool = await this.duels.drawQuestions(orgId, courseId ? { courseId } : 'all', DUEL_ROUNDS);
    if (pool.length < DUEL_ROUNDS) throw new RealtimeError('not_enough_questions', 'Not enough quiz questions here.');
    const now = this.clock.nowMs();
    const queue = DuelLiveStore.queueKey(orgId, courseId);
    const outcome = await this.store.join(queue, userId, socket.id, now);
    if (outcome.kind === 'already') throw new RealtimeError('already_queued', 'You are already in the queue.');
    if (outcome.kind === 'queued') {
      this.armQueueTimeout(socket);
    } else {
      this.clearQueueTimeout(outcome.first);
      this.clearQueueTimeout(outcome.second);
      await this.match(orgId, courseId, outcome.first, outcome.second);
    }
    return { queued_at: new Date(now).toISOString() };
  }

  async leaveQueue(socket: RealtimeSocket): Promise<Record<string, unknown>> {
    this.clearQueueTimeout(socket.data.userId);
    await this.store.leave(socket.data.userId);
    return {};
  }

  private armQueueTimeout(socket: RealtimeSocket): void {
    const userId = socket.data.userId;
    this.clearQueueTimeout(userId);
    const timer = setTimeout(() => {
      this.queueTimers.delete(userId);
      void this.store.leave(userId, socket.id).then((was) => {
        if (was) socket.emit('queue:timeout', {});
      });
    }, this.timing.queueTimeoutMs);
    timer.unref();
    this.queueTimers.set(userId, timer);
  }

  private clearQueueTimeout(userId: string): void {
    const timer = this.queueTimers.get(userId);
    if (timer) clearTimeout(timer);
    this.queueTimers.delete(userId);
  }

  private async match(orgId: string, courseId: string | null, first: string, second: string): Promise<void> {
    try {
      const questions = await this.service.questionsFor(orgId, courseId, [first, second]);
      const now = this.clock.now();
      const row = await this.transactions.run(async (tx) => {
        await this.duels.lockPeople([first, second], tx);
        // One live duel per person (6.4): a queued player may have accepted a challenge over HTTP meanwhile.
        const busy = [];
        for (const id of [first, second]) if (await this.duels.liveOf(id, tx)) busy.push(id);
        if (busy.length > 0) return { busy };
        return this.duels.insert(
          {
            organization_id: orgId,
            origin: 'matchmaking',
            status: 'ready',
            course_id: courseId,
            challenger_id: first,
            opponent_id: second,
            questions,
            created_at: now,
            expires_at: new Date(now.getTime() + READY_TTL_MS),
          },
          tx,
        );
      });
      if ('busy' in row) {
        // The free player left the queue when paired: told so, as after a wait without a match.
        for (const id of [first, second])
          if (!row.busy.includes(id)) this.realtime.toUser(id, orgId, 'queue:timeout', {});
        return;
      }
      await this.realtime.joinDuelRoom(row);
      await this.service.announce(row, [first, second], 'queue:matched');
    } catch (err) {
      this.logger.error({ err }, 'Matchmaking could not create the duel');
    }
  }

  // ---- play ----

  async ready(socket: RealtimeSocket, duelId: string): Promise<Record<string, unknown>> {
    const { userId, organizationId } = socket.data;
    let row = await this.duels.find(organizationId!, duelId);
    if (!row || !roleOf(row, userId)) throw new RealtimeError('not_found', 'No such duel.');
    if (row.status === 'ready' && row.expires_at.getTime() <= this.clock.nowMs()) {
      await this.duels.setStatus(row.id, ['ready'], 'expired', {});
      throw new RealtimeError('duel_not_ready', 'This duel has expired.');
    }
    if (row.status !== 'ready') throw new RealtimeError('duel_not_ready', 'This duel is not waiting for players.');
    await socket.join(duelRoom(row.id));
    this.watched.add(row.id);
    const count = await this.store.markReady(row.id, userId);
    if (count >= 2) {
      const active = await this.duels.setStatus(row.id, ['ready'], 'active', { started_at: this.clock.now() });
      if (active) {
        row = active;
        await this.drive(active);
      }
    }
    return { duel: await this.service.viewFor(userId, row) };
  }

  async answer(
    socket: RealtimeSocket,
    p: { duel_id: string; round: number; option_ids: string[] },
  ): Promise<Record<string, unknown>> {
    const receivedAt = this.clock.nowMs();
    return this.route({
      type: 'answer',
      duelId: p.duel_id,
      userId: socket.data.userId,
      scope: scopeOf(socket),
      round: p.round,
      optionIds: p.option_ids,
      receivedAt,
    });
  }

  forfeit(socket: RealtimeSocket, duelId: string): Promise<Record<string, unknown>> {
    return this.route({ type: 'forfeit', duelId, userId: socket.data.userId, scope: scopeOf(socket) });
  }

  async state(socket: RealtimeSocket, duelId: string): Promise<Record<string, unknown>> {
    return { state: await this.route({ type: 'state', duelId, userId: socket.data.userId, scope: scopeOf(socket) }) };
  }

  /** A connection of a player with a ready or active duel: joins its room, comes back, gets `duel:state`. */
  async connected(socket: RealtimeSocket): Promise<void> {
    const { userId, organizationId } = socket.data;
    const scope = scopeOf(socket);
    if (scope) {
      // A token's socket hears of its organization only (6.2): out of the session room, into its own.
      await socket.leave(userRoom(userId));
      await socket.join(tokenRoom(userId, scope));
    }
    const live = await this.duels.liveIn(organizationId!, userId);
    if (!live) return;
    await socket.join(duelRoom(live.id));
    this.watched.add(live.id);
    if (live.status === 'active') await this.takeOver(live.id).catch(() => undefined);
    const type = live.status === 'active' ? 'present' : 'state';
    const state = await this.route({ type, duelId: live.id, userId }).catch(() => null);
    if (state) socket.emit('duel:state', state);
  }

  /** A socket dropped: out of the queue; when it was the player's last, the driver is told they are away. */
  async disconnected(socket: RealtimeSocket): Promise<void> {
    const { userId, organizationId } = socket.data;
    if (await this.store.leave(userId, socket.id)) this.clearQueueTimeout(userId);
    const live = await this.duels.liveIn(organizationId!, userId);
    if (!live || live.status !== 'active' || !this.nsp) return;
    const others = await this.nsp.in(roomsOf(userId, organizationId!)).fetchSockets();
    if (others.some((s) => (s.data as { organizationId?: string }).organizationId === organizationId)) return;
    await this.route({ type: 'absent', duelId: live.id, userId }).catch(() => undefined);
  }

  /** Sends input to the duel's driver (this instance or another) and returns its answer. */
  private async route(input: Input): Promise<Record<string, unknown>> {
    const run = this.runs.get(input.duelId);
    let outcome: Outcome | null = run ? await this.handle(run, input) : null;
    if (!run && this.store.shared && this.nsp) {
      outcome = await new Promise<Outcome | null>((resolve) => {
        // Every other instance answers (null when it does not drive the duel); the adapter times out after 5 s.
        this.nsp!.serverSideEmit(FORWARD_EVENT, input, (_err: unknown, answers: (Outcome | null)[]) => {
          resolve((answers ?? []).find((a) => a !== null) ?? null);
        });
      });
    }
    if (!outcome) outcome = await this.withoutDriver(input);
    if ('error' in outcome) throw new RealtimeError(outcome.error.code, outcome.error.message);
    return outcome.result;
  }

  /** Input for a duel nobody drives: not a player, not started yet, or over. */
  private async withoutDriver(input: Input): Promise<Outcome> {
    const row = await this.duels.findById(input.duelId);
    if (!row || !roleOf(row, input.userId) || (input.scope && input.scope !== row.organization_id)) {
      return fail('not_found', 'No such duel.');
    }
    switch (input.type) {
      case 'answer':
        return row.status === 'ready'
          ? fail('round_not_started', 'The duel has not started.')
          : fail('round_closed', 'This duel is not being played.');
      case 'forfeit':
        return fail('duel_not_active', 'This duel is not being played.');
      default:
        return { result: await this.snapshot(row, input.userId, null) };
    }
  }

  private async handle(run: Run, input: Input): Promise<Outcome> {
    try {
      const role = run.roles.get(input.userId);
      if (!role || (input.scope && input.scope !== run.duel.organization_id)) return fail('not_found', 'No such duel.');
      switch (input.type) {
        case 'answer':
          return this.takeAnswer(run, input);
        case 'forfeit':
          if (run.phase === 'done') return fail('duel_not_active', 'This duel is over.');
          await this.finish(run, 'forfeit', role === 'challenger' ? 'opponent' : 'challenger');
          return { result: {} };
        case 'state':
          return { result: await this.snapshot(run.duel, input.userId, run) };
        case 'absent':
          this.markAbsent(run, input.userId);
          return { result: {} };
        case 'present':
          this.markPresent(run, input.userId);
          return { result: await this.snapshot(run.duel, input.userId, run) };
      }
    } catch (err) {
      const body = realtimeErrorBody(err);
      if (body) return { error: body };
      this.logger.error({ err }, 'Duel input failed');
      return fail('internal_error', 'Internal error.');
    }
  }

  private takeAnswer(run: Run, input: Extract<Input, { type: 'answer' }>): Outcome {
    if (run.phase === 'done' || input.round < run.round) return fail('round_closed', 'This round is closed.');
    if (input.round > run.round || run.waitingRound !== null) return fail('round_not_started', 'Not yet.');
    const window = answerWindow(input.receivedAt, run.startsAt, run.deadlineAt);
    if (window === 'early') return fail('round_not_started', 'The round has not started yet.');
    if (window === 'closed' || run.phase !== 'open') return fail('round_closed', 'This round is closed.');
    if (run.answers.has(input.userId)) return fail('already_answered', 'You already answered this round.');
    run.answers.set(input.userId, {
      optionIds: [...new Set(input.optionIds.map((id) => id.toLowerCase()))],
      receivedAt: input.receivedAt,
    });
    const other = this.otherOf(run, input.userId);
    if (other)
      this.realtime.toUser(other, run.duel.organization_id, 'duel:opponent_answered', {
        duel_id: run.duel.id,
        round: run.round,
      });
    if (run.answers.size === 2)
      void this.closeRound(run, run.round).catch((err: unknown) => this.logger.error({ err }, 'Round close failed'));
    return { result: { received_at: new Date(input.receivedAt).toISOString() } };
  }

  // ---- the driver ----

  /**
   * A driver that disappeared (its lease expired or was given up): an instance holding a socket of the duel takes
   * the lease within a second and continues from the stored state; an open round starts again with a fresh
   * `round_ms` (8.3).
   */
  private async takeOverOrphans(): Promise<void> {
    for (const duelId of this.watched) {
      if (this.runs.has(duelId)) continue;
      await this.takeOver(duelId);
    }
  }

  private async takeOver(duelId: string): Promise<void> {
    if (!this.store.shared || this.runs.has(duelId) || (await this.store.leaseHeld(duelId))) return;
    const row = await this.duels.findById(duelId);
    if (!row || row.status !== 'active') {
      this.watched.delete(duelId);
      return;
    }
    const saved = await this.store.loadState<SavedState>(duelId);
    await this.drive(row, saved);
  }

  private async drive(duel: DuelRow, resume: SavedState | null = null): Promise<void> {
    if (!(await this.store.acquireLease(duel.id, this.instanceId))) return;
    const roles = new Map<string, DuelRole>();
    if (duel.challenger_id) roles.set(duel.challenger_id, 'challenger');
    if (duel.opponent_id) roles.set(duel.opponent_id, 'opponent');
    const run: Run = {
      duel,
      roles,
      round: 0,
      startsAt: 0,
      deadlineAt: 0,
      phase: 'between',
      answers: new Map(),
      scores: { challenger: 0, opponent: 0 },
      absent: new Map(),
      waitingRound: null,
      timers: new Set(),
    };
    this.runs.set(duel.id, run);
    this.watched.add(duel.id);
    const renew = setInterval(() => void this.store.renewLease(duel.id, this.instanceId).catch(() => undefined), 3_000);
    renew.unref();
    run.timers.add(renew);
    if (resume) {
      run.scores = resume.scores;
      // A player with no socket anywhere is away from now on (their instance is the one that went).
      for (const [userId] of roles) {
        const sockets = this.nsp ? await this.nsp.in(roomsOf(userId, duel.organization_id)).fetchSockets() : [];
        if (!sockets.some((s) => (s.data as { organizationId?: string }).organizationId === duel.organization_id)) {
          this.markAbsent(run, userId);
        }
      }
      const next = resume.phase === 'open' ? resume.round : resume.round + 1;
      if (next > DUEL_ROUNDS) await this.finish(run, 'completed', null);
      else this.startRound(run, Math.max(1, next));
      return;
    }
    this.realtime.toDuel(duel.id, 'duel:start', {
      duel_id: duel.id,
      rounds: DUEL_ROUNDS,
      round_ms: this.timing.roundMs,
      countdown_ms: this.timing.countdownMs,
      reconnect_window_ms: this.timing.reconnectWindowMs,
    });
    this.startRound(run, 1);
  }

  private after(run: Run, ms: number, work: () => void): void {
    if (run.phase === 'done') return;
    const timer = setTimeout(
      () => {
        run.timers.delete(timer);
        work();
      },
      Math.max(0, ms),
    );
    run.timers.add(timer);
  }

  private startRound(run: Run, n: number): void {
    if (run.phase === 'done') return;
    if (run.absent.size > 0) {
      run.waitingRound = n;
      return;
    }
    run.waitingRound = null;
    const now = this.clock.nowMs();
    run.round = n;
    run.startsAt = now + this.timing.countdownMs;
    run.deadlineAt = run.startsAt + this.timing.roundMs;
    run.answers.clear();
    run.phase = 'open';
    const q = run.duel.questions[n - 1];
    this.realtime.toDuel(run.duel.id, 'duel:round', {
      duel_id: run.duel.id,
      round: n,
      question: { id: q.id, prompt: q.prompt, kind: q.kind, options: q.options },
      starts_at: new Date(run.startsAt).toISOString(),
      deadline_at: new Date(run.deadlineAt).toISOString(),
      server_now: new Date(now).toISOString(),
    });
    void this.saveState(run);
    this.after(
      run,
      run.deadlineAt + ANSWER_GRACE_MS - now + 1,
      () => void this.closeRound(run, n).catch((err: unknown) => this.logger.error({ err }, 'Round close failed')),
    );
  }

  private async closeRound(run: Run, n: number): Promise<void> {
    if (run.round !== n || run.phase !== 'open') return;
    run.phase = 'between';
    const q = run.duel.questions[n - 1];
    const sides = {} as Record<
      DuelRole,
      { option_ids: string[]; correct: boolean; points: number; answer_ms: number | null }
    >;
    for (const role of ['challenger', 'opponent'] as const) {
      const userId = role === 'challenger' ? run.duel.challenger_id : run.duel.opponent_id;
      const a = userId ? run.answers.get(userId) : undefined;
      if (!a) {
        sides[role] = { option_ids: [], correct: false, points: 0, answer_ms: null };
        continue;
      }
      const ms = answerMs(a.receivedAt, run.startsAt, this.timing.roundMs);
      const correct = isCorrect(q, a.optionIds);
      sides[role] = {
        option_ids: a.optionIds,
        correct,
        points: points(correct, ms, this.timing.roundMs),
        answer_ms: ms,
      };
      run.scores[role] += sides[role].points;
    }
    for (const [userId, role] of run.roles) {
      const other: DuelRole = role === 'challenger' ? 'opponent' : 'challenger';
      this.realtime.toUser(userId, run.duel.organization_id, 'duel:round_result', {
        duel_id: run.duel.id,
        round: n,
        correct_option_ids: q.correct_option_ids,
        you: sides[role],
        opponent: sides[other],
        scores: { you: run.scores[role], opponent: run.scores[other] },
      });
    }
    // Stored right after the players have the result (one statement); the duel's totals are written again at the end.
    try {
      await this.duels.insertRound(
        {
          duel_id: run.duel.id,
          round: n,
          question_id: q.id,
          challenger_option_ids: sides.challenger.option_ids,
          challenger_correct: sides.challenger.correct,
          challenger_points: sides.challenger.points,
          challenger_answer_ms: sides.challenger.answer_ms,
          opponent_option_ids: sides.opponent.option_ids,
          opponent_correct: sides.opponent.correct,
          opponent_points: sides.opponent.points,
          opponent_answer_ms: sides.opponent.answer_ms,
        },
        this.clock.now(),
      );
    } catch (err) {
      this.logger.error({ err, duel: run.duel.id }, 'Round could not be stored');
    }
    if (n >= DUEL_ROUNDS) {
      await this.finish(run, 'completed', null);
      return;
    }
    void this.saveState(run);
    this.after(run, this.timing.resultGapMs, () => this.startRound(run, n + 1));
  }

  private markAbsent(run: Run, userId: string): void {
    if (run.phase === 'done' || run.absent.has(userId)) return;
    const deadline = this.clock.nowMs() + this.timing.reconnectWindowMs;
    run.absent.set(userId, deadline);
    const other = this.otherOf(run, userId);
    if (other) {
      this.realtime.toUser(other, run.duel.organization_id, 'duel:opponent_disconnected', {
        duel_id: run.duel.id,
        reconnect_deadline_at: new Date(deadline).toISOString(),
      });
    }
    this.after(
      run,
      this.timing.reconnectWindowMs,
      () =>
        void this.checkAbsence(run, userId, deadline).catch((err: unknown) =>
          this.logger.error({ err }, 'Absence check failed'),
        ),
    );
  }

  private markPresent(run: Run, userId: string): void {
    if (!run.absent.delete(userId)) return;
    const other = this.otherOf(run, userId);
    if (other)
      this.realtime.toUser(other, run.duel.organization_id, 'duel:opponent_reconnected', { duel_id: run.duel.id });
    if (run.absent.size === 0 && run.waitingRound !== null) this.startRound(run, run.waitingRound);
  }

  private async checkAbsence(run: Run, userId: string, deadline: number): Promise<void> {
    if (run.phase === 'done' || run.absent.get(userId) !== deadline) return;
    if (run.absent.size >= 2) {
      await this.abandon(run);
      return;
    }
    const role = run.roles.get(userId)!;
    await this.finish(run, 'disconnect', role === 'challenger' ? 'opponent' : 'challenger');
  }

  private async finish(run: Run, reason: ResultReason, forcedWinner: DuelRole | null): Promise<void> {
    if (run.phase === 'done') return;
    run.phase = 'done';
    this.stop(run);
    const winner = reason === 'completed' ? winnerOf(run.scores) : forcedWinner;
    const now = this.clock.now();
    const d = run.duel;
    const row = await this.transactions.run(async (tx) => {
      const finished = await this.duels.finish(d.id, { scores: run.scores, winner, reason }, now, tx);
      if (!finished) return null;
      const winnerId = winner === 'challenger' ? d.challenger_id : winner === 'opponent' ? d.opponent_id : null;
      await this.events.publish(
        tx,
        'duel.finished',
        {
          duel_id: d.id,
          challenger_id: d.challenger_id!,
          opponent_id: d.opponent_id!,
          winner_id: winnerId,
          reason,
          rounds_started: run.round,
        },
        { organizationId: d.organization_id, actorId: null, occurredAt: now },
      );
      return finished;
    });
    if (row) {
      for (const [userId, role] of run.roles) {
        const other: DuelRole = role === 'challenger' ? 'opponent' : 'challenger';
        const result = resultFor(role, winner);
        this.realtime.toUser(userId, d.organization_id, 'duel:finished', {
          duel_id: d.id,
          result,
          reason,
          scores: { you: run.scores[role], opponent: run.scores[other] },
          xp_awarded: xpFor(result, reason, run.round),
        });
      }
    }
    await this.store.forget(d.id).catch(() => undefined);
  }

  private async abandon(run: Run): Promise<void> {
    run.phase = 'done';
    this.stop(run);
    await this.duels.setStatus(run.duel.id, ['active'], 'abandoned', { finished_at: this.clock.now() });
    await this.store.forget(run.duel.id).catch(() => undefined);
  }

  private stop(run: Run): void {
    for (const timer of run.timers) clearTimeout(timer);
    run.timers.clear();
    this.runs.delete(run.duel.id);
    this.watched.delete(run.duel.id);
  }

  private otherOf(run: Run, userId: string): string | null {
    for (const id of run.roles.keys()) if (id !== userId) return id;
    return null;
  }

  private async saveState(run: Run): Promise<void> {
    await this.store
      .saveState(run.duel.id, {
        duel_id: run.duel.id,
        driver: this.instanceId,
        round: run.round,
        starts_at: run.startsAt,
        deadline_at: run.deadlineAt,
        phase: run.phase,
        scores: run.scores,
        answered: [...run.answers.keys()],
        absent: Object.fromEntries(run.absent),
      })
      .catch(() => undefined);
  }

  /** The `duel:state` snapshot of 8.3 for one player. */
  private async snapshot(row: DuelRow, userId: string, run: Run | null): Promise<Record<string, unknown>> {
    const fresh = (await this.duels.findById(row.id)) ?? row;
    const duel: DuelDto = await this.service.viewFor(userId, fresh);
    const role = roleOf(fresh, userId) ?? 'challenger';
    const other: DuelRole = role === 'challenger' ? 'opponent' : 'challenger';
    let round: Record<string, unknown> | null = null;
    if (run && run.phase !== 'done' && run.round > 0 && run.waitingRound === null) {
      const q = run.duel.questions[run.round - 1];
      const otherId = this.otherOf(run, userId);
      round = {
        round: run.round,
        question: { id: q.id, prompt: q.prompt, kind: q.kind, options: q.options },
        starts_at: new Date(run.startsAt).toISOString(),
        deadline_at: new Date(run.deadlineAt).toISOString(),
        answered_by_you: run.answers.has(userId),
        answered_by_opponent: otherId ? run.answers.has(otherId) : false,
      };
    }
    const scores = run ? run.scores : { challenger: fresh.challenger_score, opponent: fresh.opponent_score };
    return {
      duel,
      round,
      scores: { you: scores[role], opponent: scores[other] },
      server_now: this.clock.now().toISOString(),
    };
  }

  /** A graceful stop gives the leases up, so another instance continues the duels at once. */
  async beforeApplicationShutdown(): Promise<void> {
    if (this.watchdog) clearInterval(this.watchdog);
    for (const run of this.runs.values()) {
      run.phase = 'done';
      for (const timer of run.timers) clearTimeout(timer);
    }
    await Promise.all(
      [...this.runs.keys()].map((id) => this.store.releaseLease(id, this.instanceId).catch(() => undefined)),
    );
    this.runs.clear();
  }

  onApplicationShutdown(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    for (const run of this.runs.values()) {
      run.phase = 'done';
      for (const timer of run.timers) clearTimeout(timer);
    }
    this.runs.clear();
    for (const timer of this.queueTimers.values()) clearTimeout(timer);
    this.queueTimers.clear();
  }
}

function fail(code: RealtimeErrorCode, message: string): Outcome {
  return { error: { code, message } };
}
