import { Inject, Injectable, Optional } from '@nestjs/common';
import { GuardianConsentResolver, type Membership, TenancyResolver } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isUuid } from '@/core/http/uuid';
import { anonymousPerson, PeopleService, type PersonDto } from '@/modules/tenancy/members';
import {
  type DuelQuestion,
  type DuelRole,
  DUEL_ROUNDS,
  MAX_PENDING_SENT,
  PENDING_TTL_MS,
  READY_TTL_MS,
} from './duel-rules';
import { DuelLiveStore } from './duel-live.store';
import { DuelsRealtime } from './duels-realtime';
import type { CreateDuelDto, DuelDto, DuelListQueryDto, DuelRoundDto, DuelStatsDto } from './dto/duel.dto';
import { type DuelRow, DuelsRepository, type RoundRow } from './duels.repository';

/** The role of a person in a duel, or null when they do not play in it. */
export function roleOf(duel: DuelRow, userId: string): DuelRole | null {
  if (duel.challenger_id === userId) return 'challenger';
  if (duel.opponent_id === userId) return 'opponent';
  return null;
}

/**
 * Duels over HTTP (extensions-v2 8.1, 8.2): challenges and their answers, the lists and statistics, the records
 * as each player sees them, and the questions of a new duel. Play itself is the engine's (Socket.IO).
 */
@Injectable()
export class DuelsService {
  constructor(
    private readonly duels: DuelsRepository,
    private readonly people: PeopleService,
    private readonly transactions: TransactionRunner,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    private readonly realtime: DuelsRealtime,
    private readonly live: DuelLiveStore,
    @Inject(TenancyResolver) private readonly tenancy: TenancyResolver,
    @Optional() @Inject(GuardianConsentResolver) private readonly consent: GuardianConsentResolver | null,
  ) {}

  async challenge(member: Membership, dto: CreateDuelDto): Promise<DuelDto> {
    const orgId = member.organizationId;
    const opponent = await this.duels.memberByUsername(orgId, dto.opponent_username.trim());
    if (!opponent) throw ApiError.notFound('No such colleague here.');
    if (opponent.id !== member.userId && (await this.people.oneAsSeenBy(member, opponent.id)).anonymous) {
      throw ApiError.notFound('No such colleague here.');
    }
    if (opponent.id === member.userId) throw ApiError.conflict('opponent_unavailable', 'You cannot duel yourself.');
    if (opponent.minor && !(this.consent && (await this.consent.hasConsent(opponent.id, orgId)))) {
      throw ApiError.conflict('opponent_unavailable', 'This colleague cannot play duels.');
    }
    const courseId = dto.course_id?.toLowerCase() ?? null;
    if (courseId) {
      if (!(await this.duels.courseVisible(orgId, courseId))) throw ApiError.notFound('No such course.');
      if (!(await this.duels.isEnrolled(orgId, member.userId, courseId))) {
        throw ApiError.forbidden('Enroll in the course first.', 'not_enrolled');
      }
      if (!(await this.duels.isEnrolled(orgId, opponent.id, courseId))) {
        throw ApiError.conflict('opponent_not_enrolled', 'Your colleague is not enrolled in this course.');
      }
    }
    const questions = await this.questionsFor(orgId, courseId, [member.userId, opponent.id]);
    const now = this.clock.now();
    const row = await this.transactions.run(async (tx) => {
      await this.duels.lockPeople([member.userId, opponent.id], tx);
      if (await this.duels.pendingBetween(orgId, member.userId, opponent.id, tx)) {
        throw ApiError.conflict('duel_pending_exists', 'A challenge between you two is already pending.');
      }
      if ((await this.duels.countPendingSent(member.userId, tx)) >= MAX_PENDING_SENT) {
        throw ApiError.conflict('duel_limit_reached', `You have ${MAX_PENDING_SENT} pending challenges.`);
      }
      const created = await this.duels.insert(
        {
          organization_id: orgId,
          origin: 'challenge',
          status: 'pending',
          course_id: courseId,
          challenger_id: member.userId,
          opponent_id: opponent.id,
          questions,
          created_at: now,
          expires_at: new Date(now.getTime() + PENDING_TTL_MS),
        },
        tx,
      );
      await this.events.publish(
        tx,
        'duel.challenged',
        { duel_id: created.id, challenger_id: member.userId, opponent_id: opponent.id },
        { organizationId: orgId, actorId: member.userId, occurredAt: now },
      );
      return created;
    });
    await this.announce(row, [opponent.id], 'duel:challenge');
    return this.view(member, row);
  }

