import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-error';
import { fieldsWithNul, refuseNulCharacters } from './nul-characters';

function run(req: Partial<Request>): unknown {
  let passed: unknown = 'not called';
  const next: NextFunction = (err?: unknown) => (passed = err);
  refuseNulCharacters({ url: '/', query: {}, body: undefined, ...req } as Request, {} as Response, next);
  return passed;
}

describe('fieldsWithNul', () => {
  it('names string values and keys holding NUL, as validation details name fields', () => {
    expect(
      fieldsWithNul({ a: 'ok', b: 'x\u0000', c: [{ d: 'fine' }, { e: ['\u0000'] }], ['k\u0000']: 1, n: 5, z: null }),
    ).toEqual(['b', 'c.1.e.0', 'k\\u0000']);
    expect(fieldsWithNul({ a: 'clean', b: [1, true, { c: 'also' }] })).toEqual([]);
    expect(fieldsWithNul(undefined)).toEqual([]);
  });

  it('leaves raw bodies (Buffers of signed webhooks) to their route, without walking their bytes', () => {
    expect(fieldsWithNul(Buffer.from('{"type":"x\\u0000"}\u0000'))).toEqual([]);
  });

  it('stops at the limit and survives a deeply nested body without recursion', () => {
    const many = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, '\u0000']));
    expect(fieldsWithNul(many)).toHaveLength(20);
    let deep: unknown = '\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(fieldsWithNul(deep)).toHaveLength(1);
  });
});

describe('refuseNulCharacters', () => {
  it('answers 404 for %00 in the path, whatever its case, and leaves %2500 alone', () => {
    expect(run({ url: '/api/v1/public/certificates/verify/a%00' })).toMatchObject({ status: 404, code: 'not_found' });
    expect(run({ url: '/api/v1/x/%00?q=1' })).toBeInstanceOf(ApiError);
    expect(run({ url: '/api/v1/x/%2500' })).toBeUndefined();
  });

  it('answers 422 naming the query and body fields', () => {
    const err = run({ url: '/x?q=%00', query: { q: '\u0000' }, body: { name: 'a\u0000' } }) as ApiError;
    expect(err).toMatchObject({ status: 422, code: 'validation_error' });
    expect(err.details?.map((d) => d.field)).toEqual(['q', 'name']);
  });

  it('passes clean requests on', () => {
    expect(run({ url: '/x?q=a', query: { q: 'a' }, body: { name: 'b' } })).toBeUndefined();
  });
});
