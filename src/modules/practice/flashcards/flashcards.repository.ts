import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { DeckKind } from './dto/flashcards.dto';
import type { SchedulerName } from './schedulers';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface DeckRow {
  id: string;
  kind: DeckKind;
  course_id: string | null;
  organization_id: string | null;
  user_id: string | null;
  title: string | null;
  description: string | null;
  cards_count: number;
  created_at: Date;
  updated_at: Date;
}

export interface DeckListRow extends DeckRow {
  display_title: string;
  display_description: string | null;
}

export interface DeckCounts {
  cards: number;
  due: number;
  new: number;
}

export interface CardRow {
  id: string;
  deck_id: string;
  lesson_id: string | null;
  position: number;
  front_md: string;
  back_md: string;
  front_html: string;
  back_html: string;
  created_at: Date;
  updated_at: Date;
}

/** A person's stored state of a card (jsonb columns as stored). */
export interface StateRow {
  card_id: string;
  deck_id: string;
  organization_id: string;
  scheduler: SchedulerName;
  reviews: number;
  lapses: number;
  ever_correct: boolean;
  first_reviewed_at: Date;
  first_review_on: string;
  last_reviewed_at: Date;
  due_on: string;
  due_at: Date;
  sm2: { repetitions: number; ease_hundredths: number; interval_days: number } | null;
  fsrs: Record<string, unknown> | null;
}

export interface CardWithState extends CardRow {
  state: StateRow | null;
}

export interface ReviewRow {
  id: string;
  card_id: string;
  grade: number;
  scheduler: SchedulerName;
  reviewed_at: Date;
  state_after: Record<string, unknown>;
}

export interface SettingsRow {
  scheduler: SchedulerName;
  desired_retention: number;
  new_cards_per_day: number;
  /** A background job is rescheduling the person's cards (extensions-v3 6.5). */
  rescheduling: boolean;
  /** Counts the changes that rescheduled: a job of an older generation stops. */
  reschedule_generation: number;
}

/** A card's review log entry, as a replay reads it. */
export interface LogEntry {
  organization_id: string;
  card_id: string;
  grade: number;
  reviewed_at: Date;
}

export interface StateWrite {
  organizationId: string;
  userId: string;
  cardId: string;
  deckId: string;
  scheduler: SchedulerName;
  reviews: number;
  lapses: number;
  everCorrect: boolean;
  firstReviewedAt: Date;
  firstReviewOn: string;
  lastReviewedAt: Date;
  dueOn: string;
  dueAt: Date;
  sm2: object | null;
  fsrs: object | null;
}

const CARD_COLUMNS = `f.id, f.deck_id, f.lesson_id, f.position, f.front_md, f.back_md, f.front_html, f.back_html,
  f.created_at, f.updated_at`;
const STATE_COLUMNS = `s.card_id, s.deck_id, s.organization_id, s.scheduler, s.reviews, s.lapses, s.ever_correct, s.first_reviewed_at,
  to_char(s.first_review_on, 'YYYY-MM-DD') AS first_review_on, s.last_reviewed_at,
  to_char(s.due_on, 'YYYY-MM-DD') AS due_on, s.due_at, s.sm2, s.fsrs`;

/**
 * The decks a member may study in an organization: course decks of the courses they are enrolled in there (read
 * from the progress area's enrollments in the same statement: the queue is one indexed query, see DECISIONS.md)
 * and their own personal decks there. `grp`, `sort_title`, `created_at` give deck order (6.2).
 */
const STUDYABLE = `
  SELECT d.id, 0 AS grp, unaccent(lower(c.title)) AS sort_title, d.created_at, d.cards_count
  FROM flashcard_decks d
  JOIN enrollments_read e ON e.course_id = d.course_id AND ${orgEq(1, 'e')} AND e.user_id = $2
  JOIN courses_read c ON c.id = d.course_id
  WHERE d.kind = 'course'
  UNION ALL
  SELECT d.id, 1 AS grp, '' AS sort_title, d.created_at, d.cards_count
  FROM flashcard_decks d
  WHERE d.kind = 'personal' AND ${orgEq(1, 'd')} AND d.user_id = $2`;

/** Decks, cards, states, the review log and settings (extensions-v2 section 6). */
@Injectable()
export class FlashcardsRepository {
  constructor(private readonly dataSource: DataSource) {}

  // Decks.

