import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '@/config/app-config';
import { ERROR_CODES } from './error-codes';
import { ErrorEnvelopeDto } from './openapi';
import { describeBudgets, documentLimits } from './openapi-limits';

/** One tag per functional area (interface-v1 section 1), in the order of the contract. */
export const API_TAGS: { name: string; description: string }[] = [
  { name: 'health', description: 'Process and infrastructure probes (no prefix)' },
  { name: 'auth', description: 'Sign-in, cookie session, step-up' },
  { name: 'sso', description: 'Institutional single sign-on: connections, verified domains, sign-in' },
  {
    name: 'scim',
    description:
      'SCIM 2.0 provisioning (RFC 7643/7644) at /scim/v2 with an organization’s SCIM token, and the tokens themselves',
  },
  { name: 'lti', description: 'LTI 1.3 Advantage platform: tools, deployments, launches, grades and rosters' },
  { name: 'users', description: 'Own account, profile, sessions, two-factor, integrations' },
  { name: 'avatars', description: 'Server-generated, customizable avatars' },
  { name: 'organizations', description: 'Organizations, my organizations, plan usage' },
  { name: 'members', description: 'Organization members, roles, CSV import' },
  { name: 'invitations', description: 'Email invitations to an organization' },
  { name: 'cohorts', description: 'Cohorts, institutes and their administration' },
  { name: 'api-keys', description: 'Personal access tokens and the credential of the current request' },
  { name: 'audit', description: 'Audit log (no personal data)' },
  { name: 'courses', description: 'Catalog, lessons, quizzes, ratings' },
  { name: 'search', description: 'Search in the catalog visible to the organization' },
  { name: 'progress', description: 'Enrollment, lesson progress, quiz submission' },
  { name: 'paths', description: 'Learning paths and programs' },
  { name: 'teacher', description: 'Teacher dashboards over assigned cohorts' },
  { name: 'editor', description: 'Authoring of courses and programs' },
  { name: 'certificates', description: 'Course and program certificates, public verification, template' },
  { name: 'oauth', description: 'OAuth 2.1 authorization server for the remote tool connector' },
  { name: 'exams', description: 'Proctored exams: authoring, windows, sessions, grading and review' },
  {
    name: 'gamification',
    description: 'XP, levels, leaderboards, badges, titles, missions, challenges, rewards, goals',
  },
  { name: 'flashcards', description: 'Spaced repetition (SM-2, FSRS), course and personal decks' },
  { name: 'games', description: 'Single-player game modes: survival, speed, risk' },
  { name: 'duels', description: 'Real-time 1v1 duels: challenges, matchmaking and play (Socket.IO)' },
  { name: 'notes', description: 'Personal notes per lesson, markdown export' },
  { name: 'social', description: 'Activity feed and social feed with posts, comments and reactions' },
  { name: 'moderation', description: 'Moderation queue, decisions, settings and mutes of an organization feed' },
  { name: 'notifications', description: 'In-app inbox, preferences, quiet hours, web and native push, unsubscribe' },
  { name: 'announcements', description: 'Platform and organization announcements' },
  { name: 'stats', description: 'Personal, organization, course and platform statistics' },
  { name: 'reports', description: 'Organization reports with asynchronous CSV/XLSX export' },
  { name: 'privacy', description: 'GDPR rights: consents, export, erasure, age bracket, guardian consent' },
  { name: 'support', description: 'In-app support tickets and the staff desk' },
  { name: 'public', description: 'Public landing forms and catalog (no session)' },
  { name: 'telemetry', description: 'Web vitals and client errors, no personal data' },
  { name: 'webhooks', description: 'Signed events from the email-delivery provider; the suppression list' },
  { name: 'tutor', description: 'AI tutor over course content (streaming, citations) and AI quiz proposals' },
  { name: 'ai-usage', description: 'AI consumption and quotas per person, organization and platform' },
  { name: 'integrations', description: 'Outbound signed webhooks, Open Badges 3.0, calendar feed, xAPI export' },
  { name: 'admin', description: 'Platform administration (platform_admin)' },
];

/** How the server entry names its environment (words operators and linters recognize). */
const ENVIRONMENT: Record<AppConfig['nodeEnv'], string> = {
  development: 'local development',
  test: 'test',
  production: 'production',
};

const WRITE_METHODS = new Set(['post', 'put', 'patch', 'delete']);
const ENVELOPE_REF = { $ref: '#/components/schemas/ErrorEnvelopeDto' };

type Operation = {
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
  parameters?: unknown[];
  requestBody?: unknown;
  description?: string;
  summary?: string;
  [ext: `x-${string}`]: unknown;
};

