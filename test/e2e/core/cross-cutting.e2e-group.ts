import { e2eGroup } from '../../support/e2e-group';

// The shared platform: foundation, budgets and address limits, domain events, realtime, the scheduler, mail kinds,
// personal data, time zones, table ownership, the outbound guard.
e2eGroup(__dirname, [
  'foundation',
  'budgets',
  'address-limits',
  'domain-events',
  'domain-events-wave1',
  'realtime',
  'scheduler',
  'mail-kinds',
  'personal-data',
  'time-zones',
  'table-ownership',
  'outbound-guard',
]);
