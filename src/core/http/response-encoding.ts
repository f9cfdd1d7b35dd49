import { hash } from 'node:crypto';
import type { Server } from 'node:http';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import {
  applyDecorators,
  type CallHandler,
  type ExecutionContext,
  Injectable,
  type NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiHeader, ApiResponse } from '@nestjs/swagger';
import type { Express, Request, Response } from 'express';
import type { Observable } from 'rxjs';

/**
 * JSON answers of at least this many bytes are compressed when the client accepts it. Chosen with
 * `node bench/compression.mjs`: compressing costs 15-60 us of CPU per answer whatever its size (brotli quality 1,
 * gzip level 1), and at 2 KiB it already saves ~600 us on a 20 Mbit/s link and at least one TCP segment; smaller
 * answers leave in the same segment or two either way, so the CPU would buy nothing.
 */
export const COMPRESS_MIN_BYTES = 2048;

/**
 * Keep-alive of idle client connections. Must exceed the load balancer's idle timeout (AWS ALB and nginx upstream
 * keepalive: 60 s), so the balancer, not the service, closes an idle connection: a service closing first races a
 * request the balancer is sending on it (a 502). Headers must arrive within a little more.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000;
export const HEADERS_TIMEOUT_MS = 66_000;

const REVALIDATED = Symbol('revalidated');
const BROTLI = { params: { [zlib.BROTLI_PARAM_QUALITY]: 1, [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT } };
const GZIP = { level: 1 };

/** A weak ETag of an answer's bytes (SHA-1 of the UTF-8, not a secret: a cache validator). */
export function weakEtag(body: string): string {
  return `W/"${hash('sha1', body, 'base64url')}"`;
}

type Send = (this: Response, body?: unknown) => Response;
type Json = (this: Response, obj?: unknown) => Response;

/** The type Express gives a JSON answer (`res.json` sets `application/json`, `res.send` adds the charset). */
const JSON_UTF8 = 'application/json; charset=utf-8';

/**
 * What Express's `res.send` does with a string answer whose `Content-Type` is already JSON_UTF8, when the app makes
 * no ETags and the answer is a 200 that is not fresh: `Content-Length`, then `end` (no body for HEAD). Express
 * would parse and print the type again (`setCharset`), look up its charset and read four headers to find that out
 * (about 5 % of a small JSON answer's CPU: bench/README.md, pipeline3); the bytes sent are the same.
 */
function sendJsonString(res: Response, body: string): Response {
  res.setHeader('Content-Length', String(Buffer.byteLength(body, 'utf8')));
  if (res.req.method === 'HEAD') res.end();
  else res.end(body, 'utf8');
  return res;
}

/**
 * On this app's responses (its `response` prototype: no work per request until an answer is sent), JSON answers of
 * 200:
 * - of a route marked `@Revalidated()`: a weak ETag of the bytes, `Cache-Control: private, no-cache` and
 *   `Vary: Cookie, Authorization` (the answer is the caller's); a matching `If-None-Match` answers 304 (Express's
 *   freshness check, which sees the ETag);
 * - of at least COMPRESS_MIN_BYTES: brotli (quality 1) or gzip (level 1) when the client accepts one, with
 *   `Vary: Accept-Encoding` (not an answer with a strong ETag of its own: that validator names the bytes);
 * - otherwise (most answers: small, not revalidated) sent as Express would, without its second pass over the type
 *   (`sendJsonString`).
 */
