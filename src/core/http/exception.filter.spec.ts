import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { resolveError } from './exception.filter';

describe('resolveError', () => {
  it('keeps an ApiError as thrown', () => {
    const r = resolveError(ApiError.tooManyRequests(2.2));
    expect(r).toMatchObject({
      status: 429,
      code: 'too_many_requests',
      headers: { 'Retry-After': '3' },
      unexpected: false,
    });
  });

  it('maps framework exceptions by status to our codes and wording', () => {
    expect(resolveError(new NotFoundException('Cannot GET /x'))).toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'Not found.',
    });
    expect(resolveError(new BadRequestException('x'))).toMatchObject({ status: 400, code: 'bad_request' });
    expect(resolveError(new PayloadTooLargeException())).toMatchObject({ status: 413, code: 'payload_too_large' });
  });

  it('maps body-parser errors', () => {
    expect(resolveError({ type: 'entity.parse.failed', status: 400 })).toMatchObject({
      status: 400,
      code: 'malformed_json',
    });
    expect(resolveError({ type: 'entity.too.large', status: 413 })).toMatchObject({
      status: 413,
      code: 'payload_too_large',
    });
    expect(resolveError({ type: 'charset.unsupported', status: 415 })).toMatchObject({
      status: 415,
      code: 'unsupported_media_type',
    });
  });

  it('answers 503 with Retry-After when the database cannot be reached, and 500 for anything else unknown', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const terminated = new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly'));
    const shutdown = new QueryFailedError('SELECT 1', [], Object.assign(new Error('terminating'), { code: '57P01' }));
    const aggregate = new AggregateError([refused], 'connect failed');
    for (const err of [
      refused,
      terminated,
      shutdown,
      aggregate,
      new Error('timeout exceeded when trying to connect'),
    ]) {
      expect(resolveError(err)).toMatchObject({
        status: 503,
        code: 'service_unavailable',
        headers: { 'Retry-After': '5' },
      });
    }
    expect(resolveError(new Error('something else'))).toMatchObject({ status: 500, code: 'internal_error' });
  });

  it('turns a unique violation into 409 conflict and hides everything else as 500', () => {
    const unique = new QueryFailedError('INSERT ...', [], Object.assign(new Error('dup'), { code: '23505' }));
    expect(resolveError(unique)).toMatchObject({ status: 409, code: 'conflict', unexpected: false });
    const other = new QueryFailedError('SELECT secret', [], Object.assign(new Error('boom'), { code: '42P01' }));
    expect(resolveError(other)).toEqual({
      status: 500,
      code: 'internal_error',
      message: 'Internal server error.',
      unexpected: true,
    });
    expect(resolveError(new Error('anything'))).toMatchObject({
      status: 500,
      code: 'internal_error',
      unexpected: true,
    });
  });

  it('answers 422 for a NUL that reached PostgreSQL (text 22021, jsonb 22P05), as a backstop of the input check', () => {
    for (const code of ['22021', '22P05']) {
      const err = new QueryFailedError('INSERT ...', [], Object.assign(new Error('invalid byte sequence'), { code }));
      expect(resolveError(err)).toMatchObject({ status: 422, code: 'validation_error', unexpected: false });
    }
  });
});
