import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Proctored exams (extensions-v2 section 9): the exams of a course with their question pool, the windows in which an
 * organization opens them, sessions with the snapshot of their drawn questions, autosaved answers and proctoring
 * events.
 */
export class Exams1763753000000 implements MigrationInterface {
  name = 'Exams1763753000000';

  async up(q: QueryRunner): Promise<void> {
    // The pool is read and written whole (replaced on edit, drawn from at start), never queried by question: one
    // document. Question and option ids are assigned by the service and kept by the session snapshots.
    await q.query(`
      CREATE TABLE exams (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        instructions_md text NOT NULL DEFAULT '' CHECK (char_length(instructions_md) <= 20000),
        duration_minutes integer NOT NULL CHECK (duration_minutes BETWEEN 1 AND 600),
        passing_score integer NOT NULL CHECK (passing_score BETWEEN 0 AND 100),
        questions_per_attempt integer NOT NULL CHECK (questions_per_attempt BETWEEN 1 AND 200),
        max_attempts integer NOT NULL DEFAULT 1 CHECK (max_attempts BETWEEN 1 AND 10),
        shuffle_questions boolean NOT NULL DEFAULT true,
        shuffle_options boolean NOT NULL DEFAULT true,
        show_results text NOT NULL DEFAULT 'score' CHECK (show_results IN ('none', 'score', 'full')),
        required_for_completion boolean NOT NULL DEFAULT false,
        fullscreen_required boolean NOT NULL DEFAULT false,
        max_focus_losses integer NOT NULL DEFAULT 3 CHECK (max_focus_losses BETWEEN 0 AND 100),
        flag_paste boolean NOT NULL DEFAULT true,
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published')),
        questions jsonb NOT NULL CHECK (jsonb_typeof(questions) = 'array'),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (jsonb_array_length(questions) BETWEEN 1 AND 500),
        CHECK (questions_per_attempt <= jsonb_array_length(questions))
      )`);
    // The editor's list (by creation) and the organization's cards of a course.
    await q.query(`CREATE INDEX exams_course_idx ON exams (course_id, created_at, id)`);
    // The completion rule of 9.8 and the cards: published exams of a course.
    await q.query(`CREATE INDEX exams_published_idx ON exams (course_id) WHERE status = 'published'`);

    await q.query(`
      CREATE TABLE exam_windows (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        exam_id uuid NOT NULL REFERENCES exams (id) ON DELETE CASCADE,
        cohort_id uuid NULL,
        opens_at timestamptz NOT NULL,
        closes_at timestamptz NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK (closes_at IS NULL OR closes_at > opens_at),
        FOREIGN KEY (organization_id, cohort_id) REFERENCES cohorts (organization_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX exam_windows_exam_idx ON exam_windows (organization_id, exam_id, opens_at, id)`);
    // The ON DELETE CASCADE from cohorts, and the erasure of a window's author.
    await q.query(`CREATE INDEX exam_windows_cohort_idx ON exam_windows (organization_id, cohort_id)`);
    await q.query(`CREATE INDEX exam_windows_created_by_idx ON exam_windows (created_by) WHERE created_by IS NOT NULL`);

    await q.query(`
      CREATE TABLE exam_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        exam_id uuid NOT NULL REFERENCES exams (id) ON DELETE RESTRICT,
        course_id uuid NOT NULL,
        user_id uuid NOT NULL,
        attempt integer NOT NULL CHECK (attempt >= 1),
        status text NOT NULL DEFAULT 'in_progress' CHECK (status IN ('in_progress', 'submitted')),
        submitted_by text NULL CHECK (submitted_by IN ('learner', 'deadline')),
        started_at timestamptz NOT NULL,
        deadline_at timestamptz NOT NULL,
        submitted_at timestamptz NULL,
        passing_score integer NOT NULL CHECK (passing_score BETWEEN 0 AND 100),
        fullscreen_required boolean NOT NULL,
        max_focus_losses integer NOT NULL CHECK (max_focus_losses BETWEEN 0 AND 100),
        flag_paste boolean NOT NULL,
        score integer NULL CHECK (score BETWEEN 0 AND 100),
        passed boolean NULL,
        violations integer NOT NULL DEFAULT 0 CHECK (violations >= 0),
        flags jsonb NOT NULL DEFAULT '[]',
        flagged boolean GENERATED ALWAYS AS (jsonb_array_length(flags) > 0) STORED,
        client_fingerprints text[] NOT NULL DEFAULT '{}',
        review_status text NOT NULL DEFAULT 'none' CHECK (review_status IN ('none', 'pending', 'accepted', 'voided')),
        review_reason text NULL CHECK (char_length(review_reason) BETWEEN 1 AND 500),
        review_allow_retake boolean NULL,
        reviewed_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        reviewed_at timestamptz NULL,
        counts_as_attempt boolean NOT NULL DEFAULT true,
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE,
        CHECK ((status = 'submitted') = (submitted_at IS NOT NULL AND submitted_by IS NOT NULL AND score IS NOT NULL))
      )`);
    // One session in progress per person and exam, and one row per attempt number: concurrent starts end in one.
    await q.query(
      `CREATE UNIQUE INDEX exam_sessions_active_uq ON exam_sessions (organization_id, exam_id, user_id)
       WHERE status = 'in_progress'`,
    );
    await q.query(
      `CREATE UNIQUE INDEX exam_sessions_attempt_uq ON exam_sessions (organization_id, exam_id, user_id, attempt)`,
    );
    // A person's sessions in an organization: cards, the completion rule, the memberships cascade.
    await q.query(`CREATE INDEX exam_sessions_member_idx ON exam_sessions (organization_id, user_id, exam_id)`);
    // Staff lists, most recent first, and each of their filters. Led by the exam so that the first one also answers
    // "does this exam have sessions anywhere" (exam_in_use) and serves the restricting foreign key.
    await q.query(
      `CREATE INDEX exam_sessions_exam_idx ON exam_sessions (exam_id, organization_id, started_at DESC, id)`,
    );
    await q.query(
      `CREATE INDEX exam_sessions_status_idx ON exam_sessions (exam_id, organization_id, status, started_at DESC, id)`,
    );
    await q.query(
      `CREATE INDEX exam_sessions_review_idx ON exam_sessions (exam_id, organization_id, review_status, started_at DESC, id)`,
    );
    await q.query(
      `CREATE INDEX exam_sessions_flagged_idx ON exam_sessions (exam_id, organization_id, started_at DESC, id) WHERE flagged`,
    );
    // The safety-net schedule: sessions still open, by deadline.
    await q.query(`CREATE INDEX exam_sessions_overdue_idx ON exam_sessions (deadline_at) WHERE status = 'in_progress'`);
    // Export and erasure of a person, across organizations.
    await q.query(`CREATE INDEX exam_sessions_user_idx ON exam_sessions (user_id)`);
    await q.query(
      `CREATE INDEX exam_sessions_reviewed_by_idx ON exam_sessions (reviewed_by) WHERE reviewed_by IS NOT NULL`,
    );

    // The questions a session drew, in its order, with its shuffled options (`[{id, text, correct}]`): editing the
    // exam later never changes them. Keyed by question so an autosave checks its question with one index read.
    await q.query(`
      CREATE TABLE exam_session_questions (
        session_id uuid NOT NULL REFERENCES exam_sessions (id) ON DELETE CASCADE,
        question_id uuid NOT NULL,
        organization_id uuid NOT NULL,
        position integer NOT NULL CHECK (position >= 1),
        prompt text NOT NULL,
        kind text NOT NULL CHECK (kind IN ('single', 'multiple', 'true_false')),
        explanation text NULL,
        options jsonb NOT NULL,
        PRIMARY KEY (session_id, question_id),
        UNIQUE (session_id, position)
      )`);

    await q.query(`
      CREATE TABLE exam_answers (
        session_id uuid NOT NULL,
        question_id uuid NOT NULL,
        organization_id uuid NOT NULL,
        option_ids uuid[] NOT NULL,
        seq bigint NOT NULL CHECK (seq >= 0),
        saved_at timestamptz NOT NULL,
        PRIMARY KEY (session_id, question_id),
        FOREIGN KEY (session_id, question_id) REFERENCES exam_session_questions (session_id, question_id) ON DELETE CASCADE
      )`);

    await q.query(`
      CREATE TABLE exam_proctoring_events (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        session_id uuid NOT NULL REFERENCES exam_sessions (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL,
        type text NOT NULL CHECK (type IN ('focus_lost', 'visibility_hidden', 'fullscreen_exit', 'paste', 'focus_gained',
          'visibility_visible', 'fullscreen_enter', 'copy', 'context_menu', 'network_offline', 'network_online', 'heartbeat')),
        occurred_at timestamptz NOT NULL,
        received_at timestamptz NOT NULL,
        ordinal integer NOT NULL CHECK (ordinal >= 0),
        detail text NULL CHECK (char_length(detail) <= 200),
        counted boolean NOT NULL
      )`);
    // The staff list of a session's events, by reception (then their order in the batch).
    await q.query(
      `CREATE INDEX exam_proctoring_events_session_idx ON exam_proctoring_events (session_id, received_at, ordinal)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE exam_proctoring_events`);
    await q.query(`DROP TABLE exam_answers`);
    await q.query(`DROP TABLE exam_session_questions`);
    await q.query(`DROP TABLE exam_sessions`);
    await q.query(`DROP TABLE exam_windows`);
    await q.query(`DROP TABLE exams`);
  }
}
