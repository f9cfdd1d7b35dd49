import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shared catalog (courses, lessons, quizzes, learning paths and programs), learning inside an organization
 * (enrollments, lesson completions, quiz submissions, ratings, capstones, program completions, badges) and
 * issued certificates. Full-text search uses accent-insensitive Spanish and English configurations.
 */
export class LearningCore1763741300000 implements MigrationInterface {
  name = 'LearningCore1763741300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS unaccent`);
    for (const [name, lang] of [
      ['es_unaccent', 'spanish'],
      ['en_unaccent', 'english'],
    ]) {
      await q.query(`CREATE TEXT SEARCH CONFIGURATION ${name} (COPY = ${lang})`);
      await q.query(
        `ALTER TEXT SEARCH CONFIGURATION ${name} ALTER MAPPING FOR hword, hword_part, word WITH unaccent, ${lang}_stem`,
      );
    }

    await q.query(`
      CREATE TABLE courses (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug text NOT NULL CHECK (slug ~ '^[a-z0-9-]{3,80}$'),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        summary text NOT NULL DEFAULT '' CHECK (char_length(summary) <= 500),
        description_md text NOT NULL DEFAULT '' CHECK (char_length(description_md) <= 20000),
        language text NOT NULL CHECK (language IN ('es', 'en')),
        level text NOT NULL CHECK (level IN ('beginner', 'intermediate', 'advanced')),
        tags text[] NOT NULL DEFAULT '{}',
        visibility text NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'restricted')),
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'unpublished')),
        issues_certificate boolean NOT NULL DEFAULT false,
        estimated_minutes integer NOT NULL DEFAULT 0 CHECK (estimated_minutes BETWEEN 0 AND 100000),
        published_at timestamptz NULL,
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        search_vector tsvector GENERATED ALWAYS AS (
          CASE language WHEN 'es' THEN
            setweight(to_tsvector('es_unaccent'::regconfig, title), 'A') ||
            setweight(to_tsvector('es_unaccent'::regconfig, summary), 'B') ||
            setweight(to_tsvector('es_unaccent'::regconfig, description_md), 'C')
          ELSE
            setweight(to_tsvector('en_unaccent'::regconfig, title), 'A') ||
            setweight(to_tsvector('en_unaccent'::regconfig, summary), 'B') ||
            setweight(to_tsvector('en_unaccent'::regconfig, description_md), 'C')
          END) STORED
      )`);
    await q.query(`CREATE UNIQUE INDEX courses_slug_uq ON courses (slug)`);
    await q.query(`CREATE INDEX courses_catalog_idx ON courses (status, visibility, published_at DESC, id)`);
    await q.query(`CREATE INDEX courses_search_idx ON courses USING gin (search_vector)`);
    await q.query(`CREATE INDEX courses_tags_idx ON courses USING gin (tags)`);

    await q.query(`
      CREATE TABLE course_organizations (
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        PRIMARY KEY (course_id, organization_id)
      )`);
    await q.query(`CREATE INDEX course_organizations_org_idx ON course_organizations (organization_id, course_id)`);

    await q.query(`
      CREATE TABLE lessons (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        position integer NOT NULL CHECK (position >= 1),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        content_md text NOT NULL DEFAULT '' CHECK (char_length(content_md) <= 100000),
        estimated_minutes integer NOT NULL DEFAULT 0 CHECK (estimated_minutes BETWEEN 0 AND 10000),
        language text NOT NULL CHECK (language IN ('es', 'en')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        search_vector tsvector GENERATED ALWAYS AS (
          CASE language WHEN 'es' THEN
            setweight(to_tsvector('es_unaccent'::regconfig, title), 'A') || setweight(to_tsvector('es_unaccent'::regconfig, content_md), 'B')
          ELSE
            setweight(to_tsvector('en_unaccent'::regconfig, title), 'A') || setweight(to_tsvector('en_unaccent'::regconfig, content_md), 'B')
          END) STORED,
        UNIQUE (course_id, position) DEFERRABLE INITIALLY IMMEDIATE
      )`);
    await q.query(`CREATE INDEX lessons_search_idx ON lessons USING gin (search_vector)`);

