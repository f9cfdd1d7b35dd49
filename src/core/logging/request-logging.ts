import type { NextFunction, Request, Response } from 'express';
import type { Logger as PinoLogger } from 'pino';
import { requestIdOf } from '@/core/http/request-id';
import { requestContext } from './request-context';

/** Paths answered without a request log line: probes are polled constantly and carry no information. */
export const UNLOGGED_PATHS = new Set(['/health', '/ready', '/version']);

/** Query parameters whose values are secrets (one-time codes, OAuth state, unsubscribe tokens). */
const SECRET_PARAMS =
  /^(code|state|token|access_token|refresh_token|id_token|code_verifier|client_secret|password|otp)$/i;

/**
 * Paths that carry a capability token in a segment (extensions-v2 25.2: the calendar feed, the one such path):
 * the token is written as `[token]`.
 */
const SECRET_PATHS: readonly [RegExp, string][] = [[/^(\/api\/v1\/calendar\/)[^/?]*?(\.ics)?$/i, '$1[token]$2']];

function safePath(path: string): string {
  for (const [pattern, replacement] of SECRET_PATHS) if (pattern.test(path)) return path.replace(pattern, replacement);
  return path;
}

/** The path (capability tokens removed) plus the query with secret values replaced. */
export function safeUrl(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  if (q < 0) return safePath(url);
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (SECRET_PARAMS.test(key)) params.set(key, '[redacted]');
  return `${safePath(url.slice(0, q))}?${params.toString()}`;
}

/**
 * Runs the rest of the request inside its context (so every log line carries the request id) and writes one
 * line when the response finishes: method, path with secrets removed, status and duration. No headers,
 * cookies, bodies or client addresses.
 */
export function requestLogging(logger: PinoLogger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = requestIdOf(req);
    const path = req.url.split('?', 1)[0];
    if (!UNLOGGED_PATHS.has(path)) {
      const started = process.hrtime.bigint();
      res.once('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        const level = res.statusCode >= 500 ? 'error' : 'info';
        logger[level](
          {
            request_id: requestId,
            method: req.method,
            url: safeUrl(req.originalUrl),
            status: res.statusCode,
            ms: Math.round(ms * 10) / 10,
          },
          'request completed',
        );
      });
    }
    requestContext.run({ requestId }, next);
  };
}