/**
 * A SCIM protocol operation (RFC 7644): only an organization's SCIM token authenticates it, and its errors are SCIM
 * error bodies in `application/scim+json`, not the envelope (the standard wins on its own routes).
 */
function completeScimOperation(op: Operation): void {
  op.security = [{ scimToken: [] }];
  const scimError = {
    'application/scim+json': {
      schema: {
        type: 'object',
        required: ['schemas', 'status', 'detail'],
        properties: {
          schemas: {
            type: 'array',
            items: { type: 'string' },
            example: ['urn:ietf:params:scim:api:messages:2.0:Error'],
          },
          status: { type: 'string', example: '400' },
          scimType: { type: 'string', example: 'invalidFilter' },
          detail: { type: 'string' },
        },
      },
    },
  };
  for (const [status, description] of [
    [400, 'Invalid request (`invalidSyntax`, `invalidFilter`, `invalidValue`...)'],
    [401, 'No valid SCIM token (other credentials are refused here); `WWW-Authenticate: Bearer`'],
    [429, 'Over 1 200 requests a minute for this token (`Retry-After`)'],
    [500, 'Internal failure'],
  ] as const) {
    op.responses[String(status)] ??= { description, content: scimError };
  }
  const line =
    "**Access:** the organization's SCIM token (`svc_scim_...`) only.\n\n**Rate limits:** 1200 per minute per SCIM token.";
  op.description = [op.description, line].filter(Boolean).join('\n\n');
}

function addResponse(op: Operation, status: number, description: string): void {
  if (!op.responses[String(status)]) {
    op.responses[String(status)] = { description, content: { 'application/json': { schema: ENVELOPE_REF } } };
  }
}

/**
 * One 403 response naming every code the access declaration implies. A 403 the operation documents itself
 * (`@ApiErrors`) keeps its text and gains the implied codes it does not name.
 */
