import { e2eGroup } from '../../support/e2e-group';

// Separate processes, restarts and faults: runtime modes, several processes on one database, the worker killed, Redis
// and PostgreSQL failing, PgBouncer.
e2eGroup(__dirname, [
  'runtime-modes',
  'multi-process',
  'faults-worker',
  'faults-redis',
  'faults-database',
  'pgbouncer',
]);
