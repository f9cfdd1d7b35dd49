import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/** A route whose exact request bytes matter (a signature covers them), read as a Buffer instead of parsed JSON. */
export interface RawBodyRoute {
  /** Matched against the whole path (a trailing slash is the same route, as Nest's router says). */
  readonly path: RegExp;
  /** The body limit of this route; larger bodies are 413 `payload_too_large`. */
  readonly limit: string;
}

/**
 * Routes that receive raw bodies. Standard Webhooks signatures cover the body exactly as sent, and re-serializing
 * parsed JSON would not reproduce it, so these bodies skip the JSON parser (extensions-v2 22.1: at most 256 KiB).
 */
export const RAW_BODY_ROUTES: readonly RawBodyRoute[] = [{ path: /^\/api\/v1\/webhooks\/email\/?$/, limit: '256kb' }];

/**
 * Reads the bodies of the raw routes into `req.body` as a Buffer, whatever their content type. Mounted before the
 * JSON and form parsers, which then see the request as already read and leave it alone.
 */
export function rawBodyParser(routes: readonly RawBodyRoute[] = RAW_BODY_ROUTES): RequestHandler {
  const parsers = routes.map((route) => ({
    path: route.path,
    parse: express.raw({ type: () => true, limit: route.limit }),
  }));
  return (req: Request, res: Response, next: NextFunction) => {
    const match = parsers.find((p) => p.path.test(req.path));
    if (!match) return next();
    match.parse(req, res, next);
  };
}
