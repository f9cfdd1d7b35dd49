import { e2eGroup } from '../../support/e2e-group';

e2eGroup(__dirname, [
  'audit',
  'audit-platform',
  'cohorts',
  'institutes',
  'invitations',
  'member-import',
  'members',
  'members-people',
  'organizations-admin',
  'scim',
]);