function describeRefusals(op: Operation, refusals: [string, string][]): void {
  if (refusals.length === 0) return;
  const existing = op.responses['403'] as { description?: string } | undefined;
  if (!existing) {
    const reasons = refusals.map(([code, why]) => `${why} (\`${code}\`)`);
    const text = [...new Set(reasons)].join('; ');
    addResponse(op, 403, text.charAt(0).toUpperCase() + text.slice(1));
    return;
  }
  const missing = [...new Set(refusals.map(([code]) => code))].filter(
    (code) => !existing.description?.includes(`\`${code}\``),
  );
  if (missing.length > 0) {
    existing.description = `${existing.description ?? 'Not permitted'}. Also: ${missing.map((c) => `\`${c}\``).join(', ')}`;
  }
}

/**
 * Completes every operation from its access declaration so the description never drifts from the guards:
 * security requirement, the 401/403/404/422/500 responses they imply, and an "Access" line.
 */
export function completeOperations(doc: OpenAPIObject): OpenAPIObject {
  for (const [, item] of Object.entries(doc.paths)) {
    for (const [method, value] of Object.entries(item)) {
      if (!value || typeof value !== 'object' || !('responses' in value)) continue;
      const op = value as Operation;
      if (op['x-scim-token']) {
        completeScimOperation(op);
        continue;
      }
      const isPublic = Boolean(op['x-public']);
      const access: string[] = [];
      /** The 403 answers the declaration implies: [code, why]. */
      const refusals: [string, string][] = [];
      const sessionOnly = isPublic ? undefined : (op['x-session-only'] as string | undefined);
      if (isPublic) {
        op.security = [];
        access.push('public');
      } else if (sessionOnly === 'unauthorized') {
        op.security = [{ cookieAuth: [] }];
        addResponse(op, 401, 'No valid `access_token` cookie; bearer tokens do not count here (`unauthorized`)');
        access.push('cookie session only (a bearer token is not accepted: `unauthorized`)');
      } else {
        op.security = [{ cookieAuth: [] }, { bearer: [] }];
        addResponse(op, 401, 'Credential absent, invalid or expired (`unauthorized`)');
        access.push(sessionOnly ? 'browser session only (bearer tokens get `forbidden`)' : 'any credential');
        if (sessionOnly) refusals.push(['forbidden', 'not a browser session']);
      }
      if (op['x-org-scoped']) {
        access.push('member of the organization in the path');
        refusals.push(['forbidden', 'not permitted'], ['organization_suspended', 'organization suspended']);
        addResponse(op, 404, 'Not a member of the organization, or not visible (`not_found`)');
      }
      const roles = op['x-roles'] as string[] | undefined;
      if (roles?.length) {
        access.push(`role ${roles.join(' or ')}`);
        refusals.push(['forbidden', 'role not permitted']);
      }
      const platformRoles = op['x-platform-roles'] as string[] | undefined;
      if (platformRoles?.length) {
        access.push(`platform role ${platformRoles.join(' or ')}`);
        refusals.push(['forbidden', 'platform role required']);
      }
      if (op['x-step-up']) {
        access.push('recent step-up');
        refusals.push(['step_up_required', 'recent step-up required']);
      }
      if (!isPublic && op['x-not-while-impersonating']) {
        access.push('not while impersonating (`impersonation_restricted`)');
        refusals.push(['impersonation_restricted', 'an impersonation session']);
      }
      if (!isPublic && WRITE_METHODS.has(method) && !op['x-read-operation']) {
        access.push('write access (read-only tokens get `credential_read_only`)');
        refusals.push(['credential_read_only', 'read-only credential']);
        const minors = op['x-minor-access'] as string | undefined;
        if (minors === 'always') access.push('minors: always');
        if (minors === 'with_consent') {
          access.push('minors: with guardian consent (`guardian_consent_required`)');
          refusals.push(['guardian_consent_required', 'a minor without guardian consent']);
        }
      }
      describeRefusals(op, refusals);
      // A malformed path parameter is 404 (every one names something); query, header and body are validated (422).
      if (op.requestBody || (op.parameters as { in?: string }[] | undefined)?.some((p) => p.in !== 'path'))
        addResponse(op, 422, 'Invalid body or parameters (`validation_error`)');
      addResponse(op, 500, 'Internal failure (`internal_error`)');
      const line = `**Access:** ${access.join('; ')}.`;
      const limits = op['x-rate-limits'] as string[] | undefined;
      const limitLine = limits?.length ? `\n\n**Rate limits:** ${limits.join('; ')}.` : '';
      op.description = [op.description, line + limitLine].filter(Boolean).join('\n\n');
    }
  }
  return doc;
}

export function buildOpenApiDocument(app: INestApplication, config: AppConfig, version: string): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Learning Platform API')
    .setDescription(
      [
        'Backend of a multi-tenant online learning platform for institutions.',
        'Business operations live under `/api/v1`; probes (`/health`, `/ready`, `/version`) have no prefix.',
        'Every error is the envelope `{error: {code, message, request_id, details?}}`; `request_id` equals the',
        '`X-Request-Id` response header. JSON fields are snake_case, ids are UUIDs, times are ISO 8601 UTC.',
        'Lists are pages `{items, total, limit, offset}` with `limit` 1..200 (default 50) and `offset` >= 0.',
        `Every operation but \`/health\`, \`/ready\` and \`/metrics\` counts against a request budget (${describeBudgets(config.budgets)}):`,
        'over it the answer is 429 `too_many_requests` with `Retry-After`; answers carry the IETF `RateLimit-Policy`',
        'and `RateLimit` fields of the budget, or of a route limit closer to exhaustion.',
        `Service version ${version}.`,
      ].join(' '),
    )
    .setVersion('1.0.0')
    .addServer(config.baseUrl, `This instance (${ENVIRONMENT[config.nodeEnv]})`, {})
    .addCookieAuth('access_token', { type: 'apiKey', in: 'cookie', name: 'access_token' }, 'cookieAuth')
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description: 'Personal access token (`svc_live_...`) or OAuth token (`svc_oat_...`)',
      },
      'bearer',
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'opaque',
        description: "An organization's SCIM token (`svc_scim_...`), accepted on /scim/v2 only",
      },
      'scimToken',
    );
  for (const tag of API_TAGS) builder.addTag(tag.name, tag.description);
  const doc = SwaggerModule.createDocument(app, builder.build(), {
    extraModels: [ErrorEnvelopeDto],
    operationIdFactory: (controllerKey, methodKey) => `${controllerKey.replace(/Controller$/, '')}_${methodKey}`,
  });
  // The error-code catalog, machine-readable beside the description (also docs/error-codes.md).
  (doc as OpenAPIObject & { 'x-error-codes'?: unknown })['x-error-codes'] = Object.entries(ERROR_CODES).map(
    ([code, e]) => ({ code, status: e.status, meaning: e.meaning }),
  );
  // The servers list is this one public instance, not an inventory of internal ones.
  for (const server of doc.servers ?? []) (server as typeof server & { 'x-internal': boolean })['x-internal'] = false;
  return documentLimits(completeOperations(doc), config.budgets);
}
