/** The report types of extensions-v2 15.1, their columns (in order) and how each is written. */

export const REPORT_TYPES = ['progress', 'certificates', 'engagement', 'exams', 'lti_results'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export const REPORT_FORMATS = ['csv', 'xlsx'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
export const REPORT_SEPARATORS = ['comma', 'semicolon'] as const;
export type ReportSeparator = (typeof REPORT_SEPARATORS)[number];
export const REPORT_STATUSES = ['queued', 'running', 'completed', 'failed', 'expired'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** More rows than this fails the report with `report_too_large` (15.2). */
export const REPORT_MAX_ROWS = 200_000;
/** A completed report's file lives this long after `finished_at` (15.2). */
export const REPORT_LIFETIME_MS = 7 * 24 * 3_600_000;

/** How a cell is written: text (neutralized against formulas), a number, an instant, or a boolean (as text). */
export type CellKind = 'text' | 'number' | 'date' | 'boolean';

export interface ReportColumn {
  readonly name: string;
  readonly kind: CellKind;
}

const text = (name: string): ReportColumn => ({ name, kind: 'text' });
const num = (name: string): ReportColumn => ({ name, kind: 'number' });
const date = (name: string): ReportColumn => ({ name, kind: 'date' });
const bool = (name: string): ReportColumn => ({ name, kind: 'boolean' });

/** Header cells are the column names of the spec (snake_case, not localized: clarification 28). */
export const REPORT_COLUMNS: Record<ReportType, readonly ReportColumn[]> = {
  progress: [
    text('user_id'),
    text('name'),
    text('email'),
    text('cohorts'),
    text('course_id'),
    text('course_title'),
    date('enrolled_at'),
    text('status'),
    num('percent'),
    num('lessons_completed'),
    num('lessons_total'),
    date('completed_at'),
    date('last_activity_at'),
  ],
  certificates: [
    text('code'),
    text('status'),
    text('type'),
    text('holder_name'),
    text('user_id'),
    text('title'),
    text('course_id'),
    text('path_id'),
    text('cohort_id'),
    date('issued_at'),
    date('revoked_at'),
    text('revoke_reason'),
    text('replaced_by_code'),
  ],
  engagement: [
    text('user_id'),
    text('name'),
    text('email'),
    text('role'),
    text('cohorts'),
    num('xp_in_period'),
    num('xp_total'),
    num('level'),
    num('streak_current'),
    num('active_days_in_period'),
    num('lessons_completed_in_period'),
    num('reviews_in_period'),
    text('last_active_on'),
  ],
  exams: [
    text('user_id'),
    text('name'),
    text('email'),
    text('cohorts'),
    text('course_title'),
    text('exam_title'),
    num('attempt'),
    date('started_at'),
    date('submitted_at'),
    text('submitted_by'),
    num('score'),
    bool('passed'),
    bool('flagged'),
    text('flags'),
    text('review_status'),
  ],
  // Results LTI tools reported (extensions-v3 1.6).
  lti_results: [
    text('user_id'),
    text('email'),
    text('course_id'),
    text('lesson_id'),
    text('line_item_label'),
    num('score'),
    num('score_maximum'),
    text('activity_progress'),
    text('grading_progress'),
    date('updated_at'),
  ],
};

/** A row as PostgreSQL streams it: one property per column. */
export type ReportRow = Record<string, string | number | boolean | Date | null>;
