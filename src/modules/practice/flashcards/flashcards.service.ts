import { Injectable } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { isForeignKeyViolation, isUniqueViolation } from '@/core/database/constraint-violation';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, type PageQueryDto, toPage } from '@/core/http/pagination';
import { isUuid } from '@/core/http/uuid';
import { JobsService } from '@/core/queue/jobs.service';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { DEFAULT_TIME_ZONE, localDate } from '@/core/time/local-time';
import { CatalogService } from '@/modules/learning/courses';
import { ProgressService } from '@/modules/learning/progress';
import { UsersService } from '@/modules/identity/users';
import { renderCardHtml } from './card-markdown';
import type {
  CardDto,
  CardStateDto,
  CreateCardDto,
  CreateDeckDto,
  CreateEditorCardDto,
  DeckDto,
  DeckListQueryDto,
  DueDto,
  DueQueryDto,
  FlashcardReviewDto,
  FlashcardReviewInputDto,
  SettingsDto,
  SettingsUpdatedDto,
  UpdateCardDto,
  UpdateDeckDto,
  UpdateEditorCardDto,
  UpdateSettingsDto,
} from './dto/flashcards.dto';
import {
  type CardRow,
  type CardWithState,
  type DeckCounts,
  type DeckRow,
  FlashcardsRepository,
  type LogEntry,
  type SettingsRow,
  type StateRow,
  type StateWrite,
} from './flashcards.repository';
import { RESCHEDULE } from './flashcards.jobs';
import { RESCHEDULE_ACCOUNT } from './flashcards.limits';
import {
  fsrsCardFrom,
  fsrsStateName,
  replay,
  retrievability,
  review as applyReview,
  type ScheduledState,
  type Settings,
} from './schedulers';

export const PERSONAL_DECKS_MAX = 100;
export const PERSONAL_DECK_CARDS_MAX = 5000;
export const COURSE_DECK_CARDS_MAX = 2000;
export const DEFAULT_SETTINGS: SettingsRow = {
  scheduler: 'sm2',
  desired_retention: 0.9,
  new_cards_per_day: 20,
  rescheduling: false,
  reschedule_generation: 0,
};
/** Card states rescheduled per transaction by the background job. */
const RESCHEDULE_BATCH = 200;

/** The settings after `dto` (keys left out keep their value). */
function merged(before: SettingsRow, dto: UpdateSettingsDto): SettingsRow {
  return {
    ...before,
    scheduler: dto.scheduler ?? before.scheduler,
    desired_retention: dto.desired_retention ?? before.desired_retention,
    new_cards_per_day: dto.new_cards_per_day ?? before.new_cards_per_day,
  };
}

/** Whether a change of settings recomputes the card states: another scheduler, or another retention under FSRS. */
function reschedules(before: SettingsRow, after: SettingsRow): boolean {
  return (
    after.scheduler !== before.scheduler ||
    (after.scheduler === 'fsrs' && after.desired_retention !== before.desired_retention)
  );
}

function byCard(entries: readonly LogEntry[]): Map<string, { grade: number; reviewed_at: Date }[]> {
  const logs = new Map<string, { grade: number; reviewed_at: Date }[]>();
  for (const entry of entries) {
    const key = `${entry.organization_id}:${entry.card_id}`;
    const list = logs.get(key) ?? [];
    list.push({ grade: entry.grade, reviewed_at: new Date(entry.reviewed_at) });
    logs.set(key, list);
  }
  return logs;
}

function replayedWrite(userId: string, state: StateRow, replayed: ScheduledState): StateWrite {
  return {
    organizationId: state.organization_id,
    userId,
    cardId: state.card_id,
    deckId: state.deck_id,
    scheduler: replayed.scheduler,
    reviews: replayed.reviews,
    lapses: replayed.lapses,
    everCorrect: replayed.ever_correct,
    firstReviewedAt: state.first_reviewed_at,
    firstReviewOn: state.first_review_on,
    lastReviewedAt: replayed.last_reviewed_at,
    dueOn: replayed.due_on,
    dueAt: replayed.due_at,
    sm2: replayed.sm2,
    fsrs: replayed.fsrs,
  };
}

