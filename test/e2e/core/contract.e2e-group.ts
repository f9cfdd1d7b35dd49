import { e2eGroup } from '../../support/e2e-group';

// The contract as a whole: the OpenAPI description and its lint, generated docs, fuzzing, NUL characters, access
// rules and the cross-tenant sweep.
e2eGroup(__dirname, [
  'openapi-lint',
  'openapi',
  'generated-docs',
  'fuzz',
  'nul-characters',
  'access-rules',
  'cross-tenant',
]);
