/* The tables of the core machinery (migrations, the job outbox, domain events, the audit log): only src/core
 * writes them (areas record through its services). */
export const OWNED_TABLES: readonly string[] = [
  'audit_log',
  'domain_event_deliveries',
  'domain_events',
  'jobs',
  'migrations',
];

/** Views over the tables above that areas may read. */
export const READ_VIEWS: readonly string[] = ['audit_log_read'];