  async deck(id: string, tx?: Tx): Promise<DeckRow | null> {
    const rows = await db(this.dataSource, tx).query<DeckRow[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT * FROM flashcard_decks WHERE id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async lockDeck(id: string, tx: Tx): Promise<DeckRow | null> {
    const rows = await tx.manager.query<DeckRow[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT * FROM flashcard_decks WHERE id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  }

  async courseDeck(courseId: string, tx?: Tx): Promise<DeckRow | null> {
    const rows = await db(this.dataSource, tx).query<DeckRow[]>(
      `${tenancyExempt('platform-catalog')} SELECT * FROM flashcard_decks WHERE kind = 'course' AND course_id = $1`,
      [courseId],
    );
    return rows[0] ?? null;
  }

  /** The course's deck, created with its first card (one per course: a concurrent creation finds the other's). */
  async ensureCourseDeck(courseId: string, now: Date, tx: Tx): Promise<DeckRow> {
    await tx.manager.query(
      `INSERT INTO flashcard_decks (kind, course_id, created_at, updated_at) VALUES ('course', $1, $2, $2)
       ON CONFLICT (course_id) WHERE kind = 'course' DO NOTHING`,
      [courseId, now],
    );
    return (await this.lockDeck((await this.courseDeck(courseId, tx))!.id, tx))!;
  }

  /** Serializes a person's deck creations in an organization (the limit of 100). */
  async lockOwner(organizationId: string, userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `flashcards:decks:${organizationId}:${userId}`,
    ]);
  }

  async countPersonalDecks(organizationId: string, userId: string, tx: Tx): Promise<number> {
    const rows = await tx.manager.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM flashcard_decks WHERE kind = 'personal' AND ${orgEq(1)} AND user_id = $2`,
      [organizationId, userId],
    );
    return rows[0].n;
  }

  async insertPersonalDeck(
    organizationId: string,
    userId: string,
    title: string,
    description: string | null,
    now: Date,
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO flashcard_decks (kind, organization_id, user_id, title, description, created_at, updated_at)
       VALUES ('personal', $1, $2, $3, $4, $5, $5) RETURNING id`,
      [organizationId, userId, title, description, now],
    );
    return rows[0].id;
  }

