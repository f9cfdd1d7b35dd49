import { randomUUID } from 'node:crypto';
import type { Socket } from 'socket.io-client';
import type { Response } from 'supertest';
import { isLtiProtocolPath, isOAuthProtocolPath, isScimProtocolPath } from '@/core/http/protocol-errors';
import { signIn, type SignedIn, stepUpByEmail } from '../../support/auth';
import { accessCookie, connected, socketTo } from '../../support/realtime';
import { adult, createOrganization, personalToken } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

type Schema = {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
};
type Parameter = { name: string; in: string; schema?: Schema };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  'x-public'?: boolean;
  'x-session-only'?: string;
};
type Doc = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

const METHODS: Method[] = ['get', 'post', 'put', 'patch', 'delete'];
const HUGE = 'Ω'.repeat(20_000);
/** Operations left out, each with its reason: they end or switch the caller's own session mid-run. */
const LEFT_OUT = new Set([
  'post /api/v1/auth/logout', // ends the session the run uses
  'post /api/v1/admin/users/{user_id}/impersonate', // turns the caller's cookie into an impersonation session
]);

/**
 * Junk requests over every operation of the OpenAPI description (wrong types, huge strings, NUL bytes, unknown ids,
 * another organization's ids in paths and bodies, bodies that are not objects) and over every client event of the
 * `/duels` Socket.IO namespace: nothing answers 5xx (or `internal_error`), and every JSON 4xx is the error
 * envelope (the OAuth protocol endpoints answer their RFC body instead). Driven by the description, so an operation
 * is fuzzed the day it is documented.
 */
