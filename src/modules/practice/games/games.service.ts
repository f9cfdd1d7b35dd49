import { Injectable, Logger } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { isForeignKeyViolation, isUniqueViolation } from '@/core/database/constraint-violation';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isUuid } from '@/core/http/uuid';
import { DEFAULT_TIME_ZONE, isoWeekBounds, isoWeekKey, monthBounds, monthKey } from '@/core/time/local-time';
import { anonymousPerson, PeopleService } from '@/modules/tenancy/members';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import type {
  AnswerDto,
  AnswerResultDto,
  GameDto,
  GameListQueryDto,
  GameLeaderboardDto,
  GameLeaderboardQueryDto,
  StartGameDto,
} from './dto/games.dto';
import {
  afterAnswer,
  answerDelta,
  DRAWN,
  type EndReason,
  endAfter,
  type GameNumbers,
  isIdle,
  isLate,
  lateLoss,
  MIN_QUESTIONS,
  QUESTION_MS,
  RISK_START_POINTS,
  SURVIVAL_LIVES,
  validWager,
  xpWorth,
} from './game-rules';
import { type GameRow, GamesRepository, type QuestionRow } from './games.repository';
import { QuestionPoolService } from './question-pool.service';

const IDLE_BATCH = 200;
const notInProgress = (): ApiError => ApiError.conflict('game_not_in_progress', 'The game is finished or abandoned.');

interface Outcome {
  question: QuestionRow;
  correct: boolean;
  timedOut: boolean;
  delta: number;
}

/**
 * Single-player games (extensions-v2 section 7). The server's Clock decides everything: a question has
 * `served_at` and `deadline_at`, an answer after `deadline_at + 1000 ms` is late, and any request that finds the
 * current question past that grace records the timeout first, then serves the next question from that moment. A
 * game untouched for 10 minutes is abandoned (on the next request, or by the schedule `games.abandon_idle`). Every
 * change happens under the game's row lock; an ended game publishes `game.finished` in the same transaction.
 */
@Injectable()
export class GamesService {
  private readonly logger = new Logger('Games');

