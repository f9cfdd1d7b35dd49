import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiError } from '@/core/http/api-error';
import { resolveError } from '@/core/http/exception.filter';

export const SCIM_MEDIA_TYPE = 'application/scim+json';
export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
/** The SCIM base path (outside the `/api/v1` prefix, RFC 7644 section 3.13 names no version prefix of ours). */
export const SCIM_BASE_PATH = '/scim/v2';

export type ScimType =
  | 'invalidFilter'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'invalidValue'
  | 'noTarget'
  | 'mutability'
  | 'tooMany'
  | 'uniqueness';

/** An error in RFC 7644 section 3.12 form: `{schemas, status, scimType?, detail}`. */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }

  static badRequest(scimType: ScimType, detail: string): ScimError {
    return new ScimError(400, detail, scimType);
  }

  static notFound(detail = 'Resource not found.'): ScimError {
    return new ScimError(404, detail);
  }

  static uniqueness(detail: string): ScimError {
    return new ScimError(409, detail, 'uniqueness');
  }

  static forbidden(detail: string): ScimError {
    return new ScimError(403, detail);
  }
}

export function isScimPath(path: string): boolean {
  return path === SCIM_BASE_PATH || path.startsWith(`${SCIM_BASE_PATH}/`);
}

/** Any failure as a SCIM error (ApiErrors of the shared machinery keep their status; their code becomes the detail). */
export function toScimError(exception: unknown): { error: ScimError; unexpected: boolean } {
  if (exception instanceof ScimError) return { error: exception, unexpected: false };
  const r = resolveError(exception);
  let detail = r.message;
  if (exception instanceof ApiError && !['not_found', 'forbidden', 'unauthorized'].includes(r.code)) {
    detail = `${r.code}: ${r.message}`;
  }
  const scimType: ScimType | undefined =
    r.code === 'malformed_json' || r.code === 'validation_error' || r.code === 'bad_request'
      ? 'invalidSyntax'
      : r.status === 409 && r.code === 'conflict'
        ? 'uniqueness'
        : undefined;
  return { error: new ScimError(r.status, detail, scimType, r.headers ?? {}), unexpected: r.unexpected };
}

export function sendScimError(res: Response, error: ScimError): void {
  for (const [name, value] of Object.entries(error.headers)) res.setHeader(name, value);
  if (error.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="scim"');
  res
    .status(error.status)
    .type(SCIM_MEDIA_TYPE)
    .send(
      JSON.stringify({
        schemas: [SCIM_ERROR_SCHEMA],
        status: String(error.status),
        ...(error.scimType ? { scimType: error.scimType } : {}),
        detail: error.detail,
      }),
    );
}

/** What the activity log keeps of an answer (set on the response by the filter, read when the request ends). */
export const SCIM_DETAIL = Symbol('scimDetail');

/**
 * Every error of the SCIM routes leaves in SCIM form (guards' refusals, validation, throttling, database),
 * never the service's envelope: identity providers read `status`, `scimType` and `detail`.
 */
@Catch()
export class ScimExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Scim');

  catch(exception: unknown, host: ArgumentsHost): void {
    const req = host.switchToHttp().getRequest<Request>();
    const res = host.switchToHttp().getResponse<Response & { [SCIM_DETAIL]?: string }>();
    const { error, unexpected } = toScimError(exception);
    if (unexpected) {
      this.logger.error({ err: exception, request_id: req.id, method: req.method, path: req.path }, 'SCIM failed');
    }
    res[SCIM_DETAIL] = error.scimType ? `${error.scimType}: ${error.detail}` : error.detail;
    sendScimError(res, error);
  }
}
