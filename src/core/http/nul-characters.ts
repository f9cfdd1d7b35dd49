import type { NextFunction, Request, Response } from 'express';
import { ApiError } from './api-error';

const NUL = '\u0000';
/** `%00` in the raw path: Express decodes it into a parameter, and PostgreSQL cannot store or compare it. */
const ENCODED_NUL = /%00/i;
/** A 422 names at most this many fields (a body can hold thousands). */
const MAX_DETAILS = 20;
const MESSAGE = 'must not contain the NUL character (\\u0000)';

function label(key: string): string {
  return key.replaceAll(NUL, '\\u0000');
}

/**
 * The fields of parsed input (query or body) whose string value or key holds a NUL, named as the validation
 * details name them (`items.0.name`). Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function fieldsWithNul(input: unknown, limit = MAX_DETAILS): string[] {
  const found: string[] = [];
  // [value, its field, whether its key itself holds NUL]; popped in document order.
  const stack: [unknown, string, boolean][] = [[input, '', false]];
  while (stack.length > 0 && found.length < limit) {
    const [value, path, badKey] = stack.pop()!;
    if (badKey) {
      found.push(path);
      continue;
    }
    if (typeof value === 'string') {
      if (value.includes(NUL)) found.push(path || '(body)');
      continue;
    }
    // A raw body (signed webhooks) is bytes checked by its own route, not fields.
    if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) continue;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries.reverse()) {
      stack.push([child, path ? `${path}.${label(key)}` : label(key), key.includes(NUL)]);
    }
  }
  return found.slice(0, limit);
}

/**
 * No request string may hold NUL (extensions-v2 2: no request produces a 500; PostgreSQL refuses U+0000 in `text`
 * and `jsonb`). Checked once for every route, after the body parsers and before routing: in a path parameter the
 * request names something that cannot exist (404 `not_found`, as a malformed id is); in the query or the body it is
 * invalid input (422 `validation_error` naming the fields). Multipart fields and file contents, parsed later by
 * their route, are covered by the database backstop in the exception filter.
 */
export function refuseNulCharacters(req: Request, _res: Response, next: NextFunction): void {
  const queryStart = req.url.indexOf('?');
  const path = queryStart < 0 ? req.url : req.url.slice(0, queryStart);
  if (ENCODED_NUL.test(path)) {
    next(ApiError.notFound());
    return;
  }
  // Most requests have neither a query nor a body: nothing more to look at.
  if (queryStart < 0 && req.body === undefined) {
    next();
    return;
  }
  const fields = [
    ...fieldsWithNul(queryStart < 0 ? undefined : req.query),
    ...fieldsWithNul(req.body as unknown),
  ].slice(0, MAX_DETAILS);
  if (fields.length > 0) {
    next(ApiError.validation(fields.map((field) => ({ field, message: MESSAGE }))));
    return;
  }
  next();
}
