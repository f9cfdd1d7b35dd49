import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * More read views (issue 24, "Owned tables"): the columns the remaining foreign readers need (notifications,
 * support, privacy, SSO, open badges, the public catalog, webhooks, xAPI, the learner's catalog, deadlines, exams,
 * notes, paths, progress, search, teacher, duels, flashcards, gamification, institutes, members, audit), so they
 * read other areas' tables only through views their owners declare. Each view still reads one table of its owner.
 *
 * `CREATE OR REPLACE VIEW` may only append columns to a view, so each existing view keeps the column list of
 * ReadViews1795917055499 first and appends the new ones; `down` restores that list (PostgreSQL cannot drop a
 * view's column, so it drops and recreates the view).
 */
const EXTENDED: Record<string, { table: string; before: string[]; added: string[] }> = {
  // identity/users: the address language, zone and handle (notifications, webhooks, duels, members, ledger)
  users_read: {
    table: 'users',
    before: ['id', 'name', 'email', 'public_profile', 'age_bracket', 'created_at', 'erased_at'],
    added: ['username', 'locale', 'time_zone'],
  },
  // tenancy/organizations: language and zone (notifications, leaderboard periods), the legacy institute link
  organizations_read: {
    table: 'organizations',
    before: ['id', 'name', 'status', 'created_at'],
    added: ['locale', 'time_zone', 'legacy_institute_id'],
  },
  // tenancy/cohorts
  cohorts_read: { table: 'cohorts', before: ['id', 'organization_id', 'name'], added: ['institute_id'] },
  cohort_members_read: {
    table: 'cohort_members',
    before: ['cohort_id', 'organization_id', 'user_id', 'role'],
    added: ['added_at'],
  },
  // learning/editor: the published catalog's content (courses' learner view, search, public catalog, duels)
  courses_read: {
    table: 'courses',
    before: ['id', 'title', 'status', 'visibility'],
    added: [
      'slug',
      'summary',
      'description_md',
      'language',
      'level',
      'tags',
      'issues_certificate',
      'estimated_minutes',
      'published_at',
      'created_at',
      'updated_at',
      'search_vector',
    ],
  },
  lessons_read: {
    table: 'lessons',
    before: ['id', 'course_id', 'position', 'title'],
    added: ['content_md', 'estimated_minutes', 'language', 'created_at', 'updated_at', 'search_vector'],
  },
  quizzes_read: { table: 'quizzes', before: ['id', 'lesson_id'], added: ['passing_score'] },
  // learning/exams
  exams_read: { table: 'exams', before: ['id', 'course_id', 'title'], added: ['status'] },
  exam_sessions_read: {
    table: 'exam_sessions',
    before: [
      'id',
      'organization_id',
      'exam_id',
      'course_id',
      'user_id',
      'attempt',
      'status',
      'submitted_by',
      'started_at',
      'submitted_at',
      'score',
      'passed',
      'flags',
      'flagged',
      'review_status',
    ],
    added: ['counts_as_attempt'],
  },
  // learning/paths
  learning_paths_read: { table: 'learning_paths', before: ['id', 'title'], added: ['description_md'] },
};

const CREATED: Record<string, { table: string; columns: string[] }> = {
  // identity/users: the consent history without the fingerprint (privacy's consent pages)
  consents_read: { table: 'consents', columns: ['id', 'user_id', 'kind', 'terms_version', 'granted_at', 'granted'] },
  // learning/editor: quiz content (the learner's quizzes, duels) and lesson passages (the tutor's retrieval)
  quiz_questions_read: {
    table: 'quiz_questions',
    columns: ['id', 'quiz_id', 'position', 'prompt', 'kind', 'explanation'],
  },
  quiz_options_read: { table: 'quiz_options', columns: ['id', 'question_id', 'position', 'text', 'correct'] },
  lesson_chunks_read: {
    table: 'lesson_chunks',
    columns: ['id', 'course_id', 'lesson_id', 'position', 'text', 'language', 'search_vector'],
  },
  // learning/exams: exam windows (calendar feeds)
  exam_windows_read: {
    table: 'exam_windows',
    columns: ['id', 'organization_id', 'exam_id', 'cohort_id', 'opens_at', 'closes_at', 'created_at', 'updated_at'],
  },
  // learning/paths: program completions (xAPI)
  program_completions_read: {
    table: 'program_completions',
    columns: ['organization_id', 'user_id', 'path_id', 'completed_at'],
  },
  // core: the audit log (the audit area's listings and export)
  audit_log_read: {
    table: 'audit_log',
    columns: [
      'id',
      'action',
      'actor_id',
      'organization_id',
      'target_type',
      'target_id',
      'ip_fingerprint',
      'metadata',
      'created_at',
    ],
  },
};

export class MoreReadViews1795928717247 implements MigrationInterface {
  name = 'MoreReadViews1795928717247';

  async up(q: QueryRunner): Promise<void> {
    for (const [view, { table, before, added }] of Object.entries(EXTENDED)) {
      await q.query(`CREATE OR REPLACE VIEW ${view} AS SELECT ${[...before, ...added].join(', ')} FROM ${table}`);
    }
    for (const [view, { table, columns }] of Object.entries(CREATED)) {
      await q.query(`CREATE VIEW ${view} AS SELECT ${columns.join(', ')} FROM ${table}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const view of Object.keys(CREATED).reverse()) {
      await q.query(`DROP VIEW IF EXISTS ${view}`);
    }
    for (const [view, { table, before }] of Object.entries(EXTENDED)) {
      await q.query(`DROP VIEW IF EXISTS ${view}`);
      await q.query(`CREATE VIEW ${view} AS SELECT ${before.join(', ')} FROM ${table}`);
    }
  }
}