const idOr404 = (id: string): string => {
  if (!isUuid(id)) throw ApiError.notFound();
  return id.toLowerCase();
};
const deckFull = (max: number): ApiError =>
  ApiError.conflict('deck_full', `The deck holds its maximum of ${max} cards.`);
const notEnrolled = (): ApiError => ApiError.forbidden('Enroll in the course first.', 'not_enrolled');
const courseDeckReadOnly = (): ApiError =>
  ApiError.forbidden('A course deck is written by the course’s editors only.', 'forbidden');

/**
 * Flashcards (extensions-v2 section 6): course decks written by editors and studied by the course's learners,
 * personal decks, each person's card states per organization, the append-only review log, SM-2 and FSRS.
 *
 * A person's reviews and scheduler changes run under one per-person transaction lock, so a change of scheduler,
 * which replays every review log of the person, never races a review.
 */
@Injectable()
export class FlashcardsService {
  constructor(
    private readonly repo: FlashcardsRepository,
    private readonly catalog: CatalogService,
    private readonly progress: ProgressService,
    private readonly users: UsersService,
    private readonly events: DomainEvents,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly jobs: JobsService,
    private readonly limits: RateLimitService,
  ) {}

  // Editors: the course deck.

  private async editorCourse(courseId: string): Promise<string> {
    const course = await this.catalog.resolve(idOr404(courseId));
    if (!course || course.id !== courseId.toLowerCase()) throw ApiError.notFound();
    return course.id;
  }

  private async checkLesson(courseId: string, lessonId: string | null | undefined): Promise<void> {
    if (lessonId === null || lessonId === undefined) return;
    if (!(await this.catalog.lesson(courseId, lessonId.toLowerCase()))) {
      throw ApiError.validation([{ field: 'lesson_id', message: 'lesson_id must be a lesson of this course' }]);
    }
  }

  async editorList(courseId: string, page: PageQueryDto): Promise<Page<CardDto>> {
    const id = await this.editorCourse(courseId);
    const deck = await this.repo.courseDeck(id);
    if (!deck) return toPage([], 0, page);
    const { rows, total } = await this.repo.editorCards(deck.id, page);
    return toPage(
      rows.map((r) => toCard({ ...r, state: null }, null)),
      total,
      page,
    );
  }

  async editorCreate(courseId: string, dto: CreateEditorCardDto): Promise<CardDto> {
    const id = await this.editorCourse(courseId);
    await this.checkLesson(id, dto.lesson_id);
    const now = this.clock.now();
    const cardId = await this.transactions
      .run(async (tx) => {
        const deck = await this.repo.ensureCourseDeck(id, now, tx);
        if ((await this.repo.countCards(deck.id, tx)) >= COURSE_DECK_CARDS_MAX) throw deckFull(COURSE_DECK_CARDS_MAX);
        return this.repo.insertCard(
          {
            deck_id: deck.id,
            lesson_id: dto.lesson_id?.toLowerCase() ?? null,
            position: dto.position ?? (await this.repo.nextPosition(deck.id, tx)),
            ...faces(dto.front_md, dto.back_md),
          },
          now,
          tx,
        );
      })
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return toCard({ ...(await this.repo.card(cardId))!, state: null }, null);
  }

  private async editorCard(courseId: string, cardId: string): Promise<CardRow> {
    const id = await this.editorCourse(courseId);
    const deck = await this.repo.courseDeck(id);
    const card = deck ? await this.repo.card(idOr404(cardId)) : null;
    if (!deck || !card || card.deck_id !== deck.id) throw ApiError.notFound();
    return card;
  }

  async editorUpdate(courseId: string, cardId: string, dto: UpdateEditorCardDto): Promise<CardDto> {
    const card = await this.editorCard(courseId, cardId);
    await this.checkLesson(courseId.toLowerCase(), dto.lesson_id);
    await this.repo
      .updateCard(
        card.id,
        {
          ...cardChanges(card, dto),
          ...(dto.lesson_id !== undefined ? { lesson_id: dto.lesson_id?.toLowerCase() ?? null } : {}),
        },
        this.clock.now(),
      )
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return toCard({ ...(await this.repo.card(card.id))!, state: null }, null);
  }

