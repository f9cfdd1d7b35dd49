/* The tables this area owns: only its SQL writes them; another area reads them through a view below
 * (created by a migration, reading only these tables), a port or a method of this area. */
export const OWNED_TABLES: readonly string[] = [
  'lti_access_tokens',
  'lti_contexts',
  'lti_deployments',
  'lti_launches',
  'lti_lesson_links',
  'lti_line_items',
  'lti_platform_keys',
  'lti_registrations',
  'lti_results',
  'lti_tools',
  'lti_used_nonces',
];

/** Views over the tables above that other areas may read. */
export const READ_VIEWS: readonly string[] = ['lti_contexts_read', 'lti_line_items_read', 'lti_results_read'];
