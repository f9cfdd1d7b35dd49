/* The tables this area owns: only its SQL writes them; another area reads them through a view below
 * (created by a migration, reading only these tables), a port or a method of this area. */
export const OWNED_TABLES: readonly string[] = [
  'exam_answers',
  'exam_proctoring_events',
  'exam_session_questions',
  'exam_sessions',
  'exam_windows',
  'exams',
];

/** Views over the tables above that other areas may read. */
export const READ_VIEWS: readonly string[] = ['exam_sessions_read', 'exam_windows_read', 'exams_read'];