  async editorDelete(courseId: string, cardId: string): Promise<void> {
    const card = await this.editorCard(courseId, cardId);
    await this.repo.deleteCard(card.id);
  }

  // Decks.

  /**
   * A deck the member may study here: their own personal deck in this organization, or the deck of a course they
   * are enrolled in here. Someone else's deck, or a course not reachable here, is 404; a course deck of a course in
   * the organization's catalog the member is not enrolled in is 403 `not_enrolled`.
   */
  private async studyableDeck(member: Membership, deckId: string): Promise<DeckRow> {
    const deck = await this.repo.deck(idOr404(deckId));
    if (!deck) throw ApiError.notFound();
    if (deck.kind === 'personal') {
      if (deck.organization_id !== member.organizationId || deck.user_id !== member.userId) throw ApiError.notFound();
      return deck;
    }
    if (await this.progress.enrollment(member.organizationId, member.userId, deck.course_id!)) return deck;
    if (await this.catalog.isVisible(member.organizationId, deck.course_id!)) throw notEnrolled();
    throw ApiError.notFound();
  }

  /** The member's own personal deck (writes): a course deck they can see is 403, anything else 404. */
  private async ownDeck(member: Membership, deckId: string): Promise<DeckRow> {
    const deck = await this.studyableDeck(member, deckId).catch((err: unknown) => {
      if (err instanceof ApiError && err.code === 'not_enrolled') throw courseDeckReadOnly();
      throw err;
    });
    if (deck.kind === 'course') throw courseDeckReadOnly();
    return deck;
  }

  async listDecks(member: Membership, query: DeckListQueryDto): Promise<Page<DeckDto>> {
    const { rows, total } = await this.repo.listDecks(member.organizationId, member.userId, query.kind, query);
    const counts = await this.repo.deckCounts(
      member.organizationId,
      member.userId,
      rows.map((r) => r.id),
      this.clock.now(),
    );
    return toPage(
      rows.map((r) => toDeck(r, r.display_title, r.display_description, counts.get(r.id))),
      total,
      query,
    );
  }

  async getDeck(member: Membership, deckId: string): Promise<DeckDto> {
    return this.deckView(member, await this.studyableDeck(member, deckId));
  }

  private async deckView(member: Membership, deck: DeckRow): Promise<DeckDto> {
    const counts = await this.repo.deckCounts(member.organizationId, member.userId, [deck.id], this.clock.now());
    if (deck.kind === 'personal') return toDeck(deck, deck.title!, deck.description, counts.get(deck.id));
    const course = await this.catalog.resolve(deck.course_id!);
    return toDeck(deck, course?.title ?? '', course?.summary ?? null, counts.get(deck.id));
  }

  async createDeck(member: Membership, dto: CreateDeckDto): Promise<DeckDto> {
    const now = this.clock.now();
    const id = await this.transactions
      .run(async (tx) => {
        await this.repo.lockOwner(member.organizationId, member.userId, tx);
        if ((await this.repo.countPersonalDecks(member.organizationId, member.userId, tx)) >= PERSONAL_DECKS_MAX) {
          throw ApiError.conflict(
            'deck_limit_reached',
            `You have ${PERSONAL_DECKS_MAX} decks in this organization, the maximum.`,
          );
        }
        return this.repo.insertPersonalDeck(
          member.organizationId,
          member.userId,
          dto.title,
          dto.description ?? null,
          now,
          tx,
        );
      })
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return this.deckView(member, (await this.repo.deck(id))!);
  }

  async updateDeck(member: Membership, deckId: string, dto: UpdateDeckDto): Promise<DeckDto> {
    const deck = await this.ownDeck(member, deckId);
    await this.repo.updateDeck(deck.id, dto, this.clock.now());
    return this.deckView(member, (await this.repo.deck(deck.id))!);
  }

  async deleteDeck(member: Membership, deckId: string): Promise<void> {
    const deck = await this.ownDeck(member, deckId);
    await this.repo.deleteDeck(deck.id);
  }

