// Spectral ruleset for the API description (/docs-json), run by test/openapi-lint.e2e-spec.ts (so in CI).
// The OpenAPI rules apply as they are. The OWASP API Security rules apply as they are, except the ones below:
// each is either narrowed to where it makes sense (with the reason) or turned off (with the reason).
import { oas } from '@stoplight/spectral-rulesets';
import owaspModule from '@stoplight/spectral-owasp-ruleset';
import { truthy } from '@stoplight/spectral-functions';
import { createRulesetFunction } from '@stoplight/spectral-core';

const owasp = owaspModule.default ?? owaspModule;

/** An operation that takes a body or a query/header parameter documents 400, 422 or 4XX. */
const validationErrorDocumented = createRulesetFunction({ input: null, options: null }, (operation) => {
  const takesInput = operation.requestBody || (operation.parameters ?? []).some((p) => p.in !== 'path');
  const responses = operation.responses ?? {};
  if (!takesInput || ['400', '422', '4XX'].some((status) => status in responses)) return [];
  return [{ message: 'Missing error response of either 400, 422 or 4XX.', path: ['responses'] }];
});
const rule = (name) => owasp.rules[name];

/** Schemas a client sends: parameters and request bodies (refs are resolved, so `..` reaches every nested field). */
const inputs = (type) => [
  `$.paths[*][*].parameters[?(@ && @.schema && @.schema.type == "${type}")].schema`,
  `$.paths[*][*].requestBody..[?(@ && @.type == "${type}")]`,
];

export default {
  extends: [
    [oas, 'recommended'],
    [owasp, 'recommended'],
  ],
  rules: {
    // Limits protect what the server accepts (API4: unrestricted resource consumption). Response fields are
    // produced by the server from stored values that were bounded when they were accepted, so the rules below
    // check every string, array and integer a client sends: parameters and request bodies.
    'owasp:api4:2023-string-limit': { ...rule('owasp:api4:2023-string-limit'), given: inputs('string') },
    'owasp:api4:2023-array-limit': { ...rule('owasp:api4:2023-array-limit'), given: inputs('array') },
    'owasp:api4:2023-integer-limit': { ...rule('owasp:api4:2023-integer-limit'), given: inputs('integer') },
    'owasp:api4:2023-integer-limit-legacy': {
      ...rule('owasp:api4:2023-integer-limit-legacy'),
      given: inputs('integer'),
    },
    // Free text (names, bios, messages, markdown) has no format or pattern by nature; its length is what bounds it,
    // and string-limit above requires that on every input string.
    'owasp:api4:2023-string-restricted': 'off',
    // owasp:api4:2023-rate-limit and -responses-429 apply as they are: every operation counts against a request
    // budget and documents the RateLimit fields and 429 (probes and /metrics, outside budgets, say they never send
    // them).
    // 401 is documented (with the envelope) on every operation that needs a credential; a public operation
    // (`x-public`: probes, sign-in, public verification, public forms) cannot answer it.
    'owasp:api8:2023-define-error-responses-401': {
      ...rule('owasp:api8:2023-define-error-responses-401'),
      given: '$.paths[*][?(@ && @.security && @.security.length > 0)].responses',
    },
    // 422 (`validation_error`) is documented on every operation that takes a body or a query or header parameter;
    // a malformed path parameter is 404 (each names something: an id, a slug, a username), and an operation that
    // takes nothing else has nothing to validate.
    'owasp:api8:2023-define-error-validation': {
      ...rule('owasp:api8:2023-define-error-validation'),
      given: '$.paths[*][get,put,post,delete,patch]',
      then: { function: validationErrorDocumented },
    },
    // Public by design: the operations without a security requirement are exactly those marked `x-public`
    // (probes, sign-in and its codes, public certificate verification, discovery documents, public catalog and
    // forms, signed webhooks from the mail provider, unsubscribe links). The rule below checks that pairing.
    'owasp:api2:2023-read-restricted': 'off',
    'owasp:api2:2023-write-restricted': 'off',
    'public-only-when-declared': {
      description: 'An operation without a security requirement must be declared public (`@Public()`).',
      severity: 'error',
      given: '$.paths[*][?(@ && @.responses && (!@.security || @.security.length == 0))]',
      then: { field: 'x-public', function: truthy },
    },
    // The calendar feed (extensions-v2 25.2) is the one capability token allowed in a path: calendar applications
    // cannot send headers. It grants only that read-only feed, is stored as SHA-256, shown once, rate limited per
    // token, and the access log writes it as `[token]`. The one-click unsubscribe link (RFC 8058, extensions-v2 13.6)
    // carries a signed token in its query by the RFC's design: it can only unsubscribe that address from that list.
    // Every other path and query parameter is checked.
    'owasp:api2:2023-no-credentials-in-url': {
      ...rule('owasp:api2:2023-no-credentials-in-url'),
      given: [
        '$.paths[?(@property != "/api/v1/calendar/{feed_token}.ics" && @property != "/api/v1/notifications/unsubscribe")]..parameters[?(@ && @.in && @.in.match(/query|path/))].name',
      ],
    },
    // LTI custom parameters (`custom`, extensions-v3 1.2) are by the LTI Core standard an open map of the tool's own
    // names to strings: bounded by maxProperties (20) and each value's maxLength, but their keys cannot be listed.
    'owasp:api3:2023-no-additionalProperties': {
      ...rule('owasp:api3:2023-no-additionalProperties'),
      given: '$..[?(@ && @property != "custom" && @.type=="object" && @.additionalProperties)]',
    },
    // Platform administration uses the same session as everything else, with the platform_admin role, step-up
    // where it matters and an audit entry; a second scheme for /admin paths would only rename the cookie.
    'owasp:api5:2023-admin-security-unique': 'off',
    // CORS is answered by one middleware for every route (CORS_ORIGINS, credentials); repeating
    // Access-Control-Allow-Origin in each documented header set would describe nothing more.
    'owasp:api8:2023-define-cors-origin': 'off',
    // The server URL is BASE_URL: https in production, plain http on loopback for local and test instances (the
    // description linted in CI is a test instance's).
    'owasp:api8:2023-no-server-http': 'off',
  },
};
