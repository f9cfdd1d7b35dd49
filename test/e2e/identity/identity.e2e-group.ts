import { e2eGroup } from '../../support/e2e-group';

e2eGroup(__dirname, [
  'auth-sign-in',
  'avatars',
  'external-auth',
  'oauth',
  'oauth-mcp',
  'passkeys',
  'privacy',
  'privacy-erasure',
  'privacy-erasure-crash',
  'privacy-exports-s3',
  'privacy-minors',
  'sso',
  'users-account',
]);