  // Cards of a deck.

  async deckCards(member: Membership, deckId: string, page: PageQueryDto): Promise<Page<CardDto>> {
    const deck = await this.studyableDeck(member, deckId);
    const [{ rows, total }, settings] = await Promise.all([
      this.repo.deckCards(member.organizationId, member.userId, deck.id, page),
      this.settingsOf(member.userId),
    ]);
    const now = this.clock.now();
    return toPage(
      rows.map((r) => toCard(r, { now, retention: settings.desired_retention })),
      total,
      page,
    );
  }

  async addCard(member: Membership, deckId: string, dto: CreateCardDto): Promise<CardDto> {
    const deck = await this.ownDeck(member, deckId);
    const now = this.clock.now();
    const id = await this.transactions
      .run(async (tx) => {
        if (!(await this.repo.lockDeck(deck.id, tx))) throw ApiError.notFound();
        if ((await this.repo.countCards(deck.id, tx)) >= PERSONAL_DECK_CARDS_MAX) {
          throw deckFull(PERSONAL_DECK_CARDS_MAX);
        }
        return this.repo.insertCard(
          {
            deck_id: deck.id,
            lesson_id: null,
            position: dto.position ?? (await this.repo.nextPosition(deck.id, tx)),
            ...faces(dto.front_md, dto.back_md),
          },
          now,
          tx,
        );
      })
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return toCard({ ...(await this.repo.card(id))!, state: null }, null);
  }

  private async ownCard(member: Membership, deckId: string, cardId: string): Promise<CardRow> {
    const deck = await this.ownDeck(member, deckId);
    const card = await this.repo.card(idOr404(cardId));
    if (!card || card.deck_id !== deck.id) throw ApiError.notFound();
    return card;
  }

  async updateCard(member: Membership, deckId: string, cardId: string, dto: UpdateCardDto): Promise<CardDto> {
    const card = await this.ownCard(member, deckId, cardId);
    await this.repo.updateCard(card.id, cardChanges(card, dto), this.clock.now());
    const [fresh] = await this.repo.cardsWithState(member.organizationId, member.userId, [card.id]);
    if (!fresh) throw ApiError.notFound();
    const settings = await this.settingsOf(member.userId);
    return toCard(fresh, { now: this.clock.now(), retention: settings.desired_retention });
  }

  async deleteCard(member: Membership, deckId: string, cardId: string): Promise<void> {
    const card = await this.ownCard(member, deckId, cardId);
    await this.repo.deleteCard(card.id);
  }

  // Studying.

  async due(member: Membership, query: DueQueryDto): Promise<DueDto> {
    const deckId = query.deck_id ? (await this.studyableDeck(member, query.deck_id)).id : null;
    const [settings, zone] = await Promise.all([this.settingsOf(member.userId), this.zoneOf(member.userId)]);
    const now = this.clock.now();
    const queue = await this.repo.dueQueue(
      member.organizationId,
      member.userId,
      deckId,
      now,
      localDate(now, zone),
      query.limit,
      settings.new_cards_per_day,
    );
    const cards = await this.repo.cardsWithState(member.organizationId, member.userId, [
      ...queue.dueIds,
      ...queue.newIds,
    ]);
    return {
      items: cards.map((c) => toCard(c, { now, retention: settings.desired_retention })),
      due_total: queue.dueTotal,
      new_total: queue.newTotal,
      new_remaining_today: Math.max(0, settings.new_cards_per_day - queue.firstToday),
    };
  }

