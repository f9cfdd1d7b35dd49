import type { NextFunction, Request, Response } from 'express';
import type { Logger as PinoLogger } from 'pino';
import { takeRequestId } from '@/core/http/request-id';
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

/** What `observeRequests` reports each finished request to (the metrics service). */
export interface RequestObserver {
  observeHttp(req: Request, res: Response, seconds: number): void;
}

/**
 * The first middleware: the request id (the caller's when sane, else a UUID; on `req.id` and in `X-Request-Id`),
 * the request's context for log lines, and on finish the request metric and the access log line (not for probes),
 * from one clock read at each end and one `finish` listener (measured in bench/README.md, pipeline).
 */
export function observeRequests(logger: PinoLogger, metrics: RequestObserver) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = takeRequestId(req.headers['x-request-id']);
    req.id = requestId;
    res.setHeader('X-Request-Id', requestId);
    // A monotonic clock read as a number (no BigInt per read); `finish` is emitted once, so `on` (no once-wrapper).
    const started = performance.now();
    res.on('finish', () => {
      const seconds = (performance.now() - started) / 1e3;
      metrics.observeHttp(req, res, seconds);
      const url = req.originalUrl;
      const queryStart = url.indexOf('?');
      if (UNLOGGED_PATHS.has(queryStart < 0 ? url : url.slice(0, queryStart))) return;
      logger[res.statusCode >= 500 ? 'error' : 'info'](
        {
          request_id: requestId,
          method: req.method,
          url: safeUrl(url),
          status: res.statusCode,
          ms: Math.round(seconds * 1e4) / 10,
        },
        'request completed',
      );
    });
    requestContext.run({ requestId }, next);
  };
}
