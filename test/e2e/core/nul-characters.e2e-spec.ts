import { isScimProtocolPath } from '@/core/http/protocol-errors';
import { randomUUID } from 'node:crypto';
import type { Response } from 'supertest';
import type { SignedIn } from '../../support/auth';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { RAW_BODY_ROUTES } from '@/core/http/raw-body';

type Schema = { $ref?: string; type?: string; properties?: Record<string, Schema>; allOf?: Schema[] };
type Parameter = { name: string; in: string };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const ENCODED = 'x%00y';
const NUL_STRING = 'a\u0000b';

/**
 * A NUL (U+0000) anywhere in a request is refused once, for every route, before routing (PostgreSQL cannot store
 * it, and it used to answer 500): 404 in a path parameter, 422 `validation_error` in the query or the body; the RFC
 * error body on the OAuth protocol endpoints. Driven by the OpenAPI description, so a new route is covered the day
 * it is documented.
 */
describe('NUL characters in requests', () => {
  let t: TestApp;
  let doc: Doc;
  let caller: SignedIn;
  let orgId: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'nul-admin@ops.test' } });
    doc = (await t.http().get('/docs-json').expect(200)).body as Doc;
    // An owner who is also platform admin reaches as deep as any caller can (should the refusal ever move later).
    caller = await adult(t, 'nul-admin@ops.test');
    orgId = await createOrganization(t, caller);
  });
  afterAll(() => t.close());

  const operations = (): { path: string; method: (typeof METHODS)[number]; op: Operation }[] =>
    Object.entries(doc.paths)
      .filter(([path]) => !path.includes('/_probe'))
      .flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] })));

  const pathParams = (path: string): string[] => [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);

  /** The path with real values (the caller's organization, else a fresh UUID) and `override` for one parameter. */
  const fill = (path: string, override?: { name: string; raw: string }): string =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      name === override?.name ? override.raw : name === 'org_id' ? orgId : randomUUID(),
    );

  const call = (method: (typeof METHODS)[number], url: string) =>
    caller.agent[method](url).set('X-Forwarded-For', t.nextIp());

  const outcome = (res: Response) => ({
    status: res.status,
    code: (res.body as { error?: { code?: string } | string }).error,
  });

  it('covers the documented operations (sanity: the description is not empty)', () => {
    const withParams = operations().filter(({ path }) => pathParams(path).length > 0);
    expect(withParams.length).toBeGreaterThan(50);
  });

  it('answers 404 not_found, never 500, to NUL in each path parameter of every documented operation', async () => {
    const wrong: unknown[] = [];
    let calls = 0;
    for (const { path, method } of operations()) {
      for (const name of pathParams(path)) {
        const res = await call(method, fill(path, { name, raw: ENCODED })).send({});
        calls++;
        const body = res.body as { error?: { code?: string; request_id?: string } };
        // The SCIM base answers its RFC 7644 error body (a 404 all the same).
        const scim = isScimProtocolPath(path) && res.status === 404 && JSON.parse(res.text || '{}').status === '404';
        if (scim) continue;
        if (res.status !== 404 || body.error?.code !== 'not_found' || !body.error.request_id) {
          wrong.push({ method, path, name, status: res.status, body: res.body as unknown });
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(calls).toBeGreaterThan(100);
  });

  it('the three routes reported from outside answer 404 (they answered 500 before)', async () => {
    for (const url of [
      `/api/v1/public/certificates/verify/${ENCODED}`,
      `/api/v1/organizations/${orgId}/profiles/${ENCODED}`,
      `/api/v1/organizations/${orgId}/programs/${ENCODED}/progress`,
      `/api/v1/organizations/${orgId}/programs/%00/progress`,
    ]) {
      const res = await caller.agent.get(url).expect(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  /** RFC 7644 has no 422: the SCIM base refuses a NUL as 400 `invalidValue` in its own error body. */
  const scimInvalidValue = (res: { status: number; text: string }): boolean => {
    const body = JSON.parse(res.text || '{}') as { schemas?: string[]; scimType?: string };
    return (
      res.status === 400 &&
      body.schemas?.includes('urn:ietf:params:scim:api:messages:2.0:Error') === true &&
      body.scimType === 'invalidValue'
    );
  };

  it('answers 422 validation_error naming the parameter to NUL in each documented query parameter', async () => {
    const wrong: unknown[] = [];
    let calls = 0;
    for (const { path, method, op } of operations()) {
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      for (const { name } of query) {
        const url = `${fill(path)}?${encodeURIComponent(name)}=${ENCODED}`;
        const res = await call(method, url).send({});
        calls++;
        if (isScimProtocolPath(path)) {
          if (!scimInvalidValue(res)) wrong.push({ method, path, name, status: res.status, body: res.text });
          continue;
        }
        const details = (res.body as { error?: { details?: { field: string }[] } }).error?.details ?? [];
        if (res.status !== 422 || outcome(res).code === undefined || !details.some((d) => d.field === name)) {
          wrong.push({ method, path, name, status: res.status, body: res.body as unknown });
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(calls).toBeGreaterThan(40);
  });

  it('answers 422 to NUL in a query string key, and the raw character in an array value', async () => {
    const key = await caller.agent.get(`/api/v1/organizations/${orgId}/courses?a%00b=1`).expect(422);
    expect(key.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'a\\u0000b' }] });
    const list = await caller.agent.get(`/api/v1/organizations/${orgId}/courses?q=ok&q=${ENCODED}`).expect(422);
    expect(list.body.error.code).toBe('validation_error');
  });

  /** The first string property of the operation's JSON body schema (following `$ref` and `allOf`). */
  const stringField = (schema: Schema | undefined, depth = 0): string | null => {
    if (!schema || depth > 4) return null;
    if (schema.$ref) return stringField(doc.components.schemas[schema.$ref.split('/').pop()!], depth + 1);
    for (const part of schema.allOf ?? []) {
      const found = stringField(part, depth + 1);
      if (found) return found;
    }
    for (const [name, prop] of Object.entries(schema.properties ?? {})) {
      const resolved = prop.$ref ? doc.components.schemas[prop.$ref.split('/').pop()!] : prop;
      if (resolved?.type === 'string') return name;
    }
    return null;
  };

  it('answers 422 validation_error naming the field to NUL in a string of every documented JSON body', async () => {
    const wrong: unknown[] = [];
    let calls = 0;
    for (const { path, method, op } of operations()) {
      const field = stringField(op.requestBody?.content?.['application/json']?.schema);
      // The OAuth registration answers its RFC body instead (checked below). Raw-body routes (signed webhooks)
      // authenticate the bytes before reading any field (test/email-webhooks.e2e-spec.ts covers NUL there).
      if (!field || path === '/api/v1/oauth/register' || RAW_BODY_ROUTES.some((r) => r.path.test(path))) continue;
      const res = await call(method, fill(path)).send({ [field]: NUL_STRING });
      calls++;
      if (isScimProtocolPath(path)) {
        if (!scimInvalidValue(res)) wrong.push({ method, path, field, status: res.status, body: res.text });
        continue;
      }
      const details = (res.body as { error?: { details?: { field: string; message: string }[] } }).error?.details;
      if (res.status !== 422 || !details?.some((d) => d.field === field && /NUL/.test(d.message))) {
        wrong.push({ method, path, field, status: res.status, body: res.body as unknown });
      }
    }
    expect(wrong).toEqual([]);
    expect(calls).toBeGreaterThan(30);
  });

  it('names nested fields and keys, and changes nothing', async () => {
    const before = (await caller.agent.get('/api/v1/auth/me').expect(200)).body;
    const nested = await caller.agent
      .patch('/api/v1/me/profile')
      .send({ name: 'Fine', bio: 'ok', extra: [{ deep: { text: NUL_STRING } }], ['k\u0000']: 1 })
      .expect(422);
    expect(nested.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'extra.0.deep.text', message: expect.stringContaining('NUL') },
        { field: 'k\\u0000', message: expect.stringContaining('NUL') },
      ]),
    );
    expect((await caller.agent.get('/api/v1/auth/me').expect(200)).body).toEqual(before);
  });

  it('on the OAuth protocol endpoints answers the RFC error body, not the envelope', async () => {
    for (const endpoint of ['token', 'revoke']) {
      const res = await t
        .client()
        .post(`/api/v1/oauth/${endpoint}`)
        .type('form')
        .send(`grant_type=authorization_code&token=${ENCODED}&code=${ENCODED}`)
        .expect(400);
      expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const register = await t
      .client()
      .post('/api/v1/oauth/register')
      .send({ redirect_uris: ['https://app.example/cb'], client_name: NUL_STRING })
      .expect(400);
    expect(register.body).toEqual({
      error: 'invalid_request',
      error_description: 'client_name must not contain the NUL character (\\u0000)',
    });
  });
});