  /**
   * Reviews a card (6.2): under the person's lock, computes the next state with their scheduler, writes it and a
   * review log row, and publishes `flashcard.reviewed`, in one transaction. A repeated `client_review_id` answers
   * the first review (`created: false`) and changes nothing.
   */
  async review(
    member: Membership,
    cardId: string,
    dto: FlashcardReviewInputDto,
  ): Promise<{ review: FlashcardReviewDto; created: boolean }> {
    const { organizationId, userId } = member;
    const card = await this.repo.card(idOr404(cardId));
    if (!card) throw ApiError.notFound();
    await this.studyableDeck(member, card.deck_id);
    const clientId = dto.client_review_id?.toLowerCase() ?? null;
    const [settings, zone] = await Promise.all([this.settingsOf(userId), this.zoneOf(userId)]);
    const scheduling: Settings = { scheduler: settings.scheduler, desiredRetention: settings.desired_retention };
    const run = (): Promise<{ review: FlashcardReviewDto; created: boolean }> =>
      this.transactions.run(async (tx) => {
        await this.repo.lockLearner(userId, tx);
        if (clientId) {
          const first = await this.repo.reviewByClientId(userId, clientId, tx);
          if (first) return { review: this.reviewView(first, settings), created: false };
        }
        // Settings may have changed while we waited for the lock: read them again under it.
        const current = (await this.repo.settings(userId, tx)) ?? DEFAULT_SETTINGS;
        scheduling.scheduler = current.scheduler;
        scheduling.desiredRetention = current.desired_retention;
        const now = this.clock.now();
        const stored = await this.repo.lockState(organizationId, userId, card.id, tx);
        // Under the lock a stored state follows the current settings, unless a rescheduling job has not reached
        // it yet: then this card's log is replayed first (the job's replay of it later gives the same state).
        const before = !stored
          ? null
          : current.rescheduling
            ? replay(
                byCard(
                  await this.repo.reviewLogOf(userId, [{ organization_id: organizationId, card_id: card.id }], tx),
                ).get(`${organizationId}:${card.id}`) ?? [],
                zone,
                scheduling,
              )
            : scheduledFrom(stored);
        const next = applyReview(before, dto.grade, now, zone, scheduling);
        await this.repo.writeState(
          {
            organizationId,
            userId,
            cardId: card.id,
            deckId: card.deck_id,
            scheduler: next.scheduler,
            reviews: next.reviews,
            lapses: next.lapses,
            everCorrect: next.ever_correct,
            firstReviewedAt: stored?.first_reviewed_at ?? now,
            firstReviewOn: stored?.first_review_on ?? localDate(now, zone),
            lastReviewedAt: next.last_reviewed_at,
            dueOn: next.due_on,
            dueAt: next.due_at,
            sm2: next.sm2,
            fsrs: next.fsrs,
          },
          tx,
        );
        const id = await this.repo.insertReview(
          {
            organizationId,
            userId,
            cardId: card.id,
            deckId: card.deck_id,
            grade: dto.grade,
            scheduler: next.scheduler,
            reviewedAt: now,
            durationMs: dto.duration_ms ?? null,
            clientReviewId: clientId,
            before: before ? storedJson(before) : null,
            after: storedJson(next),
          },
          tx,
        );
        await this.events.publish(
          tx,
          'flashcard.reviewed',
          { user_id: userId, review_id: id, card_id: card.id, deck_id: card.deck_id, grade: dto.grade },
          { organizationId, actorId: userId, occurredAt: now },
        );
        return {
          review: {
            id,
            card_id: card.id,
            grade: dto.grade,
            scheduler: next.scheduler,
            reviewed_at: now.toISOString(),
            state: stateView(next, now, current.desired_retention),
          },
          created: true,
        };
      });
    return run().catch(async (err: unknown) => {
      // The same client_review_id raced on another connection: answer the review that won.
      if (clientId && isUniqueViolation(err)) {
        const first = await this.repo.reviewByClientId(userId, clientId);
        if (first) return { review: this.reviewView(first, settings), created: false };
      }
      // The card was deleted, or the membership removed, in between.
      if (isForeignKeyViolation(err)) throw ApiError.notFound();
      throw err;
    });
  }

  private reviewView(
    row: {
      id: string;
      card_id: string;
      grade: number;
      scheduler: 'sm2' | 'fsrs';
      reviewed_at: Date;
      state_after: Record<string, unknown>;
    },
    settings: SettingsRow,
  ): FlashcardReviewDto {
    const after = scheduledFromJson(row.state_after);
    return {
      id: row.id,
      card_id: row.card_id,
      grade: row.grade,
      scheduler: row.scheduler,
      reviewed_at: new Date(row.reviewed_at).toISOString(),
      state: stateView(after, this.clock.now(), settings.desired_retention),
    };
  }

