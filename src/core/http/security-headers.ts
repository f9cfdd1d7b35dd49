import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

/**
 * Helmet's headers, computed once. Helmet decides the policy; its output is static for our options (no CSP
 * nonces), so it is captured at start and replayed on each response instead of running helmet's dozen
 * middlewares per request (measured in bench/README.md).
 */
export function securityHeaders(options: HelmetOptions): (req: Request, res: Response, next: NextFunction) => void {
  const captured: [string, string][] = [];
  const removed: string[] = [];
  const fakeRes = {
    setHeader: (name: string, value: string | number) => void captured.push([name, String(value)]),
    removeHeader: (name: string) => void removed.push(name),
    getHeader: () => undefined,
  } as unknown as ServerResponse;
  let ran = false;
  helmet(options)({ headers: {} } as IncomingMessage, fakeRes, () => (ran = true));
  if (!ran) throw new Error('helmet did not complete synchronously');
  return (_req, res, next) => {
    for (const [name, value] of captured) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    next();
  };
}