  constructor(
    private readonly games: GamesRepository,
    private readonly pool: QuestionPoolService,
    private readonly people: PeopleService,
    private readonly organizations: OrganizationsService,
    private readonly events: DomainEvents,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  /** Starts a game (abandoning the caller's game in progress here) with its first question. */
  async start(member: Membership, dto: StartGameDto): Promise<GameDto> {
    const questions = await this.pool.questionsFor(member, dto.course_id);
    if (questions.length < MIN_QUESTIONS) {
      throw ApiError.conflict('not_enough_questions', `At least ${MIN_QUESTIONS} quiz questions are needed to play.`);
    }
    const drawn = this.pool.draw(questions, DRAWN[dto.mode]);
    const run = (): Promise<string> =>
      this.transactions.run(async (tx) => {
        const now = this.clock.now();
        const current = await this.games.inProgressOf(member.organizationId, member.userId, tx);
        if (current) {
          const locked = await this.games.lock(member.organizationId, current.id, tx);
          if (locked?.status === 'in_progress') await this.end(locked, 'abandoned', now, tx);
        }
        const endsAt = dto.mode === 'speed' ? new Date(now.getTime() + QUESTION_MS.speed) : null;
        return this.games.insert(
          {
            organizationId: member.organizationId,
            userId: member.userId,
            mode: dto.mode,
            courseId: dto.course_id?.toLowerCase() ?? null,
            lives: dto.mode === 'survival' ? SURVIVAL_LIVES : null,
            score: dto.mode === 'risk' ? RISK_START_POINTS : 0,
            total: drawn.length,
            startedAt: now,
            endsAt,
          },
          drawn.map((q) => ({ course_id: q.course_id, lesson_id: q.lesson_id, id: q.id })),
          drawn[0],
          endsAt ?? new Date(now.getTime() + QUESTION_MS[dto.mode]),
          tx,
        );
      });
    const id = await run()
      .catch((err: unknown) => {
        // Two starts at once: the other one's game is now in progress; abandon it and start again once.
        if (isUniqueViolation(err)) return run();
        throw err;
      })
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return this.view((await this.games.find(member.organizationId, id))!);
  }

  /** The caller's game with pending transitions applied (another person's game is 404). */
  async read(member: Membership, gameId: string): Promise<GameDto> {
    const game = await this.transactions.run(async (tx) => {
      const game = await this.own(member, gameId, tx);
      const settled = await this.settle(game, this.clock.now(), tx);
      if (settled.status === 'in_progress') {
        settled.touched_at = this.clock.now();
        await this.games.update(settled, tx);
      }
      return settled;
    });
    return this.view(game);
  }

  async list(member: Membership, query: GameListQueryDto): Promise<Page<GameDto>> {
    // The caller's game in progress may have timed out or gone idle since: apply that first.
    const current = await this.games.inProgressOf(member.organizationId, member.userId);
    if (current) {
      await this.transactions.run(async (tx) => {
        const locked = await this.games.lock(member.organizationId, current.id, tx);
        if (locked) await this.settle(locked, this.clock.now(), tx);
      });
    }
    const { rows, total } = await this.games.list(member.organizationId, member.userId, query, query);
    return toPage(await Promise.all(rows.map((r) => this.view(r))), total, query);
  }

  async abandon(member: Membership, gameId: string): Promise<GameDto> {
    const result = await this.transactions.run(async (tx) => {
      const game = await this.settle(await this.own(member, gameId, tx), this.clock.now(), tx);
      if (game.status !== 'in_progress') return { error: notInProgress(), game };
      return { game: await this.end(game, 'abandoned', this.clock.now(), tx) };
    });
    if (result.error) throw result.error;
    return this.view(result.game);
  }

  /**
   * Answers the current question. Late (after `deadline_at + 1000 ms`): wrong with `timed_out` (survival: a life;
   * risk: the late loss; speed: the game is over). A question that is not the current one is 409
   * `question_mismatch`, after any pending timeout is recorded.
   */
  async answer(member: Membership, gameId: string, dto: AnswerDto): Promise<AnswerResultDto> {
    const result = await this.transactions.run(async (tx) => {
      const now = this.clock.now();
      const locked = await this.own(member, gameId, tx);
      if (locked.status === 'in_progress' && isIdle(locked.touched_at, now)) {
        await this.end(locked, 'abandoned', now, tx, null);
        return { error: notInProgress() };
      }
      if (locked.status !== 'in_progress') return { error: notInProgress() };
      const question = (await this.games.question(locked.id, locked.questions_answered + 1, tx))!;
      if (dto.question_id.toLowerCase() !== question.question_id) {
        const settled = await this.settle(locked, now, tx);
        if (settled.status === 'in_progress') {
          settled.touched_at = now;
          await this.games.update(settled, tx);
        }
        return { error: ApiError.conflict('question_mismatch', 'That is not the current question of the game.') };
      }
      const q = question.question;
      const optionIds = [...new Set(dto.option_ids.map((id) => id.toLowerCase()))];
      const known = new Set(q.options.map((o) => o.id));
      const problems = [];
      if (optionIds.some((id) => !known.has(id))) {
        problems.push({ field: 'option_ids', message: 'option_ids must be options of the current question' });
      }
      if (locked.mode === 'risk' && dto.wager === undefined) {
        problems.push({ field: 'wager', message: 'wager is required in risk games' });
      }
      if (locked.mode !== 'risk' && dto.wager !== undefined) {
        problems.push({ field: 'wager', message: 'wager is only for risk games' });
      }
      const late = isLate(question.deadline_at!, now);
      if (!late && locked.mode === 'risk' && dto.wager !== undefined && !validWager(locked.score, dto.wager)) {
        problems.push({ field: 'wager', message: `wager must be an integer from 1 to ${locked.score}` });
      }
      if (problems.length > 0) return { error: ApiError.validation(problems) };

      let outcome: Outcome;
      if (late) {
        outcome = this.timeout(locked, question);
      } else {
        const right = q.options.filter((o) => o.correct).map((o) => o.id);
        const correct = optionIds.length === right.length && right.every((id) => optionIds.includes(id));
        outcome = {
          question,
          correct,
          timedOut: false,
          delta: answerDelta(locked.mode, locked.score, correct, dto.wager ?? null),
        };
      }
      const game = await this.apply(locked, outcome, now, tx, {
        optionIds,
        wager: dto.wager ?? null,
      });
      return { game, outcome };
    });
    if ('error' in result && result.error) throw result.error;
    const { game, outcome } = result as { game: GameRow; outcome: Outcome };
    const q = outcome.question.question;
    return {
      question_id: q.id,
      correct: outcome.correct,
      timed_out: outcome.timedOut,
      correct_option_ids: q.options.filter((o) => o.correct).map((o) => o.id),
      explanation: q.explanation,
      points_delta: outcome.delta,
      game: await this.view(game),
    };
  }

  /** The per-mode leaderboard: best finished score of each member in the period (organization zone). */
  async leaderboard(member: Membership, query: GameLeaderboardQueryDto): Promise<GameLeaderboardDto> {
    const org = await this.organizations.findById(member.organizationId);
    const zone = org?.timeZone ?? DEFAULT_TIME_ZONE;
    const now = this.clock.now();
    const bounds =
      query.period === 'week'
        ? isoWeekBounds(isoWeekKey(now, zone), zone)
        : query.period === 'month'
          ? monthBounds(monthKey(now, zone), zone)
          : null;
    const board = await this.games.board(
      member.organizationId,
      query.mode,
      bounds?.start ?? null,
      bounds?.end ?? null,
      member.userId,
      query,
    );
    // How colleagues appear (extensions-v2 2.2): the shared rule of the members area.
    const people = await this.people.asSeenBy(
      member,
      board.rows.map((r) => r.user_id),
    );
    return {
      items: board.rows.map((r) => ({
        rank: r.rank,
        person: people.get(r.user_id) ?? anonymousPerson(),
        best_score: r.best,
        is_me: r.user_id === member.userId,
      })),
      total: board.total,
      limit: query.limit,
      offset: query.offset,
      me: { rank: board.me?.rank ?? null, best_score: board.me?.best ?? null },
    };
  }

  /** The schedule `games.abandon_idle`: games in progress untouched for 10 minutes. */
  async abandonIdle(): Promise<number> {
    let count = 0;
    for (;;) {
      const now = this.clock.now();
      const idle = await this.games.idle(new Date(now.getTime() - 10 * 60 * 1000), IDLE_BATCH);
      for (const { organization_id, id } of idle) {
        const ended = await this.transactions.run(async (tx) => {
          const game = await this.games.lock(organization_id, id, tx);
          if (!game || game.status !== 'in_progress' || !isIdle(game.touched_at, this.clock.now())) return false;
          await this.end(game, 'abandoned', this.clock.now(), tx, null);
          return true;
        });
        if (ended) count++;
      }
      if (idle.length < IDLE_BATCH) break;
    }
    if (count > 0) this.logger.log({ count }, 'Idle games abandoned');
    return count;
  }

  // Internals.

  private async own(member: Membership, gameId: string, tx: Tx): Promise<GameRow> {
    if (!isUuid(gameId)) throw ApiError.notFound();
    const game = await this.games.lock(member.organizationId, gameId.toLowerCase(), tx);
    if (!game || game.user_id !== member.userId) throw ApiError.notFound();
    return game;
  }

  /** Applies what time did to a game in progress: abandonment when idle, else the current question's timeout. */
  private async settle(game: GameRow, now: Date, tx: Tx): Promise<GameRow> {
    if (game.status !== 'in_progress') return game;
    if (isIdle(game.touched_at, now)) return this.end(game, 'abandoned', now, tx, null);
    const question = await this.games.question(game.id, game.questions_answered + 1, tx);
    if (!question?.deadline_at || !isLate(question.deadline_at, now)) return game;
    return this.apply(game, this.timeout(game, question), now, tx, { optionIds: null, wager: null });
  }

  /** A late (or never given) answer: wrong; risk loses max(1, ceil(points / 10)). */
  private timeout(game: GameRow, question: QuestionRow): Outcome {
    return { question, correct: false, timedOut: true, delta: game.mode === 'risk' ? -lateLoss(game.score) : 0 };
  }

  /** Records an answered question, then ends the game or serves the next question from `now`. */
  private async apply(
    game: GameRow,
    outcome: Outcome,
    now: Date,
    tx: Tx,
    given: { optionIds: string[] | null; wager: number | null },
  ): Promise<GameRow> {
    await this.games.recordAnswer(
      game.id,
      outcome.question.number,
      {
        answeredAt: now,
        optionIds: given.optionIds,
        wager: given.wager,
        correct: outcome.correct,
        timedOut: outcome.timedOut,
        delta: outcome.delta,
      },
      tx,
    );
    const numbers = afterAnswer(numbersOf(game), outcome);
    const next: GameRow = {
      ...game,
      score: numbers.score,
      lives: numbers.lives,
      questions_answered: numbers.questions_answered,
      correct_answers: numbers.correct_answers,
      touched_at: now,
    };
    const reason = endAfter(numbers, now);
    if (reason) return this.end(next, reason, now, tx);
    // The next question is read and stored now, as it is served (extensions-v3 6.6); one removed from its quiz since
    // the draw ends the game as if the questions had run out.
    const number = next.questions_answered + 1;
    const deadline = game.mode === 'speed' ? game.ends_at! : new Date(now.getTime() + QUESTION_MS[game.mode]);
    const ref = await this.games.orderEntry(game.id, number, tx);
    if (ref) {
      const question = await this.pool.question(ref, tx);
      if (!question) return this.end(next, 'questions_exhausted', now, tx);
      await this.games.serve(game.id, number, question, now, deadline, tx);
    } else {
      // A game started before the draw was kept as references has every question stored already.
      await this.games.serveStored(game.id, number, now, deadline, tx);
    }
    await this.games.update(next, tx);
    return next;
  }

  /** Ends a game and publishes `game.finished` (actor: the player, or null when the service abandons it). */
  private async end(
    game: GameRow,
    reason: EndReason,
    now: Date,
    tx: Tx,
    actorId: string | null = game.user_id,
  ): Promise<GameRow> {
    const ended: GameRow = {
      ...game,
      status: reason === 'abandoned' ? 'abandoned' : 'finished',
      finished_at: now,
      end_reason: reason,
    };
    await this.games.update(ended, tx);
    await this.events.publish(
      tx,
      'game.finished',
      { user_id: game.user_id, game_id: game.id, mode: game.mode, score: ended.score, end_reason: reason },
      { organizationId: game.organization_id, actorId, occurredAt: now },
    );
    return ended;
  }

  private async view(game: GameRow): Promise<GameDto> {
    const question =
      game.status === 'in_progress' ? await this.games.question(game.id, game.questions_answered + 1) : null;
    return {
      id: game.id,
      mode: game.mode,
      course_id: game.course_id,
      status: game.status,
      score: game.score,
      lives: game.mode === 'survival' ? game.lives : null,
      points: game.mode === 'risk' ? game.score : null,
      questions_answered: game.questions_answered,
      correct_answers: game.correct_answers,
      started_at: new Date(game.started_at).toISOString(),
      ends_at: game.ends_at ? new Date(game.ends_at).toISOString() : null,
      finished_at: game.finished_at ? new Date(game.finished_at).toISOString() : null,
      end_reason: game.end_reason,
      current_question:
        question && question.served_at && question.deadline_at
          ? {
              id: question.question.id,
              number: question.number,
              prompt: question.question.prompt,
              kind: question.question.kind,
              options: question.question.options.map((o) => ({ id: o.id, text: o.text })),
              served_at: new Date(question.served_at).toISOString(),
              deadline_at: new Date(question.deadline_at).toISOString(),
            }
          : null,
      server_now: this.clock.now().toISOString(),
      xp_awarded: game.status === 'finished' ? xpWorth(game.score) : 0,
    };
  }
}

function numbersOf(g: GameRow): GameNumbers {
  return {
    mode: g.mode,
    score: g.score,
    lives: g.lives,
    questions_total: g.questions_total,
    questions_answered: g.questions_answered,
    correct_answers: g.correct_answers,
    ends_at: g.ends_at ? new Date(g.ends_at) : null,
  };
}
