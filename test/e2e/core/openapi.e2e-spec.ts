import { isLtiProtocolPath } from '@/core/http/protocol-errors';
import SwaggerParser from '@apidevtools/swagger-parser';
import { API_TAGS } from '@/core/http/swagger';
import { createTestApp, type TestApp } from '../../support/test-app';

type Operation = {
  summary?: string;
  tags?: string[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
};

/** The OpenAPI description is part of the contract: valid, and complete for every operation. */
describe('OpenAPI description', () => {
  let t: TestApp;
  let doc: { paths: Record<string, Record<string, Operation>> };
  beforeAll(async () => {
    t = await createTestApp();
    doc = (await t.http().get('/docs-json').expect(200)).body;
  });
  afterAll(() => t.close());

  const operations = (): [string, string, Operation][] =>
    Object.entries(doc.paths)
      .filter(([path]) => !path.includes('/_probe'))
      .flatMap(([path, item]) =>
        Object.entries(item).map(([method, op]) => [path, method, op] as [string, string, Operation]),
      );

  it('is a valid OpenAPI 3 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('every operation has a summary and a tag of a functional area', () => {
    const known = new Set(API_TAGS.map((tag) => tag.name));
    for (const [path, method, op] of operations()) {
      expect({ path, method, summary: op.summary?.length ? 'ok' : 'missing' }).toEqual({ path, method, summary: 'ok' });
      expect({ path, method, tags: op.tags?.every((tag) => known.has(tag)) && op.tags.length > 0 }).toEqual({
        path,
        method,
        tags: true,
      });
    }
  });

  it('every error response refers to the shared envelope (OAuth, SCIM and LTI protocol endpoints excepted, as their RFCs require)', () => {
    for (const [path, method, op] of operations()) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (path.startsWith('/scim/v2/')) {
          // RFC 7644 3.12: SCIM error bodies in application/scim+json.
          if (/^[45]/.test(status)) {
            const scim = Boolean(response.content?.['application/scim+json']?.schema);
            expect({ path, method, status, scim }).toEqual({ path, method, status, scim: true });
          }
          continue;
        }
        if (!/^[45]/.test(status) || path.startsWith('/api/v1/oauth/') || isLtiProtocolPath(path)) continue;
        const ref = response.content?.['application/json']?.schema?.$ref;
        expect({ path, method, status, ref }).toEqual({
          path,
          method,
          status,
          ref: '#/components/schemas/ErrorEnvelopeDto',
        });
      }
    }
  });

  it('every operation documents 500 and, unless public, 401', () => {
    for (const [path, method, op] of operations()) {
      expect({ path, method, has500: '500' in op.responses }).toEqual({ path, method, has500: true });
      const isPublic = (op as { security?: unknown[] }).security?.length === 0;
      if (!isPublic) expect({ path, method, has401: '401' in op.responses }).toEqual({ path, method, has401: true });
    }
  });
});
