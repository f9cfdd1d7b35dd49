/* The tables this area owns: only its SQL writes them; another area reads them through a view below
 * (created by a migration, reading only these tables), a port or a method of this area. */
export const OWNED_TABLES: readonly string[] = ['scim_activity', 'scim_groups', 'scim_members', 'scim_tokens'];

/** Views over the tables above that other areas may read. */
export const READ_VIEWS: readonly string[] = ['scim_members_read'];
