/* The tables this area owns: only its SQL writes them; another area reads them through a view below
 * (created by a migration, reading only these tables), a port or a method of this area. */
export const OWNED_TABLES: readonly string[] = [
  'oauth_access_tokens',
  'oauth_authorization_requests',
  'oauth_clients',
  'oauth_codes',
  'oauth_grants',
  'oauth_refresh_tokens',
];

/** Views over the tables above that other areas may read. */
export const READ_VIEWS: readonly string[] = [];
