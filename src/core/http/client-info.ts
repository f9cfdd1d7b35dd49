import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { type CookieName, cookieOf } from './cookies';

/** What a service may know about the caller's client: the address (after TRUST_PROXY) and the user agent. */
export interface ClientInfo {
  readonly ip: string | undefined;
  readonly userAgent: string | undefined;
}

export function clientInfoOf(req: Request): ClientInfo {
  return { ip: req.ip, userAgent: req.headers['user-agent'] };
}

/** Controller parameter: the caller's `ClientInfo`, so services never take the express request. */
export const Client = createParamDecorator((_data: unknown, ctx: ExecutionContext): ClientInfo =>
  clientInfoOf(ctx.switchToHttp().getRequest<Request>()),
);

/** The query string exactly as received, with its `?` ('' when none): OpenID and OAuth flows re-read it as sent. */
export function rawQueryOf(req: Request): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at);
}

/** What the callback of a browser sign-in flow (OpenID Connect) receives from the request that ends it. */
export interface CallbackRequest {
  /** The query as parsed. */
  readonly query: Record<string, unknown>;
  /** The query string exactly as received (openid-client reads code, state and iss from it). */
  readonly rawQuery: string;
  /** The state cookie this browser got at the start, if any. */
  readonly stateCookie: string | undefined;
  readonly client: ClientInfo;
}

/** Controller parameter: the `CallbackRequest` of a flow whose state travels in the cookie `stateCookie`. */
export const Callback = createParamDecorator((stateCookie: CookieName, ctx: ExecutionContext): CallbackRequest => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return {
    query: req.query,
    rawQuery: rawQueryOf(req),
    stateCookie: cookieOf(req, stateCookie),
    client: clientInfoOf(req),
  };
});
