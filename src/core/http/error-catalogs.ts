import { ERROR_CODES, type ErrorCode, type ErrorCodeEntry } from '@/core/http/error-codes';
import { BROWSER_FLOW_FAILURES, OAUTH_ERROR_CODES } from '@/core/http/side-channel-codes';
import { REALTIME_ERROR_CODES } from '@/core/realtime/realtime-errors';

const table = (head: string, rows: [string, string][]): string[] => [
  head,
  '|---|---|',
  ...rows.sort(([a], [b]) => a.localeCompare(b)).map(([code, meaning]) => `| \`${code}\` | ${meaning} |`),
];

/** Every catalog as docs/error-codes.md: the envelope's codes, then the three channels without the envelope. */
export function errorCatalogsMarkdown(): string {
  const rows = (Object.entries(ERROR_CODES) as [ErrorCode, ErrorCodeEntry][])
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([code, e]) => `| ${e.status} | \`${code}\` | ${e.meaning} |`);
  return [
    '# Error codes',
    '',
    'Generated from `src/core/http/error-codes.ts`, `src/core/http/side-channel-codes.ts` and',
    '`src/core/realtime/realtime-errors.ts` (`npm run docs:generate`); the e2e suite fails when it drifts.',
    'Every error body is `{error: {code, message, request_id, details?}}`; each code has exactly one status.',
    '',
    '| Status | Code | When |',
    '|---|---|---|',
    ...rows,
    '',
    '## OAuth protocol errors',
    '',
    'The token, registration and revocation endpoints answer `{error, error_description}` (RFC 6749 5.2, RFC 7591',
    '3.2.2), with status 400 (401 for `invalid_client` with credentials in the header).',
    '',
    ...table('| Code | When |', Object.entries(OAUTH_ERROR_CODES)),
    '',
    '## Browser sign-in failures',
    '',
    'External-provider and SSO callbacks never answer a body: they redirect to `{WEB_URL}/login?error=<code>`.',
    '',
    ...table('| Code | When |', Object.entries(BROWSER_FLOW_FAILURES)),
    '',
    '## Realtime codes',
    '',
    'Socket.IO acknowledgements `{ok: false, error: {code, message}}`, the `error` event and `connect_error` use',
    'these codes, and the codes of the envelope table above unchanged.',
    '',
    ...table('| Code | When |', Object.entries(REALTIME_ERROR_CODES)),
    '',
  ].join('\n');
}