export function installResponseEncoding(app: Express): void {
  const proto = app.response as Response;
  const send = proto.send as Send;
  const json = proto.json as Json;
  // Express's `res.json` with the default settings (no replacer, spaces or escaping): the same string and type.
  proto.json = function jsonAnswer(this: Response, obj?: unknown): Response {
    const settings = this.app.settings as Record<string, unknown>;
    if (
      this.getHeader('Content-Type') !== undefined ||
      settings['json replacer'] ||
      settings['json spaces'] ||
      settings['json escape']
    ) {
      return json.call(this, obj);
    }
    const body = JSON.stringify(obj) as string | undefined;
    if (body === undefined) return json.call(this, obj);
    this.setHeader('Content-Type', JSON_UTF8);
    return this.send(body);
  };
  proto.send = function encodedSend(this: Response, body?: unknown): Response {
    if (typeof body !== 'string' || this.statusCode !== 200) return send.call(this, body);
    const req = this.req as Request & { [REVALIDATED]?: boolean };
    if (
      body.length < COMPRESS_MIN_BYTES &&
      !req[REVALIDATED] &&
      this.getHeader('Content-Type') === JSON_UTF8 &&
      this.getHeader('Transfer-Encoding') === undefined &&
      this.getHeader('ETag') === undefined &&
      (this.app.settings as Record<string, unknown>)['etag fn'] === undefined &&
      !req.fresh
    ) {
      return sendJsonString(this, body);
    }
    if (req[REVALIDATED]) {
      this.setHeader('ETag', weakEtag(body));
      this.setHeader('Cache-Control', 'private, no-cache');
      this.vary('Cookie');
      this.vary('Authorization');
      // 304 without compressing: Express answers it from the ETag and drops the body.
      if (req.fresh) return send.call(this, body);
    }
    if (body.length < COMPRESS_MIN_BYTES || this.getHeader('Content-Encoding') !== undefined) {
      return send.call(this, body);
    }
    // A strong ETag names these exact bytes (RFC 9110 8.8.1): such answers (the public catalog) go as they are.
    const tag = this.getHeader('ETag');
    if (typeof tag === 'string' && !tag.startsWith('W/')) return send.call(this, body);
    const type = this.getHeader('Content-Type');
    if (typeof type !== 'string' || !type.includes('json')) return send.call(this, body);
    this.vary('Accept-Encoding');
    const accepted = req.headers['accept-encoding'] ? req.acceptsEncodings('br', 'gzip') : false;
    if (accepted !== 'br' && accepted !== 'gzip') return send.call(this, body);
    const bytes = Buffer.from(body);
    this.setHeader('Content-Encoding', accepted);
    return send.call(this, accepted === 'br' ? brotliCompressSync(bytes, BROTLI) : gzipSync(bytes, GZIP));
  };
}

/** Keep-alive and header timeouts of the listening server (see KEEP_ALIVE_TIMEOUT_MS). */
export function configureKeepAlive(server: Server): void {
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  server.headersTimeout = HEADERS_TIMEOUT_MS;
}

@Injectable()
class RevalidatedInterceptor implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    context.switchToHttp().getRequest<Request & { [REVALIDATED]?: boolean }>()[REVALIDATED] = true;
    return next.handle();
  }
}

/** Response headers of a revalidated read's 200 (for its `@ApiOkResponse({ headers })`). */
export const REVALIDATED_HEADERS = {
  ETag: {
    description:
      "Weak validator of the answer's bytes; send it back in `If-None-Match` to get 304 while the answer is unchanged",
    schema: { type: 'string', example: 'W/"2jmj7l5rSw0yVb_vlWAYkK_YBwk"' },
  },
  'Cache-Control': {
    description: "`private, no-cache`: the answer is the caller's; a cache keeps it only for them and revalidates",
    schema: { type: 'string' },
  },
  'Content-Encoding': {
    description: `\`br\` or \`gzip\` when the answer has ${COMPRESS_MIN_BYTES} bytes or more and \`Accept-Encoding\` allows it`,
    schema: { type: 'string', enum: ['br', 'gzip'] },
    required: false,
  },
};

/**
 * A cacheable read whose answer depends on the caller: weak ETag, `Cache-Control: private, no-cache`, Vary on the
 * credentials, 304 on a matching `If-None-Match`.
 */
export function Revalidated(): MethodDecorator {
  return applyDecorators(
    UseInterceptors(RevalidatedInterceptor),
    ApiHeader({
      name: 'If-None-Match',
      required: false,
      // Node's limit on all request headers (16 KiB) bounds it.
      schema: { type: 'string', maxLength: 16_384 },
      description: 'An ETag of an earlier answer: 304 with no body while the answer is unchanged',
    }),
    ApiResponse({
      status: 304,
      description: "Not modified: the `If-None-Match` ETag is still the answer's (no body)",
      headers: { ETag: REVALIDATED_HEADERS.ETag },
    }),
  );
}