    await q.query(`
      CREATE TABLE quizzes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        lesson_id uuid NOT NULL UNIQUE REFERENCES lessons (id) ON DELETE CASCADE,
        passing_score integer NOT NULL CHECK (passing_score BETWEEN 0 AND 100)
      )`);
    await q.query(`
      CREATE TABLE quiz_questions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        quiz_id uuid NOT NULL REFERENCES quizzes (id) ON DELETE CASCADE,
        position integer NOT NULL,
        prompt text NOT NULL CHECK (char_length(prompt) BETWEEN 1 AND 2000),
        kind text NOT NULL CHECK (kind IN ('single', 'multiple', 'true_false')),
        explanation text NULL CHECK (char_length(explanation) <= 2000),
        UNIQUE (quiz_id, position)
      )`);
    await q.query(`
      CREATE TABLE quiz_options (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        question_id uuid NOT NULL REFERENCES quiz_questions (id) ON DELETE CASCADE,
        position integer NOT NULL,
        text text NOT NULL CHECK (char_length(text) BETWEEN 1 AND 500),
        correct boolean NOT NULL,
        UNIQUE (question_id, position)
      )`);

    await q.query(`
      CREATE TABLE enrollments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'completed')),
        enrolled_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz NULL,
        last_activity_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE,
        UNIQUE (organization_id, user_id, course_id)
      )`);
    await q.query(`CREATE INDEX enrollments_org_course_idx ON enrollments (organization_id, course_id)`);
    await q.query(`CREATE INDEX enrollments_user_idx ON enrollments (user_id, enrolled_at DESC)`);

    await q.query(`
      CREATE TABLE lesson_completions (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        lesson_id uuid NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
        completed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, user_id, lesson_id),
        FOREIGN KEY (organization_id, user_id, course_id) REFERENCES enrollments (organization_id, user_id, course_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX lesson_completions_course_idx ON lesson_completions (organization_id, course_id, user_id)`,
    );

    await q.query(`
      CREATE TABLE quiz_submissions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        lesson_id uuid NOT NULL REFERENCES lessons (id) ON DELETE CASCADE,
        quiz_id uuid NOT NULL REFERENCES quizzes (id) ON DELETE CASCADE,
        score integer NOT NULL CHECK (score BETWEEN 0 AND 100),
        passed boolean NOT NULL,
        answers jsonb NOT NULL,
        submitted_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (organization_id, user_id, course_id) REFERENCES enrollments (organization_id, user_id, course_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX quiz_submissions_lookup_idx ON quiz_submissions (organization_id, user_id, lesson_id, passed)`,
    );

    await q.query(`
      CREATE TABLE course_ratings (
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        stars integer NOT NULL CHECK (stars BETWEEN 1 AND 5),
        comment text NULL CHECK (char_length(comment) <= 1000),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (course_id, user_id)
      )`);

    await q.query(`
      CREATE TABLE learning_paths (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug text NOT NULL CHECK (slug ~ '^[a-z0-9-]{3,80}$'),
        title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 200),
        description_md text NOT NULL DEFAULT '' CHECK (char_length(description_md) <= 20000),
        kind text NOT NULL CHECK (kind IN ('path', 'program')),
        status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'unpublished')),
        visibility text NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'restricted')),
        issues_certificate boolean NOT NULL DEFAULT false,
        badge_name text NULL CHECK (char_length(badge_name) <= 120),
        badge_icon text NULL CHECK (char_length(badge_icon) <= 120),
        capstone_title text NULL CHECK (char_length(capstone_title) <= 200),
        capstone_instructions_md text NULL CHECK (char_length(capstone_instructions_md) <= 20000),
        capstone_passing_score integer NULL CHECK (capstone_passing_score BETWEEN 0 AND 100),
        created_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CHECK ((capstone_title IS NULL) = (capstone_passing_score IS NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX learning_paths_slug_uq ON learning_paths (slug)`);
    await q.query(`
      CREATE TABLE path_organizations (
        path_id uuid NOT NULL REFERENCES learning_paths (id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        PRIMARY KEY (path_id, organization_id)
      )`);
    await q.query(`
      CREATE TABLE path_courses (
        path_id uuid NOT NULL REFERENCES learning_paths (id) ON DELETE CASCADE,
        course_id uuid NOT NULL REFERENCES courses (id) ON DELETE RESTRICT,
        position integer NOT NULL,
        required boolean NOT NULL DEFAULT true,
        PRIMARY KEY (path_id, course_id)
      )`);
    await q.query(`CREATE INDEX path_courses_course_idx ON path_courses (course_id)`);

