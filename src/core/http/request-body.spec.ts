import type { Request } from 'express';
import { hasBody } from './request-body';

const req = (headers: Record<string, string>) => ({ headers }) as unknown as Request;

describe('hasBody (RFC 9112 6.3 framing)', () => {
  it('a request without Content-Length or Transfer-Encoding has no body', () => {
    expect(hasBody(req({}))).toBe(false);
    expect(hasBody(req({ 'content-type': 'application/json' }))).toBe(false);
  });

  it('Content-Length (even 0) or Transfer-Encoding frames a body', () => {
    expect(hasBody(req({ 'content-length': '0' }))).toBe(true);
    expect(hasBody(req({ 'content-length': '12' }))).toBe(true);
    expect(hasBody(req({ 'transfer-encoding': 'chunked' }))).toBe(true);
  });
});
