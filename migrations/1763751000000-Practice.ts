import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Practice (extensions-v2 sections 6, 7 and 10): flashcard decks, cards, each person's card states, the append-only
 * review log and the scheduler settings; single-player games with the questions drawn for them; personal notes per
 * lesson. Every person-owned row references the membership (or the user, for settings), so leaving an organization
 * or erasing the account removes it.
 */
export class Practice1763751000000 implements MigrationInterface {
  name = 'Practice1763751000000';

  async up(q: QueryRunner): Promise<void> {
    // One course deck per course (platform data, authored by editors); personal decks per person and organization.
    await q.query(`
      CREATE TABLE flashcard_decks (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('course', 'personal')),
        course_id uuid NULL REFERENCES courses (id) ON DELETE CASCADE,
        organization_id uuid NULL,
        user_id uuid NULL,
        title text NULL CHECK (char_length(title) BETWEEN 1 AND 120),
        description text NULL CHECK (char_length(description) <= 500),
        cards_count integer NOT NULL DEFAULT 0 CHECK (cards_count >= 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((kind = 'course' AND course_id IS NOT NULL AND organization_id IS NULL AND user_id IS NULL)
            OR (kind = 'personal' AND course_id IS NULL AND organization_id IS NOT NULL AND user_id IS NOT NULL
                AND title IS NOT NULL)),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE UNIQUE INDEX flashcard_decks_course_uq ON flashcard_decks (course_id) WHERE kind = 'course'`);
    await q.query(
      `CREATE INDEX flashcard_decks_owner_idx ON flashcard_decks (organization_id, user_id, created_at, id) WHERE kind = 'personal'`,
    );
    await q.query(`CREATE INDEX flashcard_decks_user_idx ON flashcard_decks (user_id) WHERE user_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE flashcards (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        deck_id uuid NOT NULL REFERENCES flashcard_decks (id) ON DELETE CASCADE,
        lesson_id uuid NULL REFERENCES lessons (id) ON DELETE SET NULL,
        position integer NOT NULL CHECK (position >= 1),
        front_md text NOT NULL CHECK (char_length(front_md) BETWEEN 1 AND 2000),
        back_md text NOT NULL CHECK (char_length(back_md) BETWEEN 1 AND 2000),
        front_html text NOT NULL,
        back_html text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX flashcards_deck_idx ON flashcards (deck_id, position, id)`);
    await q.query(`CREATE INDEX flashcards_lesson_idx ON flashcards (lesson_id) WHERE lesson_id IS NOT NULL`);

    // A person's state of a card in an organization (a course deck is studied separately in each organization);
    // `deck_id` is the card's (cards never change deck), kept here so the queue's counts read one index.
    // `cards_count` of a deck is maintained by the card writes, under the deck's row lock.
    await q.query(`
      CREATE TABLE flashcard_states (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        card_id uuid NOT NULL REFERENCES flashcards (id) ON DELETE CASCADE,
        deck_id uuid NOT NULL,
        scheduler text NOT NULL CHECK (scheduler IN ('sm2', 'fsrs')),
        reviews integer NOT NULL DEFAULT 0 CHECK (reviews >= 0),
        lapses integer NOT NULL DEFAULT 0 CHECK (lapses >= 0),
        ever_correct boolean NOT NULL DEFAULT false,
        first_reviewed_at timestamptz NOT NULL,
        first_review_on date NOT NULL,
        last_reviewed_at timestamptz NOT NULL,
        due_on date NOT NULL,
        due_at timestamptz NOT NULL,
        sm2 jsonb NULL,
        fsrs jsonb NULL,
        PRIMARY KEY (organization_id, user_id, card_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX flashcard_states_due_idx ON flashcard_states (organization_id, user_id, due_at, card_id)`,
    );
    await q.query(
      `CREATE INDEX flashcard_states_first_idx ON flashcard_states (organization_id, user_id, first_review_on)`,
    );
    await q.query(`CREATE INDEX flashcard_states_user_idx ON flashcard_states (user_id)`);
    await q.query(`CREATE INDEX flashcard_states_card_idx ON flashcard_states (card_id)`);

    // Append-only: every review with the state before and after, so schedulers can be replayed and optimised.
    await q.query(`
      CREATE TABLE flashcard_reviews (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        card_id uuid NOT NULL REFERENCES flashcards (id) ON DELETE CASCADE,
        deck_id uuid NOT NULL,
        grade integer NOT NULL CHECK (grade BETWEEN 0 AND 5),
        scheduler text NOT NULL CHECK (scheduler IN ('sm2', 'fsrs')),
        reviewed_at timestamptz NOT NULL,
        duration_ms integer NULL CHECK (duration_ms BETWEEN 0 AND 600000),
        client_review_id uuid NULL,
        state_before jsonb NULL,
        state_after jsonb NOT NULL,
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX flashcard_reviews_card_idx ON flashcard_reviews (user_id, organization_id, card_id, reviewed_at, id)`,
    );
    await q.query(`CREATE INDEX flashcard_reviews_card_fk_idx ON flashcard_reviews (card_id)`);
    await q.query(
      `CREATE UNIQUE INDEX flashcard_reviews_client_uq ON flashcard_reviews (user_id, client_review_id) WHERE client_review_id IS NOT NULL`,
    );

    await q.query(`
      CREATE TABLE flashcard_settings (
        user_id uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        scheduler text NOT NULL DEFAULT 'sm2' CHECK (scheduler IN ('sm2', 'fsrs')),
        desired_retention numeric(3, 2) NOT NULL DEFAULT 0.90 CHECK (desired_retention BETWEEN 0.70 AND 0.97),
        new_cards_per_day integer NOT NULL DEFAULT 20 CHECK (new_cards_per_day BETWEEN 0 AND 200),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    // Personal notes: one per person, organization and lesson.
    await q.query(`
      CREATE TABLE lesson_notes (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        lesson_id uuid NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
        content_md text NOT NULL CHECK (char_length(content_md) BETWEEN 1 AND 20000),
        version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        PRIMARY KEY (organization_id, user_id, lesson_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX lesson_notes_list_idx ON lesson_notes (organization_id, user_id, updated_at DESC, lesson_id)`,
    );
    await q.query(`CREATE INDEX lesson_notes_user_idx ON lesson_notes (user_id)`);
    await q.query(`CREATE INDEX lesson_notes_lesson_idx ON lesson_notes (lesson_id)`);
    await q.query(`CREATE INDEX lesson_notes_course_idx ON lesson_notes (course_id)`);

    // Single-player games and the questions drawn for each (a snapshot: an edited quiz changes no game).
    await q.query(`
      CREATE TABLE games (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        mode text NOT NULL CHECK (mode IN ('survival', 'speed', 'risk')),
        course_id uuid NULL REFERENCES courses (id) ON DELETE SET NULL,
        status text NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'finished', 'abandoned')),
        score integer NOT NULL DEFAULT 0 CHECK (score >= 0),
        lives integer NULL CHECK (lives >= 0),
        questions_total integer NOT NULL CHECK (questions_total >= 0),
        questions_answered integer NOT NULL DEFAULT 0 CHECK (questions_answered >= 0),
        correct_answers integer NOT NULL DEFAULT 0 CHECK (correct_answers >= 0),
        started_at timestamptz NOT NULL,
        ends_at timestamptz NULL,
        touched_at timestamptz NOT NULL,
        finished_at timestamptz NULL,
        end_reason text NULL CHECK (end_reason IN ('lives_exhausted', 'time_up', 'questions_exhausted',
          'question_limit', 'points_exhausted', 'abandoned')),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE UNIQUE INDEX games_in_progress_uq ON games (organization_id, user_id) WHERE status = 'in_progress'`,
    );
    await q.query(`CREATE INDEX games_list_idx ON games (organization_id, user_id, started_at DESC, id)`);
    await q.query(`CREATE INDEX games_idle_idx ON games (touched_at) WHERE status = 'in_progress'`);
    await q.query(
      `CREATE INDEX games_board_idx ON games (organization_id, mode, finished_at, score DESC) WHERE status = 'finished'`,
    );
    await q.query(`CREATE INDEX games_user_idx ON games (user_id)`);
    await q.query(`CREATE INDEX games_course_idx ON games (course_id) WHERE course_id IS NOT NULL`);

    await q.query(`
      CREATE TABLE game_questions (
        game_id uuid NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        number integer NOT NULL CHECK (number >= 1),
        question_id uuid NOT NULL,
        question jsonb NOT NULL,
        served_at timestamptz NULL,
        deadline_at timestamptz NULL,
        answered_at timestamptz NULL,
        option_ids uuid[] NULL,
        wager integer NULL,
        correct boolean NULL,
        timed_out boolean NULL,
        points_delta integer NULL,
        PRIMARY KEY (game_id, number)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS game_questions`);
    await q.query(`DROP TABLE IF EXISTS games`);
    await q.query(`DROP TABLE IF EXISTS lesson_notes`);
    await q.query(`DROP TABLE IF EXISTS flashcard_settings`);
    await q.query(`DROP TABLE IF EXISTS flashcard_reviews`);
    await q.query(`DROP TABLE IF EXISTS flashcard_states`);
    await q.query(`DROP TABLE IF EXISTS flashcards`);
    await q.query(`DROP TABLE IF EXISTS flashcard_decks`);
  }
}