    await q.query(`
      CREATE TABLE capstone_submissions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        path_id uuid NOT NULL REFERENCES learning_paths (id) ON DELETE CASCADE,
        content_md text NOT NULL CHECK (char_length(content_md) BETWEEN 1 AND 20000),
        url text NULL CHECK (char_length(url) <= 512),
        status text NOT NULL DEFAULT 'submitted' CHECK (status IN ('submitted', 'passed', 'failed')),
        score integer NULL CHECK (score BETWEEN 0 AND 100),
        feedback text NULL CHECK (char_length(feedback) <= 5000),
        graded_by uuid NULL REFERENCES users (id) ON DELETE SET NULL,
        graded_at timestamptz NULL,
        submitted_at timestamptz NOT NULL DEFAULT now(),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX capstone_submissions_lookup_idx ON capstone_submissions (organization_id, path_id, user_id, submitted_at DESC)`,
    );

    await q.query(`
      CREATE TABLE program_completions (
        organization_id uuid NOT NULL,
        user_id uuid NOT NULL,
        path_id uuid NOT NULL REFERENCES learning_paths (id) ON DELETE CASCADE,
        completed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (organization_id, user_id, path_id),
        FOREIGN KEY (organization_id, user_id) REFERENCES memberships (organization_id, user_id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE badge_awards (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        path_id uuid NULL REFERENCES learning_paths (id) ON DELETE SET NULL,
        name text NOT NULL,
        icon text NULL,
        awarded_at timestamptz NOT NULL DEFAULT now(),
        UNIQUE (organization_id, user_id, path_id)
      )`);

    await q.query(`
      CREATE TABLE issued_certificates (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        code text NOT NULL,
        type text NOT NULL CHECK (type IN ('course', 'program')),
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'revoked', 'replaced')),
        organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE RESTRICT,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE RESTRICT,
        holder_name text NOT NULL CHECK (char_length(holder_name) BETWEEN 1 AND 255),
        course_id uuid NULL REFERENCES courses (id) ON DELETE RESTRICT,
        path_id uuid NULL REFERENCES learning_paths (id) ON DELETE RESTRICT,
        cohort_id uuid NULL REFERENCES cohorts (id) ON DELETE SET NULL,
        title text NOT NULL,
        grade integer NULL CHECK (grade BETWEEN 0 AND 100),
        issued_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz NULL,
        revoke_reason text NULL CHECK (char_length(revoke_reason) <= 500),
        replaced_by_id uuid NULL REFERENCES issued_certificates (id) ON DELETE SET NULL,
        replaces_id uuid NULL REFERENCES issued_certificates (id) ON DELETE SET NULL,
        reissue_reason text NULL CHECK (char_length(reissue_reason) <= 500),
        CHECK ((type = 'course' AND course_id IS NOT NULL AND path_id IS NULL) OR (type = 'program' AND path_id IS NOT NULL AND course_id IS NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX issued_certificates_code_uq ON issued_certificates (code)`);
    // Issuing is idempotent: one active certificate per person, organization and course or program.
    await q.query(`CREATE UNIQUE INDEX issued_certificates_one_course_uq ON issued_certificates (organization_id, user_id, course_id)
      WHERE type = 'course' AND status = 'active'`);
    await q.query(`CREATE UNIQUE INDEX issued_certificates_one_program_uq ON issued_certificates (organization_id, user_id, path_id)
      WHERE type = 'program' AND status = 'active'`);
    await q.query(
      `CREATE INDEX issued_certificates_org_idx ON issued_certificates (organization_id, issued_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX issued_certificates_org_course_idx ON issued_certificates (organization_id, course_id, issued_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX issued_certificates_org_path_idx ON issued_certificates (organization_id, path_id, issued_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX issued_certificates_org_status_idx ON issued_certificates (organization_id, status, type, issued_at DESC, id DESC)`,
    );
    await q.query(
      `CREATE INDEX issued_certificates_org_user_idx ON issued_certificates (organization_id, user_id, issued_at DESC)`,
    );
    await q.query(
      `CREATE INDEX issued_certificates_user_idx ON issued_certificates (user_id, issued_at DESC, id DESC)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'issued_certificates',
      'badge_awards',
      'program_completions',
      'capstone_submissions',
      'path_courses',
      'path_organizations',
      'learning_paths',
      'course_ratings',
      'quiz_submissions',
      'lesson_completions',
      'enrollments',
      'quiz_options',
      'quiz_questions',
      'quizzes',
      'lessons',
      'course_organizations',
      'courses',
    ]) {
      await q.query(`DROP TABLE ${table}`);
    }
    await q.query(`DROP TEXT SEARCH CONFIGURATION en_unaccent`);
    await q.query(`DROP TEXT SEARCH CONFIGURATION es_unaccent`);
  }
}