  // Settings (6.4).

  private async settingsOf(userId: string): Promise<SettingsRow> {
    return (await this.repo.settings(userId)) ?? DEFAULT_SETTINGS;
  }

  private async zoneOf(userId: string): Promise<string> {
    return (await this.users.findById(userId))?.timeZone ?? DEFAULT_TIME_ZONE;
  }

  async settings(userId: string): Promise<SettingsDto> {
    return settingsView(await this.settingsOf(userId));
  }

  /**
   * Saves the settings (keys left out keep their value). Changing the scheduler, or the desired retention under
   * FSRS, reschedules every card state of the person in every organization (extensions-v3 6.5): limited to 3 a day
   * (429), done by the background job `flashcards.reschedule` in batches (`rescheduling` is true until it is done).
   */
  async updateSettings(userId: string, dto: UpdateSettingsDto): Promise<SettingsUpdatedDto> {
    const current = await this.settingsOf(userId);
    if (reschedules(current, merged(current, dto))) await this.limits.consume(RESCHEDULE_ACCOUNT, userId);
    return this.transactions.run(async (tx) => {
      await this.repo.lockLearner(userId, tx);
      const before = (await this.repo.settings(userId, tx)) ?? DEFAULT_SETTINGS;
      const after = merged(before, dto);
      let cards = 0;
      if (reschedules(before, after)) {
        after.rescheduling = true;
        after.reschedule_generation = before.reschedule_generation + 1;
        cards = await this.repo.countStates(userId, tx);
        await this.jobs.enqueue(
          RESCHEDULE,
          { user_id: userId, generation: after.reschedule_generation },
          {
            organizationId: null,
            tx,
            dedupeKey: `flashcards.reschedule:${userId}:${after.reschedule_generation}`,
          },
        );
      }
      await this.repo.saveSettings(userId, after, this.clock.now(), tx);
      return { ...settingsView(after), rescheduled_cards: cards };
    });
  }

  /**
   * The job `flashcards.reschedule`: replays each card's review log (same grades, same times) through the person's
   * settings from a new card, `RESCHEDULE_BATCH` states per transaction under the person's lock, so reviews go on
   * between batches. A review meanwhile replays its own card first (see `review`). A newer change of settings
   * (another generation) takes over: this job stops.
   */
  async reschedule(userId: string, generation: number): Promise<void> {
    const zone = await this.zoneOf(userId);
    let after: { organization_id: string; card_id: string } | null = null;
    for (;;) {
      const last: { organization_id: string; card_id: string } | null = after;
      const next = await this.transactions.run(async (tx) => {
        await this.repo.lockLearner(userId, tx);
        const settings = await this.repo.settings(userId, tx);
        if (!settings || settings.reschedule_generation !== generation) return null;
        const states = await this.repo.statesPage(userId, last, RESCHEDULE_BATCH, tx);
        if (states.length === 0) {
          await this.repo.finishRescheduling(userId, generation, tx);
          return null;
        }
        const scheduling: Settings = { scheduler: settings.scheduler, desiredRetention: settings.desired_retention };
        const logs = byCard(await this.repo.reviewLogOf(userId, states, tx));
        for (const state of states) {
          const replayed = replay(logs.get(`${state.organization_id}:${state.card_id}`) ?? [], zone, scheduling);
          if (replayed) await this.repo.writeState(replayedWrite(userId, state, replayed), tx);
        }
        const tail = states[states.length - 1];
        return { organization_id: tail.organization_id, card_id: tail.card_id };
      });
      if (!next) return;
      after = next;
    }
  }
}

function faces(front: string, back: string): Pick<CardRow, 'front_md' | 'back_md' | 'front_html' | 'back_html'> {
  return { front_md: front, back_md: back, front_html: renderCardHtml(front), back_html: renderCardHtml(back) };
}

