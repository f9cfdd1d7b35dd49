import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

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

/** Controller parameter: the query parameters as parsed (strings, arrays or objects; flows check each one). */
export const QueryParams = createParamDecorator(
  (_data: unknown, ctx: ExecutionContext): Record<string, unknown> =>
    ctx.switchToHttp().getRequest<Request>().query as Record<string, unknown>,
);

/** Controller parameter: `rawQueryOf` of the request. */
export const RawQuery = createParamDecorator((_data: unknown, ctx: ExecutionContext): string =>
  rawQueryOf(ctx.switchToHttp().getRequest<Request>()),
);