describe('Fuzz: junk over every documented operation and every /duels event', () => {
  let t: TestApp;
  let doc: Doc;
  let caller: SignedIn;
  let orgA: string;
  let orgB: string;
  let otherUser: string;

  const refreshCaller = async (): Promise<void> => {
    caller = await signIn(t, caller.email);
    await stepUpByEmail(t, caller);
  };

  let scimToken: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'fuzz-admin@ops.test' } });
    doc = (await t.http().get('/docs-json').expect(200)).body as Doc;
    // A platform admin who owns an organization, freshly stepped up, reaches as deep as any caller can.
    caller = await adult(t, 'fuzz-admin@ops.test');
    orgA = await createOrganization(t, caller);
    const other = await adult(t);
    otherUser = other.user.id;
    orgB = await createOrganization(t, other, 'Other Organization');
    await stepUpByEmail(t, caller);
    // The SCIM base answers only its own tokens: junk reaches its handlers with one of orgA's.
    const scim = await caller.agent
      .post(`/api/v1/organizations/${orgA}/scim/tokens`)
      .set('X-Forwarded-For', caller.ip)
      .send({ description: 'fuzz' })
      .expect(201);
    scimToken = scim.body.token as string;
  }, 60_000);
  afterAll(() => t.close());

  const resolve = (schema: Schema | undefined, depth = 0): Schema | undefined => {
    if (!schema || depth > 6) return schema;
    if (schema.$ref) return resolve(doc.components.schemas[schema.$ref.split('/').pop()!], depth + 1);
    const parts = schema.allOf ?? schema.oneOf ?? schema.anyOf;
    if (parts?.length && !schema.properties) {
      const merged: Schema = { type: 'object', properties: {} };
      for (const part of parts) Object.assign(merged.properties!, resolve(part, depth + 1)?.properties ?? {});
      return merged;
    }
    return schema;
  };

  /** A plausible value of a schema, with another organization's ids wherever an id goes. */
  const foreign = (name: string, schema: Schema | undefined, depth = 0): unknown => {
    const s = resolve(schema);
    if (!s || depth > 3) return null;
    if (s.enum?.length) return s.enum[0];
    if (/_ids$/.test(name)) return [orgB, otherUser];
    if (/(^id|_id)$/.test(name) || s.format === 'uuid') return name.includes('user') ? otherUser : orgB;
    if (s.example !== undefined) return s.example;
    switch (s.type) {
      case 'string': {
        const byFormat: Record<string, string> = {
          'date-time': '2030-01-01T00:00:00Z',
          date: '2030-01-01',
          email: 'fuzz@example.test',
          uri: 'https://example.test/fuzz',
          url: 'https://example.test/fuzz',
        };
        const text = byFormat[s.format ?? ''] ?? 'fuzz'.padEnd(s.minLength ?? 0, 'z');
        return s.maxLength !== undefined ? text.slice(0, s.maxLength) : text;
      }
      case 'integer':
      case 'number':
        return Math.min(s.maximum ?? Infinity, Math.max(s.minimum ?? 1, 1));
      case 'boolean':
        return true;
      case 'array':
        return Array.from({ length: Math.max(1, s.minItems ?? 1) }, () => foreign(name, s.items, depth + 1));
      default:
        return Object.fromEntries(
          Object.entries(s.properties ?? {}).map(([key, prop]) => [key, foreign(key, prop, depth + 1)]),
        );
    }
  };

  /** The same shape with every value of a wrong type. */
  const wrongType = (schema: Schema | undefined, depth = 0): unknown => {
    const s = resolve(schema);
    if (!s || depth > 3) return { unexpected: true };
    switch (s.type) {
      case 'string':
        return depth % 2 ? 12345 : { nested: 'object' };
      case 'integer':
      case 'number':
        return depth % 2 ? '1e309' : -1e308;
      case 'boolean':
        return 'yes';
      case 'array':
        return { length: 3 };
      default:
        if (!s.properties) return 'not an object';
        return Object.fromEntries(
          Object.keys(s.properties).map((key, i) => [key, wrongType(s.properties![key], depth + 1 + i)]),
        );
    }
  };

  /** The same shape with huge strings and long arrays. */
  const huge = (schema: Schema | undefined, depth = 0): unknown => {
    const s = resolve(schema);
    if (!s || depth > 3) return HUGE;
    switch (s.type) {
      case 'string':
        return HUGE;
      case 'integer':
      case 'number':
        return Number.MAX_SAFE_INTEGER * 1024;
      case 'boolean':
        return true;
      case 'array':
        return Array.from({ length: 2_000 }, () => randomUUID());
      default:
        return Object.fromEntries(
          Object.entries(s.properties ?? {}).map(([key, prop]) => [key, huge(prop, depth + 1)]),
        );
    }
  };

  interface Case {
    what: string;
    url: string;
    body?: unknown;
    raw?: string;
  }

  const fill = (path: string, org: string): string =>
    path.replace(/\{([^}]+)\}/g, (_, name: string) =>
      name === 'org_id' ? org : name === 'user_id' ? otherUser : randomUUID(),
    );

  const casesOf = (path: string, op: Operation): Case[] => {
    const own = fill(path, orgA);
    const query = (op.parameters ?? []).filter((p) => p.in === 'query');
    const bodySchema = op.requestBody?.content?.['application/json']?.schema;
    const cases: Case[] = [
      { what: 'unknown and foreign ids', url: own, body: bodySchema ? foreign('', bodySchema) : undefined },
    ];
    if (path.includes('{org_id}')) cases.push({ what: 'another organization', url: fill(path, orgB), body: {} });
    if (query.length) {
      const junk = (value: string): string =>
        `${own}?${query.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(value)}`).join('&')}`;
      // Long, within what Node's HTTP parser takes (16 KB of request head; beyond, it answers 431 itself).
      cases.push({ what: 'huge query', url: junk(HUGE.slice(0, Math.floor(1_500 / query.length))) });
      cases.push({ what: 'junk query', url: `${junk('-99999999999999999999')}&${query[0].name}=[]` });
    }
    if (bodySchema) {
      cases.push({ what: 'wrong types', url: own, body: wrongType(bodySchema) });
      cases.push({ what: 'huge values', url: own, body: huge(bodySchema) });
      cases.push({ what: 'NUL bytes', url: own, body: { ...(foreign('', bodySchema) as object), note: 'a\u0000b' } });
      cases.push({ what: 'array body', url: own, raw: '[1,"two",null]' });
    }
    return cases;
  };

  const isEnvelope = (body: unknown): boolean => {
    const error = (body as { error?: { code?: unknown; message?: unknown; request_id?: unknown } }).error;
    return typeof error?.code === 'string' && typeof error.message === 'string' && typeof error.request_id === 'string';
  };

  /** RFC 7644 3.12: the SCIM base answers its own error body, with the statuses the RFC lists (no 422). */
  const isScimError = (res: Response): boolean => {
    const body = (typeof res.body === 'object' && res.body ? res.body : JSON.parse(res.text ?? '{}')) as {
      schemas?: string[];
    };
    return body.schemas?.includes('urn:ietf:params:scim:api:messages:2.0:Error') === true && res.status !== 422;
  };

  const judge = (path: string, res: Response): string | null => {
    if (res.status >= 500) return `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;
    if (isScimProtocolPath(path)) {
      return res.status >= 400 && !isScimError(res)
        ? `${res.status} not a SCIM error: ${String(res.text ?? JSON.stringify(res.body)).slice(0, 300)}`
        : null;
    }
    const json = /json/.test(String(res.headers['content-type'] ?? ''));
    if (isLtiProtocolPath(path)) {
      // The standards' bodies: `{error, error_description}` in JSON (token, registration, AGS, NRPS), else HTML.
      const body = res.body as { error?: unknown; error_description?: unknown };
      const standard = typeof body?.error === 'string' && typeof body.error_description === 'string';
      return res.status >= 400 && json && !standard ? `${res.status} not the standard's error body` : null;
    }
    if (res.status >= 400 && json && !isOAuthProtocolPath(path) && !isEnvelope(res.body)) {
      return `${res.status} not the envelope: ${JSON.stringify(res.body).slice(0, 300)}`;
    }
    return null;
  };

  it('the judge catches a 500 and a 4xx outside the envelope (it can fail)', async () => {
    const boom = await caller.agent.get('/api/v1/_probe/boom');
    expect(judge('/api/v1/_probe/boom', boom)).toMatch(/^500 /);
    const bare = { status: 400, headers: { 'content-type': 'application/json' }, body: { error: 'x' } };
    expect(judge('/api/v1/anything', bare as unknown as Response)).toMatch(/not the envelope/);
    expect(judge('/api/v1/oauth/token', bare as unknown as Response)).toBeNull();
    expect(judge('/scim/v2/Users', bare as unknown as Response)).toMatch(/not a SCIM error/);
  });

  const documented = (): { path: string; method: Method; op: Operation }[] =>
    Object.entries(doc.paths)
      .filter(([path]) => !path.includes('/_probe'))
      .flatMap(([path, item]) =>
        METHODS.filter((m) => item[m] && !LEFT_OUT.has(`${m} ${path}`)).map((method) => ({
          path,
          method,
          op: item[method],
        })),
      )
      // Reads, then writes, then deletions (the broadest last: they may remove what the others use).
      .sort(
        (a, b) =>
          METHODS.indexOf(a.method) - METHODS.indexOf(b.method) ||
          (a.method === 'delete' ? b.path.length - a.path.length : 0),
      );

  it('answers no 5xx to foreign ids from a bearer token bound to the organization', async () => {
    const token = await personalToken(t, caller, orgA, 'write');
    const wrong: string[] = [];
    let calls = 0;
    for (const { path, method, op } of documented()) {
      if (op['x-public'] || op['x-session-only']) continue;
      const [c] = casesOf(path, op);
      const res = await t
        .client(caller.ip)
        .set('Authorization', `Bearer ${isScimProtocolPath(path) ? scimToken : token}`)
        [method](c.url)
        .send(c.body as object);
      calls++;
      const verdict = judge(path, res);
      if (verdict) wrong.push(`${method.toUpperCase()} ${path} (token, ${c.what}): ${verdict}`);
    }
    expect(wrong).toEqual([]);
    expect(calls).toBeGreaterThan(200);
  }, 120_000);

  it('answers no 5xx and only enveloped JSON 4xx to junk on every documented operation', async () => {
    const operations = documented();
    const wrong: string[] = [];
    let calls = 0;
    for (const { path, method, op } of operations) {
      for (const c of casesOf(path, op)) {
        let req = caller.agent[method](c.url).set('X-Forwarded-For', caller.ip);
        if (isScimProtocolPath(path)) req = req.set('Authorization', `Bearer ${scimToken}`);
        if (c.raw !== undefined) req = req.set('Content-Type', 'application/json').send(c.raw);
        else if (c.body !== undefined) req = req.send(c.body as object);
        const res = await req.catch((err: Error) => err);
        calls++;
        if (res instanceof Error) {
          wrong.push(`${method.toUpperCase()} ${path} (${c.what}): ${res.message}`);
          continue;
        }
        const verdict = judge(path, res);
        if (verdict) wrong.push(`${method.toUpperCase()} ${path} (${c.what}): ${verdict}`);
        // An operation that ended the caller's session (an account deletion, a session revocation): sign in again.
        if (res.status === 401 && !op['x-public']) {
          const me = await caller.agent.get('/api/v1/auth/me');
          if (me.status === 401) await refreshCaller();
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(calls).toBeGreaterThan(1_000);
  }, 300_000);

  it('answers no internal_error to junk on every client event of /duels', async () => {
    const events = ['queue:join', 'queue:leave', 'duel:ready', 'duel:answer', 'duel:forfeit', 'duel:state'];
    const payloads: unknown[] = [
      undefined,
      null,
      42,
      'a string',
      [1, 2, 3],
      {},
      { duel_id: 'not-a-uuid', course_id: 12, option_ids: 'x', round: -1 },
      { duel_id: randomUUID(), course_id: randomUUID(), option_ids: [randomUUID()], round: 1 },
      { duel_id: orgB, course_id: orgB, option_ids: [orgB], round: 99999999999 },
      { duel_id: HUGE, course_id: HUGE, option_ids: Array.from({ length: 1_000 }, () => HUGE.slice(0, 50)) },
      { duel_id: 'a\u0000b', course_id: '\u0000', option_ids: ['\u0000'] },
    ];
    const cookie = await accessCookie(caller);
    const wrong: string[] = [];
    for (const event of events) {
      // A socket per event: the namespace allows 20 client events per second per socket.
      const socket: Socket = await connected(socketTo(t, '/duels', { cookie, organizationId: orgA }));
      try {
        for (const payload of payloads) {
          const answer = (await socket.timeout(5_000).emitWithAck(event, payload)) as {
            ok: boolean;
            error?: { code?: string };
          };
          if (answer.error?.code === 'internal_error' || (!answer.ok && typeof answer.error?.code !== 'string')) {
            wrong.push(`${event} ${JSON.stringify(payload)?.slice(0, 80)}: ${JSON.stringify(answer)}`);
          }
        }
      } finally {
        socket.disconnect();
      }
    }
    expect(wrong).toEqual([]);
  }, 120_000);
});
