/* The tables this area owns: only its SQL writes them; another area reads them through a view below
 * (created by a migration, reading only these tables), a port or a method of this area. */
export const OWNED_TABLES: readonly string[] = [
  'capstone_submissions',
  'learning_paths',
  'path_courses',
  'path_organizations',
  'program_completions',
];

/** Views over the tables above that other areas may read. */
export const READ_VIEWS: readonly string[] = ['learning_paths_read', 'program_completions_read'];
