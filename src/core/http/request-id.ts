import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

declare module 'node:http' {
  interface IncomingMessage {
    /** The request id (see observeRequests in core/logging). */
    id?: string;
  }
}

const SANE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token, else a fresh UUID. */
export function takeRequestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
}

/** The request id ('' before the middleware ran). */
export function requestIdOf(req: IncomingMessage): string {
  return req.id ?? '';
}
