import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Read views: what an area publishes of its tables for other areas to read (issue 24, "Owned tables"). Each view
 * belongs to the area that owns the table under it (declared in that area's `<area>.tables.ts`) and reads only
 * that table; the statistics, the reports and the social activity feed read these instead of the tables. A view of
 * one table with a column list is inlined by the planner, so the readers' plans and indexes are unchanged.
 *
 * A later migration that drops or retypes a column listed here recreates the view (PostgreSQL refuses otherwise).
 */
const VIEWS: Record<string, { table: string; columns: string[] }> = {
  // identity/users
  users_read: {
    table: 'users',
    columns: ['id', 'name', 'email', 'public_profile', 'age_bracket', 'created_at', 'erased_at'],
  },
  // tenancy/organizations
  organizations_read: { table: 'organizations', columns: ['id', 'name', 'status', 'created_at'] },
  memberships_read: { table: 'memberships', columns: ['organization_id', 'user_id', 'role', 'joined_at'] },
  // tenancy/cohorts
  cohorts_read: { table: 'cohorts', columns: ['id', 'organization_id', 'name'] },
  cohort_members_read: { table: 'cohort_members', columns: ['cohort_id', 'organization_id', 'user_id', 'role'] },
  // learning/editor
  courses_read: { table: 'courses', columns: ['id', 'title', 'status', 'visibility'] },
  course_organizations_read: { table: 'course_organizations', columns: ['course_id', 'organization_id'] },
  lessons_read: { table: 'lessons', columns: ['id', 'course_id', 'position', 'title'] },
  quizzes_read: { table: 'quizzes', columns: ['id', 'lesson_id'] },
  // learning/progress
  enrollments_read: {
    table: 'enrollments',
    columns: [
      'id',
      'organization_id',
      'user_id',
      'course_id',
      'status',
      'enrolled_at',
      'completed_at',
      'last_activity_at',
    ],
  },
  lesson_completions_read: {
    table: 'lesson_completions',
    columns: ['organization_id', 'user_id', 'course_id', 'lesson_id', 'completed_at'],
  },
  quiz_submissions_read: {
    table: 'quiz_submissions',
    columns: [
      'id',
      'organization_id',
      'user_id',
      'course_id',
      'lesson_id',
      'quiz_id',
      'score',
      'passed',
      'submitted_at',
    ],
  },
  // learning/courses
  course_ratings_read: { table: 'course_ratings', columns: ['course_id', 'organization_id', 'user_id', 'stars'] },
  // learning/exams
  exams_read: { table: 'exams', columns: ['id', 'course_id', 'title'] },
  exam_sessions_read: {
    table: 'exam_sessions',
    columns: [
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
  },
  // learning/certificates
  issued_certificates_read: {
    table: 'issued_certificates',
    columns: [
      'id',
      'code',
      'type',
      'status',
      'organization_id',
      'user_id',
      'holder_name',
      'course_id',
      'path_id',
      'cohort_id',
      'title',
      'issued_at',
      'revoked_at',
      'revoke_reason',
      'replaced_by_id',
      'replaces_id',
    ],
  },
  // learning/paths
  learning_paths_read: { table: 'learning_paths', columns: ['id', 'title'] },
  // practice/gamification
  badge_awards_read: {
    table: 'badge_awards',
    columns: ['id', 'organization_id', 'user_id', 'path_id', 'code', 'name', 'icon', 'kind', 'awarded_at'],
  },
  // assistant/ai-usage
  ai_usage_read: {
    table: 'ai_usage',
    columns: ['organization_id', 'user_id', 'occurred_at', 'input_tokens', 'output_tokens'],
  },
  // integrations/lti
  lti_contexts_read: { table: 'lti_contexts', columns: ['id', 'organization_id', 'course_id'] },
  lti_line_items_read: {
    table: 'lti_line_items',
    columns: ['id', 'context_id', 'organization_id', 'lesson_id', 'label'],
  },
  lti_results_read: {
    table: 'lti_results',
    columns: [
      'line_item_id',
      'user_id',
      'organization_id',
      'score_given',
      'score_maximum',
      'activity_progress',
      'grading_progress',
      'updated_at',
    ],
  },
  // insight/stats
  learning_activity_hourly_read: {
    table: 'learning_activity_hourly',
    columns: [
      'organization_id',
      'user_id',
      'hour',
      'lessons_completed',
      'quizzes_submitted',
      'quizzes_passed',
      'enrollments',
      'completions',
      'exams_submitted',
      'reviews',
    ],
  },
};

export class ReadViews1795917055499 implements MigrationInterface {
  name = 'ReadViews1795917055499';

  async up(q: QueryRunner): Promise<void> {
    for (const [view, { table, columns }] of Object.entries(VIEWS)) {
      await q.query(`CREATE VIEW ${view} AS SELECT ${columns.join(', ')} FROM ${table}`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const view of Object.keys(VIEWS).reverse()) {
      await q.query(`DROP VIEW IF EXISTS ${view}`);
    }
  }
}