  async updateDeck(id: string, changes: { title?: string; description?: string | null }, now: Date): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [id, now];
    if (changes.title !== undefined) sets.push(`title = $${params.push(changes.title)}`);
    if (changes.description !== undefined) sets.push(`description = $${params.push(changes.description)}`);
    await this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE flashcard_decks SET ${[...sets, 'updated_at = $2'].join(', ')} WHERE id = $1`,
      params,
    );
  }

  async deleteDeck(id: string): Promise<void> {
    await this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} DELETE FROM flashcard_decks WHERE id = $1`,
      [id],
    );
  }

  /** The caller's studyable decks (course decks with cards first, by course title; then personal by creation). */
  async listDecks(
    organizationId: string,
    userId: string,
    kind: DeckKind | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ rows: DeckListRow[]; total: number }> {
    const rows = await this.dataSource.query<(DeckListRow & { total: number })[]>(
      `WITH listed AS (
         SELECT d.*, c.title AS display_title, c.summary AS display_description, 0 AS grp, unaccent(lower(c.title)) AS sort_title
         FROM flashcard_decks d
         JOIN enrollments_read e ON e.course_id = d.course_id AND ${orgEq(1, 'e')} AND e.user_id = $2
         JOIN courses_read c ON c.id = d.course_id
         WHERE d.kind = 'course' AND EXISTS (SELECT 1 FROM flashcards f WHERE f.deck_id = d.id)
         UNION ALL
         SELECT d.*, d.title, d.description, 1, ''
         FROM flashcard_decks d WHERE d.kind = 'personal' AND ${orgEq(1, 'd')} AND d.user_id = $2
       )
       SELECT l.*, count(*) OVER ()::int AS total FROM listed l
       WHERE $3::text IS NULL OR l.kind = $3
       ORDER BY l.grp, l.sort_title, l.created_at, l.id
       LIMIT $4 OFFSET $5`,
      [organizationId, userId, kind ?? null, page.limit, page.offset],
    );
    if (rows.length === 0 && page.offset > 0) {
      const all = await this.listDecks(organizationId, userId, kind, { limit: 1, offset: 0 });
      return { rows: [], total: all.total };
    }
    return { rows, total: rows[0]?.total ?? 0 };
  }

  /** Cards, due and new counts of these decks for a person in an organization (one index of the states). */
  async deckCounts(
    organizationId: string,
    userId: string,
    deckIds: string[],
    now: Date,
  ): Promise<Map<string, DeckCounts>> {
    if (deckIds.length === 0) return new Map();
    const rows = await this.dataSource.query<{ deck_id: string; cards: number; due: number; new: number }[]>(
      `SELECT d.id AS deck_id, d.cards_count AS cards, coalesce(s.due, 0)::int AS due,
         greatest(d.cards_count - coalesce(s.reviewed, 0), 0)::int AS new
       FROM flashcard_decks d
       LEFT JOIN (
         SELECT deck_id, count(*) AS reviewed, count(*) FILTER (WHERE due_at <= $4) AS due
         FROM flashcard_states WHERE ${orgEq(1)} AND user_id = $2 AND deck_id = ANY($3::uuid[])
         GROUP BY deck_id
       ) s ON s.deck_id = d.id
       WHERE d.id = ANY($3::uuid[])`,
      [organizationId, userId, deckIds, now],
    );
    return new Map(rows.map((r) => [r.deck_id, { cards: r.cards, due: r.due, new: r.new }]));
  }

  // Cards.

  async card(id: string, tx?: Tx): Promise<CardRow | null> {
    const rows = await db(this.dataSource, tx).query<CardRow[]>(
      `SELECT ${CARD_COLUMNS} FROM flashcards f WHERE f.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  /** The deck's card count (call with the deck row locked). */
  async countCards(deckId: string, tx: Tx): Promise<number> {
    const rows = await tx.manager.query<{ n: number }[]>(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT cards_count AS n FROM flashcard_decks WHERE id = $1`,
      [deckId],
    );
    return rows[0]?.n ?? 0;
  }

  async nextPosition(deckId: string, tx: Tx): Promise<number> {
    const rows = await tx.manager.query<{ n: number }[]>(
      `SELECT coalesce(max(position), 0)::int + 1 AS n FROM flashcards WHERE deck_id = $1`,
      [deckId],
    );
    return rows[0].n;
  }

  async insertCard(values: Omit<CardRow, 'id' | 'created_at' | 'updated_at'>, now: Date, tx: Tx): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO flashcards (deck_id, lesson_id, position, front_md, back_md, front_html, back_html, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id`,
      [
        values.deck_id,
        values.lesson_id,
        values.position,
        values.front_md,
        values.back_md,
        values.front_html,
        values.back_html,
        now,
      ],
    );
    await tx.manager.query(
      `${tenancyExempt('by-key-after-scoped-read')} UPDATE flashcard_decks SET updated_at = $2, cards_count = cards_count + 1 WHERE id = $1`,
      [values.deck_id, now],
    );
    return rows[0].id;
  }

  async updateCard(id: string, changes: Partial<CardRow>, now: Date): Promise<void> {
    const sets: string[] = [];
    const params: unknown[] = [id, now];
    for (const key of ['lesson_id', 'position', 'front_md', 'back_md', 'front_html', 'back_html'] as const) {
      if (changes[key] !== undefined) sets.push(`${key} = $${params.push(changes[key])}`);
    }
    await this.dataSource.query(
      `UPDATE flashcards SET ${[...sets, 'updated_at = $2'].join(', ')} WHERE id = $1`,
      params,
    );
  }

  /** Deletes a card (its states and logs go with it) and counts it out of its deck, in one statement. */
  async deleteCard(id: string): Promise<void> {
    await this.dataSource.query(
      `${tenancyExempt('by-key-after-scoped-read')} WITH gone AS (DELETE FROM flashcards WHERE id = $1 RETURNING deck_id)
       UPDATE flashcard_decks d SET cards_count = d.cards_count - 1 FROM gone WHERE d.id = gone.deck_id`,
      [id],
    );
  }

  /** The course deck's cards for the editor: by lesson position (cards without a lesson last), then position. */
  async editorCards(
    deckId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: CardRow[]; total: number }> {
    const rows = await this.dataSource.query<(CardRow & { total: number })[]>(
      `SELECT ${CARD_COLUMNS}, count(*) OVER ()::int AS total
       FROM flashcards f LEFT JOIN lessons_read l ON l.id = f.lesson_id
       WHERE f.deck_id = $1
       ORDER BY l.position NULLS LAST, f.position, f.created_at, f.id
       LIMIT $2 OFFSET $3`,
      [deckId, page.limit, page.offset],
    );
    const total = rows[0]?.total ?? (page.offset > 0 ? await this.countDeck(deckId) : 0);
    return { rows: rows.map(({ total: _, ...r }) => r), total };
  }

  private async countDeck(deckId: string): Promise<number> {
    const rows = await this.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM flashcards WHERE deck_id = $1`,
      [deckId],
    );
    return rows[0].n;
  }

  /** A deck's cards with the person's states, by position. */
  async deckCards(
    organizationId: string,
    userId: string,
    deckId: string,
    page: { limit: number; offset: number },
  ): Promise<{ rows: CardWithState[]; total: number }> {
    const rows = await this.dataSource.query<{ card: CardRow; state: StateRow | null; total: number }[]>(
      `SELECT to_jsonb(f) AS card, CASE WHEN s.card_id IS NULL THEN NULL ELSE to_jsonb(s) END AS state,
         count(*) OVER ()::int AS total
       FROM flashcards f
       LEFT JOIN flashcard_states s ON s.card_id = f.id AND ${orgEq(1, 's')} AND s.user_id = $2
       WHERE f.deck_id = $3
       ORDER BY f.position, f.created_at, f.id
       LIMIT $4 OFFSET $5`,
      [organizationId, userId, deckId, page.limit, page.offset],
    );
    const total = rows[0]?.total ?? (page.offset > 0 ? await this.countDeck(deckId) : 0);
    return { rows: rows.map((r) => withState(r.card, r.state)), total };
  }

  /** Cards with the person's states, in the order of `ids`. */
  async cardsWithState(organizationId: string, userId: string, ids: string[], tx?: Tx): Promise<CardWithState[]> {
    if (ids.length === 0) return [];
    const rows = await db(this.dataSource, tx).query<{ card: CardRow; state: StateRow | null }[]>(
      `SELECT to_jsonb(f) AS card, CASE WHEN s.card_id IS NULL THEN NULL ELSE to_jsonb(s) END AS state
       FROM flashcards f
       LEFT JOIN flashcard_states s ON s.card_id = f.id AND ${orgEq(1, 's')} AND s.user_id = $2
       WHERE f.id = ANY($3::uuid[])`,
      [organizationId, userId, ids],
    );
    const byId = new Map(rows.map((r) => [r.card.id, withState(r.card, r.state)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  // The queue (6.2).

  /**
   * The queue's parts: due cards (one index scan, stopping at `limit`), the counts (the decks' card counts and one
   * index of the states), then new cards deck by deck in deck order, only in decks that still have new cards.
   */
  async dueQueue(
    organizationId: string,
    userId: string,
    deckId: string | null,
    now: Date,
    today: string,
    limit: number,
    newPerDay: number,
  ): Promise<{ dueIds: string[]; newIds: string[]; dueTotal: number; newTotal: number; firstToday: number }> {
    const manager = this.dataSource.manager;
    const all = await manager.query<{ id: string; cards_count: number }[]>(
      `WITH decks AS (${STUDYABLE}) SELECT id, cards_count FROM decks ORDER BY grp, sort_title, created_at, id`,
      [organizationId, userId],
    );
    const decks = deckId ? all.filter((d) => d.id === deckId) : all;
    const ids = decks.map((d) => d.id);
    if (ids.length === 0) return { dueIds: [], newIds: [], dueTotal: 0, newTotal: 0, firstToday: 0 };
    const [due, counts, firstToday] = await Promise.all([
      manager.query<{ card_id: string }[]>(
        `SELECT card_id FROM flashcard_states
         WHERE ${orgEq(1)} AND user_id = $2 AND due_at <= $3 AND deck_id = ANY($4::uuid[])
         ORDER BY due_at, card_id
         LIMIT $5`,
        [organizationId, userId, now, ids, limit],
      ),
      manager.query<{ deck_id: string; reviewed: number; due: number }[]>(
        `SELECT deck_id, count(*)::int AS reviewed, count(*) FILTER (WHERE due_at <= $3)::int AS due
         FROM flashcard_states WHERE ${orgEq(1)} AND user_id = $2 AND deck_id = ANY($4::uuid[])
         GROUP BY deck_id`,
        [organizationId, userId, now, ids],
      ),
      manager.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM flashcard_states
         WHERE ${orgEq(1)} AND user_id = $2 AND first_review_on = $3::date`,
        [organizationId, userId, today],
      ),
    ]);
    const reviewed = new Map(counts.map((c) => [c.deck_id, c.reviewed]));
    const fresh = decks.map((d) => ({ id: d.id, new: Math.max(0, d.cards_count - (reviewed.get(d.id) ?? 0)) }));
    const dueIds = due.map((r) => r.card_id);
    let wanted = Math.min(limit - dueIds.length, Math.max(0, newPerDay - firstToday[0].n));
    const newIds: string[] = [];
    for (const deck of fresh) {
      if (wanted <= 0) break;
      if (deck.new === 0) continue;
      const rows = await manager.query<{ id: string }[]>(
        `SELECT f.id FROM flashcards f
         WHERE f.deck_id = $3 AND NOT EXISTS (SELECT 1 FROM flashcard_states s
           WHERE ${orgEq(1, 's')} AND s.user_id = $2 AND s.card_id = f.id)
         ORDER BY f.position, f.id
         LIMIT $4`,
        [organizationId, userId, deck.id, wanted],
      );
      newIds.push(...rows.map((r) => r.id));
      wanted -= rows.length;
    }
    return {
      dueIds,
      newIds,
      dueTotal: counts.reduce((a, c) => a + c.due, 0),
      newTotal: fresh.reduce((a, d) => a + d.new, 0),
      firstToday: firstToday[0].n,
    };
  }

  // Reviews.

  /** Serializes a person's reviews and scheduler changes (all organizations): a change replays every state. */
  async lockLearner(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`flashcards:learner:${userId}`]);
  }

  async reviewByClientId(userId: string, clientReviewId: string, tx?: Tx): Promise<ReviewRow | null> {
    const rows = await db(this.dataSource, tx).query<ReviewRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT id, card_id, grade, scheduler, reviewed_at, state_after FROM flashcard_reviews
       WHERE user_id = $1 AND client_review_id = $2`,
      [userId, clientReviewId],
    );
    return rows[0] ?? null;
  }

  async lockState(organizationId: string, userId: string, cardId: string, tx: Tx): Promise<StateRow | null> {
    const rows = await tx.manager.query<StateRow[]>(
      `SELECT ${STATE_COLUMNS} FROM flashcard_states s
       WHERE ${orgEq(1, 's')} AND s.user_id = $2 AND s.card_id = $3 FOR UPDATE`,
      [organizationId, userId, cardId],
    );
    return rows[0] ?? null;
  }

  async writeState(w: StateWrite, tx: Tx): Promise<void> {
    await tx.manager.query(
      `INSERT INTO flashcard_states (organization_id, user_id, card_id, scheduler, reviews, lapses, ever_correct,
         first_reviewed_at, first_review_on, last_reviewed_at, due_on, due_at, sm2, fsrs, deck_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (organization_id, user_id, card_id) DO UPDATE SET scheduler = EXCLUDED.scheduler,
         reviews = EXCLUDED.reviews, lapses = EXCLUDED.lapses, ever_correct = EXCLUDED.ever_correct,
         last_reviewed_at = EXCLUDED.last_reviewed_at, due_on = EXCLUDED.due_on, due_at = EXCLUDED.due_at,
         sm2 = EXCLUDED.sm2, fsrs = EXCLUDED.fsrs`,
      [
        w.organizationId,
        w.userId,
        w.cardId,
        w.scheduler,
        w.reviews,
        w.lapses,
        w.everCorrect,
        w.firstReviewedAt,
        w.firstReviewOn,
        w.lastReviewedAt,
        w.dueOn,
        w.dueAt,
        w.sm2 === null ? null : JSON.stringify(w.sm2),
        w.fsrs === null ? null : JSON.stringify(w.fsrs),
        w.deckId,
      ],
    );
  }

  async insertReview(
    r: {
      organizationId: string;
      userId: string;
      cardId: string;
      deckId: string;
      grade: number;
      scheduler: SchedulerName;
      reviewedAt: Date;
      durationMs: number | null;
      clientReviewId: string | null;
      before: object | null;
      after: object;
    },
    tx: Tx,
  ): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO flashcard_reviews (organization_id, user_id, card_id, deck_id, grade, scheduler, reviewed_at,
         duration_ms, client_review_id, state_before, state_after)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
      [
        r.organizationId,
        r.userId,
        r.cardId,
        r.deckId,
        r.grade,
        r.scheduler,
        r.reviewedAt,
        r.durationMs,
        r.clientReviewId,
        r.before === null ? null : JSON.stringify(r.before),
        JSON.stringify(r.after),
      ],
    );
    return rows[0].id;
  }

  /** Every review of the person (all organizations), by card then time: the replay's input. */
  /** The review logs of these cards of the person, oldest first (`flashcard_reviews_card_idx`). */
  async reviewLogOf(
    userId: string,
    cards: readonly { organization_id: string; card_id: string }[],
    tx: Tx,
  ): Promise<LogEntry[]> {
    if (cards.length === 0) return [];
    return tx.manager.query(
      `${tenancyExempt('by-key-after-scoped-read')} SELECT r.organization_id, r.card_id, r.grade, r.reviewed_at FROM flashcard_reviews r
       JOIN unnest($2::uuid[], $3::uuid[]) AS c(organization_id, card_id)
         ON r.organization_id = c.organization_id AND r.card_id = c.card_id
       WHERE r.user_id = $1 ORDER BY r.organization_id, r.card_id, r.reviewed_at, r.id`,
      [userId, cards.map((c) => c.organization_id), cards.map((c) => c.card_id)],
    );
  }

  /** One batch of the person's card states after `after`, in (organization, card) order. */
  async statesPage(
    userId: string,
    after: { organization_id: string; card_id: string } | null,
    limit: number,
    tx: Tx,
  ): Promise<StateRow[]> {
    return tx.manager.query<StateRow[]>(
      `${tenancyExempt('person-across-organizations')} SELECT ${STATE_COLUMNS} FROM flashcard_states s
       WHERE s.user_id = $1 AND ($2::uuid IS NULL OR (s.organization_id, s.card_id) > ($2::uuid, $3::uuid))
       ORDER BY s.organization_id, s.card_id LIMIT $4`,
      [userId, after?.organization_id ?? null, after?.card_id ?? null, limit],
    );
  }

  async countStates(userId: string, tx: Tx): Promise<number> {
    const rows = await tx.manager.query<{ n: number }[]>(
      `${tenancyExempt('person-across-organizations')} SELECT count(*)::int AS n FROM flashcard_states WHERE user_id = $1`,
      [userId],
    );
    return rows[0]?.n ?? 0;
  }

  /** Ends a rescheduling, unless a newer change started another. */
  async finishRescheduling(userId: string, generation: number, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE flashcard_settings SET rescheduling = false WHERE user_id = $1 AND reschedule_generation = $2`,
      [userId, generation],
    );
  }

  // Settings.

  async settings(userId: string, tx?: Tx): Promise<SettingsRow | null> {
    const rows = await db(this.dataSource, tx).query<SettingsRow[]>(
      `SELECT scheduler, desired_retention::float8 AS desired_retention, new_cards_per_day, rescheduling,
         reschedule_generation
       FROM flashcard_settings WHERE user_id = $1`,
      [userId],
    );
    return rows[0] ?? null;
  }

  async saveSettings(userId: string, s: SettingsRow, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `INSERT INTO flashcard_settings (user_id, scheduler, desired_retention, new_cards_per_day, updated_at,
         rescheduling, reschedule_generation)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (user_id) DO UPDATE SET scheduler = EXCLUDED.scheduler,
         desired_retention = EXCLUDED.desired_retention, new_cards_per_day = EXCLUDED.new_cards_per_day,
         updated_at = EXCLUDED.updated_at, rescheduling = EXCLUDED.rescheduling,
         reschedule_generation = EXCLUDED.reschedule_generation`,
      [userId, s.scheduler, s.desired_retention, s.new_cards_per_day, now, s.rescheduling, s.reschedule_generation],
    );
  }
}

/** A card and a state read as JSON (`to_jsonb`): times back as dates. */
function withState(card: CardRow, state: StateRow | null): CardWithState {
  const c: CardRow = { ...card, created_at: new Date(card.created_at), updated_at: new Date(card.updated_at) };
  if (!state) return { ...c, state: null };
  return {
    ...c,
    state: {
      ...state,
      first_reviewed_at: new Date(state.first_reviewed_at),
      last_reviewed_at: new Date(state.last_reviewed_at),
      due_at: new Date(state.due_at),
    },
  };
}
