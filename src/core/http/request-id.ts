import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id (see requestIdMiddleware). */
    id?: string;
  }
}

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Takes or generates the request id, exposes it on `req.id` and echoes
 * it in `X-Request-Id`: the caller's id when it is a sane token, else a UUID.
 */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const id = takeRequestId(req.headers['x-request-id']);
  req.id = id;
  res.setHeader('X-Request-Id', id);
  next();
}

/** The caller's X-Request-Id when it is a sane token, else a fresh UUID. */
export function takeRequestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
}

/** The request id ('' before the middleware ran). */
export function requestIdOf(req: IncomingMessage): string {
  return req.id ?? '';
}