  async get(member: Membership, duelId: string): Promise<DuelDto> {
    return this.view(member, await this.playedBy(member, duelId));
  }

  async list(member: Membership, q: DuelListQueryDto): Promise<Page<DuelDto>> {
    await this.duels.expireDue(this.clock.now(), member.userId);
    const { rows, total } = await this.duels.list(member.organizationId, member.userId, q);
    return toPage(await this.views(member, rows), total, q);
  }

  async accept(member: Membership, duelId: string): Promise<DuelDto> {
    const row = await this.answer(member, duelId, 'opponent', async (duel, tx, now) => {
      await this.duels.lockPeople([duel.challenger_id!, duel.opponent_id!], tx);
      if ((await this.duels.liveOf(duel.challenger_id!, tx)) || (await this.duels.liveOf(duel.opponent_id!, tx))) {
        throw ApiError.conflict('duel_in_progress', 'One of you already has a duel ready or in progress.');
      }
      const ready = await this.duels.setStatus(
        duel.id,
        ['pending'],
        'ready',
        {
          expires_at: new Date(now.getTime() + READY_TTL_MS),
        },
        tx,
      );
      await this.events.publish(
        tx,
        'duel.answered',
        { duel_id: duel.id, challenger_id: duel.challenger_id!, opponent_id: duel.opponent_id!, answer: 'accepted' },
        { organizationId: duel.organization_id, actorId: member.userId, occurredAt: now },
      );
      return ready!;
    });
    // One live duel per person (extensions-v3 6.4): neither player may still be paired by matchmaking.
    await Promise.all([this.live.leave(row.challenger_id!), this.live.leave(row.opponent_id!)]);
    await this.realtime.joinDuelRoom(row);
    return this.view(member, row);
  }

  async decline(member: Membership, duelId: string): Promise<DuelDto> {
    const row = await this.answer(member, duelId, 'opponent', async (duel, tx, now) => {
      const declined = await this.duels.setStatus(duel.id, ['pending'], 'declined', { finished_at: now }, tx);
      await this.events.publish(
        tx,
        'duel.answered',
        { duel_id: duel.id, challenger_id: duel.challenger_id!, opponent_id: duel.opponent_id!, answer: 'declined' },
        { organizationId: duel.organization_id, actorId: member.userId, occurredAt: now },
      );
      return declined!;
    });
    return this.view(member, row);
  }

  async cancel(member: Membership, duelId: string): Promise<DuelDto> {
    const row = await this.answer(member, duelId, 'challenger', async (duel, tx, now) => {
      return (await this.duels.setStatus(duel.id, ['pending'], 'cancelled', { finished_at: now }, tx))!;
    });
    return this.view(member, row);
  }

  async stats(member: Membership): Promise<DuelStatsDto> {
    const rows = await this.duels.finishedOf(member.organizationId, member.userId);
    const out: DuelStatsDto = { played: 0, won: 0, lost: 0, drawn: 0, current_win_streak: 0, best_win_streak: 0 };
    for (const d of rows) {
      out.played++;
      const role = roleOf(d, member.userId);
      if (d.winner === null) {
        out.drawn++;
        out.current_win_streak = 0;
      } else if (d.winner === role) {
        out.won++;
        out.current_win_streak++;
        out.best_win_streak = Math.max(out.best_win_streak, out.current_win_streak);
      } else {
        out.lost++;
        out.current_win_streak = 0;
      }
    }
    return out;
  }

  /** The schedule `duels.expire`: pending challenges past 24 h, ready duels past 5 minutes. */
  async expireAll(): Promise<number> {
    return (await this.duels.expireDue(this.clock.now())).length;
  }

  /**
   * 5 questions for two players (8.1): of the course when given; else of the courses both are enrolled in here;
   * else of every course the organization reaches. Fewer than 5: 409 `not_enough_questions`.
   */
  async questionsFor(organizationId: string, courseId: string | null, players: string[]): Promise<DuelQuestion[]> {
    let questions = courseId
      ? await this.duels.drawQuestions(organizationId, { courseId }, DUEL_ROUNDS)
      : await this.duels.drawQuestions(organizationId, { enrolledAll: players }, DUEL_ROUNDS);
    if (!courseId && questions.length < DUEL_ROUNDS) {
      questions = await this.duels.drawQuestions(organizationId, 'all', DUEL_ROUNDS);
    }
    if (questions.length < DUEL_ROUNDS) {
      throw ApiError.conflict('not_enough_questions', 'Fewer than 5 quiz questions are available for this duel.');
    }
    return questions;
  }