function cardChanges(card: CardRow, dto: UpdateCardDto): Partial<CardRow> {
  const changes: Partial<CardRow> = {};
  if (dto.front_md !== undefined)
    Object.assign(changes, { front_md: dto.front_md, front_html: renderCardHtml(dto.front_md) });
  if (dto.back_md !== undefined)
    Object.assign(changes, { back_md: dto.back_md, back_html: renderCardHtml(dto.back_md) });
  if (dto.position !== undefined) changes.position = dto.position;
  void card;
  return changes;
}

function settingsView(s: SettingsRow): SettingsDto {
  return {
    scheduler: s.scheduler,
    desired_retention: Number(s.desired_retention),
    new_cards_per_day: s.new_cards_per_day,
    rescheduling: s.rescheduling,
  };
}

function toDeck(deck: DeckRow, title: string, description: string | null, counts?: DeckCounts): DeckDto {
  return {
    id: deck.id,
    kind: deck.kind,
    course_id: deck.course_id,
    title,
    description,
    cards_count: counts?.cards ?? 0,
    due_count: counts?.due ?? 0,
    new_count: counts?.new ?? 0,
    created_at: new Date(deck.created_at).toISOString(),
    updated_at: new Date(deck.updated_at).toISOString(),
  };
}

function toCard(card: CardWithState, at: { now: Date; retention: number } | null): CardDto {
  return {
    id: card.id,
    deck_id: card.deck_id,
    lesson_id: card.lesson_id,
    position: card.position,
    front_md: card.front_md,
    back_md: card.back_md,
    front_html: card.front_html,
    back_html: card.back_html,
    created_at: new Date(card.created_at).toISOString(),
    updated_at: new Date(card.updated_at).toISOString(),
    state: card.state && at ? stateView(scheduledFrom(card.state), at.now, at.retention) : null,
  };
}

function scheduledFrom(row: StateRow): ScheduledState {
  return {
    scheduler: row.scheduler,
    reviews: row.reviews,
    lapses: row.lapses,
    ever_correct: row.ever_correct,
    last_reviewed_at: new Date(row.last_reviewed_at),
    due_on: row.due_on,
    due_at: new Date(row.due_at),
    sm2: row.sm2,
    fsrs: row.fsrs ? fsrsCardFrom(row.fsrs) : null,
  };
}

/** The state as the review log keeps it (before and after). */
function storedJson(s: ScheduledState): Record<string, unknown> {
  return {
    scheduler: s.scheduler,
    reviews: s.reviews,
    lapses: s.lapses,
    ever_correct: s.ever_correct,
    last_reviewed_at: s.last_reviewed_at.toISOString(),
    due_on: s.due_on,
    due_at: s.due_at.toISOString(),
    sm2: s.sm2,
    fsrs: s.fsrs,
  };
}

function scheduledFromJson(j: Record<string, unknown>): ScheduledState {
  return {
    scheduler: j.scheduler as 'sm2' | 'fsrs',
    reviews: j.reviews as number,
    lapses: j.lapses as number,
    ever_correct: j.ever_correct as boolean,
    last_reviewed_at: new Date(j.last_reviewed_at as string),
    due_on: j.due_on as string,
    due_at: new Date(j.due_at as string),
    sm2: (j.sm2 as ScheduledState['sm2']) ?? null,
    fsrs: j.fsrs ? fsrsCardFrom(j.fsrs as Record<string, unknown>) : null,
  };
}

function stateView(s: ScheduledState, now: Date, retention: number): CardStateDto {
  return {
    scheduler: s.scheduler,
    reviews: s.reviews,
    lapses: s.lapses,
    last_reviewed_at: s.last_reviewed_at.toISOString(),
    due_on: s.due_on,
    due_at: s.due_at.toISOString(),
    sm2: s.sm2
      ? { repetitions: s.sm2.repetitions, ease_factor: s.sm2.ease_hundredths / 100, interval_days: s.sm2.interval_days }
      : null,
    fsrs: s.fsrs
      ? {
          stability: s.fsrs.stability,
          difficulty: s.fsrs.difficulty,
          state: fsrsStateName(s.fsrs.state),
          scheduled_days: s.fsrs.scheduled_days,
          retrievability: retrievability(s.fsrs, now, retention),
        }
      : null,
  };
}
