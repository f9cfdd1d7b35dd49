import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { refuseNulCharacters } from './nul-characters';
import { rawBodyParser } from './raw-body';

/** SCIM (RFC 7644) clients send `application/scim+json`; both are parsed as JSON. */
const JSON_TYPES = ['application/json', 'application/scim+json'];

export interface RequestBodyOptions {
  /** The JSON body limit (`1mb`). */
  readonly jsonLimit: string;
  /** The form (`application/x-www-form-urlencoded`) body limit. */
  readonly formLimit: string;
}

/**
 * Whether the request carries a body: HTTP/1.1 frames one only with `Transfer-Encoding` or `Content-Length`
 * (RFC 9112 6.3). The same test the body parsers make first (type-is's `hasBody`).
 */
export function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && !Number.isNaN(Number(length)));
}

/**
 * The body parsers in their order (raw bodies of signed webhooks first, then JSON, then forms), then the NUL
 * check, as one middleware. A request without a body (most reads) goes straight to the NUL check of its URL: the
 * three parsers would each find there is nothing to read (measured in bench/README.md, pipeline).
 */
export function requestBody(options: RequestBodyOptions): RequestHandler {
  const raw = rawBodyParser();
  const json = express.json({ limit: options.jsonLimit, type: JSON_TYPES });
  const form = express.urlencoded({ extended: false, limit: options.formLimit });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!hasBody(req)) {
      // What the parsers leave on a request they skip.
      const parsed: { body?: unknown } = req;
      if (!('body' in parsed)) parsed.body = undefined;
      refuseNulCharacters(req, res, next);
      return;
    }
    raw(req, res, (rawErr?: unknown) => {
      if (rawErr) return next(rawErr);
      json(req, res, (jsonErr?: unknown) => {
        if (jsonErr) return next(jsonErr);
        form(req, res, (formErr?: unknown) => (formErr ? next(formErr) : refuseNulCharacters(req, res, next)));
      });
    });
  };
}