  /** The record as `viewer` (a player) sees it. */
  async view(viewer: Membership, row: DuelRow): Promise<DuelDto> {
    return (await this.views(viewer, [row]))[0];
  }

  /** The record as a player sees it, from the player's id (the engine, which holds no request). */
  async viewFor(userId: string, row: DuelRow): Promise<DuelDto> {
    const membership = (await this.tenancy.membership(row.organization_id, userId)) ?? {
      organizationId: row.organization_id,
      userId,
      role: 'student' as const,
    };
    return this.view(membership, row);
  }

  async views(viewer: Membership, rows: DuelRow[]): Promise<DuelDto[]> {
    const ids = rows.flatMap((r) => [r.challenger_id, r.opponent_id]).filter((id): id is string => id !== null);
    const persons = await this.people.asSeenBy(viewer, ids);
    const rounds = await this.duels.rounds(rows.filter((r) => r.status === 'finished').map((r) => r.id));
    const person = (id: string | null): PersonDto => (id ? (persons.get(id) ?? anonymousPerson()) : anonymousPerson());
    return rows.map((r) => ({
      id: r.id,
      origin: r.origin,
      status: r.status,
      course_id: r.course_id,
      my_role: roleOf(r, viewer.userId) ?? 'challenger',
      challenger: person(r.challenger_id),
      opponent: person(r.opponent_id),
      created_at: r.created_at.toISOString(),
      expires_at: r.expires_at.toISOString(),
      started_at: r.started_at?.toISOString() ?? null,
      finished_at: r.finished_at?.toISOString() ?? null,
      scores: { challenger: r.challenger_score, opponent: r.opponent_score },
      result: r.status === 'finished' && r.result_reason ? { winner: r.winner, reason: r.result_reason } : null,
      rounds: r.status === 'finished' ? roundViews(r, rounds.get(r.id) ?? []) : [],
    }));
  }

  /** Sends `event` `{duel}` to each of `userIds` (their own view) on every instance. */
  async announce(row: DuelRow, userIds: string[], event: string): Promise<void> {
    for (const userId of userIds) {
      this.realtime.toUser(userId, row.organization_id, event, { duel: await this.viewFor(userId, row) });
    }
  }

  private async playedBy(member: Membership, duelId: string): Promise<DuelRow> {
    if (!isUuid(duelId)) throw ApiError.notFound();
    const row = await this.duels.find(member.organizationId, duelId.toLowerCase());
    if (!row || !roleOf(row, member.userId)) throw ApiError.notFound();
    return row;
  }

  /** Accept, decline or cancel: by `who` only, on a pending duel (one past its 24 h is first expired). */
  private async answer(
    member: Membership,
    duelId: string,
    who: DuelRole,
    work: (duel: DuelRow, tx: Parameters<Parameters<TransactionRunner['run']>[0]>[0], now: Date) => Promise<DuelRow>,
  ): Promise<DuelRow> {
    await this.playedBy(member, duelId);
    const now = this.clock.now();
    return this.transactions.run(async (tx) => {
      const duel = (await this.duels.find(member.organizationId, duelId.toLowerCase(), tx, true))!;
      if (roleOf(duel, member.userId) !== who) {
        throw ApiError.forbidden(
          who === 'opponent' ? 'Only the challenged person answers.' : 'Only the challenger cancels.',
        );
      }
      if (duel.status === 'pending' && duel.expires_at.getTime() <= now.getTime()) {
        await this.duels.setStatus(duel.id, ['pending'], 'expired', {}, tx);
        throw ApiError.conflict('duel_not_pending', 'This challenge has expired.');
      }
      if (duel.status !== 'pending') throw ApiError.conflict('duel_not_pending', 'This duel is not pending.');
      return work(duel, tx, now);
    });
  }
}

function roundViews(duel: DuelRow, rows: RoundRow[]): DuelRoundDto[] {
  return rows.map((r) => {
    const q = duel.questions.find((x) => x.id === r.question_id) ?? duel.questions[r.round - 1];
    return {
      round: r.round,
      question: { prompt: q.prompt, options: q.options, correct_option_ids: q.correct_option_ids },
      challenger: {
        option_ids: r.challenger_option_ids,
        correct: r.challenger_correct,
        points: r.challenger_points,
        answer_ms: r.challenger_answer_ms,
      },
      opponent: {
        option_ids: r.opponent_option_ids,
        correct: r.opponent_correct,
        points: r.opponent_points,
        answer_ms: r.opponent_answer_ms,
      },
    };
  });
}
