/* The tables this area owns: only its SQL writes them; another area reads them through a view below
 * (created by a migration, reading only these tables), a port or a method of this area. */
export const OWNED_TABLES: readonly string[] = [
  'course_organizations',
  'courses',
  'lesson_chunks',
  'lessons',
  'quiz_options',
  'quiz_questions',
  'quizzes',
];

/** Views over the tables above that other areas may read. */
export const READ_VIEWS: readonly string[] = [
  'course_organizations_read',
  'courses_read',
  'lesson_chunks_read',
  'lessons_read',
  'quiz_options_read',
  'quiz_questions_read',
  'quizzes_read',
];
