import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { OpenAPIObject } from '@nestjs/swagger';
import { AppModule } from '@/apps/app.module';
import { loadConfig } from '@/config/load-config';
import { errorCatalogsMarkdown } from './error-catalogs';
import { ERROR_CODES } from './error-codes';
import { BROWSER_FLOW_FAILURES, OAUTH_ERROR_CODES } from './side-channel-codes';
import { REALTIME_ERROR_CODES } from '@/core/realtime/realtime-errors';
import { ApiErrors } from './openapi';
import { buildOpenApiDocument } from './swagger';

type Response = { description?: string; content?: Record<string, { schema?: { $ref?: string } }> };
const ENVELOPE = '#/components/schemas/ErrorEnvelopeDto';
/** Backticked words of error descriptions that name something other than a code. */
const NOT_CODES = new Set(['details', 'Retry-After', 'access_token']);

/**
 * The error-code catalog is the only source of codes: every code the OpenAPI description names for an error
 * response (written by `@ApiErrors` and by the access declarations) is in it, with the status it is listed under.
 * The document is built from the whole application in Nest's preview mode (modules scanned, nothing connected).
 */
describe('error-code catalog against the OpenAPI description', () => {
  let doc: OpenAPIObject;

  beforeAll(async () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      AUTH_SECRET: 'unit-test-secret-0123456789-abcdefghijklmnop',
      DATA_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
      BASE_URL: 'http://127.0.0.1:1',
      DATA_DIR: '/tmp/error-codes-spec',
    });
    const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
      preview: true,
      logger: false,
      abortOnError: false,
    });
    doc = buildOpenApiDocument(app, config, 'test');
    await app.close();
  });

  const errorResponses = (): { where: string; status: number; response: Response }[] =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { responses?: Record<string, Response> }>).flatMap(([method, op]) =>
        Object.entries(op.responses ?? {})
          .filter(([status]) => Number(status) >= 400)
          .map(([status, response]) => ({ where: `${method} ${path}`, status: Number(status), response })),
      ),
    );

  it('covers the application (sanity)', () => {
    expect(Object.keys(doc.paths).length).toBeGreaterThan(100);
  });

  it('every code named by an envelope error response is in the catalog, under its own status', () => {
    const wrong: string[] = [];
    let named = 0;
    for (const { where, status, response } of errorResponses()) {
      if (response.content?.['application/json']?.schema?.$ref !== ENVELOPE) continue;
      for (const [, word] of (response.description ?? '').matchAll(/`([^`]+)`/g)) {
        if (NOT_CODES.has(word)) continue;
        named++;
        const entry = (ERROR_CODES as Record<string, { status: number } | undefined>)[word];
        if (!entry) wrong.push(`${where} ${status}: \`${word}\` is not in the catalog`);
        else if (entry.status !== status) wrong.push(`${where} ${status}: \`${word}\` is a ${entry.status} code`);
      }
    }
    expect(wrong).toEqual([]);
    expect(named).toBeGreaterThan(500);
  });

  it('every error response uses the envelope, except the OAuth, LTI and SCIM protocol endpoints (their standards’ bodies and HTML pages)', () => {
    const others = errorResponses()
      .filter(({ response }) => response.content?.['application/json']?.schema?.$ref !== ENVELOPE)
      .map(({ where }) => where.split(' ')[1]);
    expect([...new Set(others)].sort()).toEqual([
      '/lti/authorize',
      '/lti/contexts/{context_id}/lineitems',
      '/lti/contexts/{context_id}/lineitems/{line_item_id}',
      '/lti/contexts/{context_id}/lineitems/{line_item_id}/results',
      '/lti/contexts/{context_id}/lineitems/{line_item_id}/scores',
      '/lti/contexts/{context_id}/memberships',
      '/lti/deep-linking/return',
      '/lti/registrations/{registration_id}/register',
      '/lti/token',
      '/oauth/authorize',
      '/oauth/authorize/decision',
      '/oauth/register',
      '/oauth/revoke',
      '/oauth/token',
      '/scim/v2/Groups',
      '/scim/v2/Groups/{id}',
      '/scim/v2/ResourceTypes',
      '/scim/v2/ResourceTypes/{resource_type}',
      '/scim/v2/Schemas',
      '/scim/v2/Schemas/{schema_urn}',
      '/scim/v2/ServiceProviderConfig',
      '/scim/v2/Users',
      '/scim/v2/Users/{id}',
    ]);
  });

  it('the envelope code enum and the root x-error-codes list are the catalog', () => {
    const schemas = doc.components?.schemas as Record<string, { properties?: Record<string, { enum?: string[] }> }>;
    expect(schemas.ErrorBodyDto.properties?.code.enum).toEqual(Object.keys(ERROR_CODES));
    expect((doc as unknown as { 'x-error-codes': unknown })['x-error-codes']).toEqual(
      Object.entries(ERROR_CODES).map(([code, e]) => ({ code, status: e.status, meaning: e.meaning })),
    );
  });

  it('the catalog is well formed: snake_case codes, an HTTP error status, a meaning; docs list every code', () => {
    const markdown = errorCatalogsMarkdown();
    for (const [code, e] of Object.entries(ERROR_CODES)) {
      expect({ code, shape: /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(code) }).toEqual({ code, shape: true });
      expect(e.status >= 400 && e.status < 600).toBe(true);
      expect(e.meaning.length).toBeGreaterThan(10);
      expect(markdown).toContain(`\`${code}\``);
    }
  });
});

describe('the catalogs of the channels without the envelope', () => {
  it('lists every OAuth, browser-flow and realtime code in docs/error-codes.md, snake_case', () => {
    const markdown = errorCatalogsMarkdown();
    for (const catalog of [OAUTH_ERROR_CODES, BROWSER_FLOW_FAILURES, REALTIME_ERROR_CODES]) {
      for (const code of Object.keys(catalog)) {
        expect({ code, shape: /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(code) }).toEqual({ code, shape: true });
        expect(markdown).toContain(`| \`${code}\` |`);
      }
    }
  });
});

describe('@ApiErrors', () => {
  it('refuses a code listed under a status that is not its own', () => {
    expect(() => ApiErrors([409, 'not_found'])).toThrow(/not_found.*404/);
    expect(() => ApiErrors([404, 'not_found'], [409, 'slug_taken'], 422)).not.toThrow();
  });
});
