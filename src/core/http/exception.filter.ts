import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  HttpException,
  Inject,
  Logger,
  Optional,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { ApiError, type ErrorDetail, STATUS_DEFAULTS } from './api-error';
import { type CookieChange, writeCookies } from './cookies';
import type { ErrorCode } from './error-codes';
import { sendErrorEnvelope } from './error-envelope';
import { requestIdOf } from './request-id';

interface Resolved {
  status: number;
  code: ErrorCode;
  message: string;
  details?: ErrorDetail[];
  headers?: Record<string, string>;
  cookies?: readonly CookieChange[];
}

/** PostgreSQL errors a bad request can still cause after validation (races, out-of-range values). */
const PG_CLIENT_ERRORS: Record<string, Resolved> = {
  '23505': { status: 409, code: 'conflict', message: 'The request conflicts with the current state.' },
  '23503': { status: 409, code: 'conflict', message: 'The request refers to something that does not exist.' },
  '22P02': { status: 400, code: 'bad_request', message: 'The request is not valid.' },
  '22003': { status: 400, code: 'bad_request', message: 'A value is out of range.' },
  '22007': { status: 400, code: 'bad_request', message: 'A date or time is not valid.' },
  '22008': { status: 400, code: 'bad_request', message: 'A date or time is out of range.' },
  // U+0000 in text (22021) or jsonb (22P05): input the request checks refuse first, from where they do not reach
  // (a multipart field, an uploaded file's content).
  '22021': {
    status: 422,
    code: 'validation_error',
    message: 'The request contains a character that cannot be stored.',
  },
  '22P05': {
    status: 422,
    code: 'validation_error',
    message: 'The request contains a character that cannot be stored.',
  },
  '40001': { status: 503, code: 'service_unavailable', message: 'Please retry the request.' },
  '57014': { status: 503, code: 'service_unavailable', message: 'The request took too long.' },
};

/** Socket-level failures and PostgreSQL's connection-exception, shutdown and capacity classes. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const UNREACHABLE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;
const UNREACHABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Connection is not established/i;

/**
 * Whether a failure means the database could not be reached (down, restarting, network cut, pool exhausted past
 * its timeout): the request is answered 503 in the envelope, never a 500 or a hang (the pool's connection timeout
 * and the query timeout bound the wait). TypeORM wraps driver errors in `driverError`.
 */
function databaseUnreachable(exception: unknown): boolean {
  for (const candidate of [exception, (exception as { driverError?: unknown } | null)?.driverError]) {
    if (!candidate || typeof candidate !== 'object') continue;
    const { code, message } = candidate as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNREACHABLE_CODES.has(code) || UNREACHABLE_SQLSTATE.test(code))) return true;
    if (typeof message === 'string' && UNREACHABLE_MESSAGE.test(message)) return true;
    // Node reports a refused connection to several addresses as an AggregateError of ECONNREFUSED.
    if (candidate instanceof AggregateError && candidate.errors.some((e) => databaseUnreachable(e))) return true;
  }
  return false;
}

/** Express/body-parser errors carry `type` and `status`. */
interface ParserError {
  type?: string;
  status?: number;
  expose?: boolean;
}

export function resolveError(exception: unknown): Resolved & { unexpected: boolean } {
  if (exception instanceof ApiError) {
    return { ...exception, message: exception.message, unexpected: false };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const fallback = STATUS_DEFAULTS[status] ?? STATUS_DEFAULTS[status >= 500 ? 500 : 400];
    // Framework messages ("Cannot GET /x") are safe but not ours; keep our wording for the envelope.
    return { status, code: fallback.code, message: fallback.message, unexpected: status >= 500 };
  }
  const parser = exception as ParserError;
  if (parser && typeof parser === 'object' && typeof parser.type === 'string' && typeof parser.status === 'number') {
    if (parser.type === 'entity.parse.failed') {
      return { status: 400, code: 'malformed_json', message: 'The request body is not valid JSON.', unexpected: false };
    }
    if (parser.type === 'entity.too.large') {
      return { status: 413, code: 'payload_too_large', message: 'The request body is too large.', unexpected: false };
    }
    if (parser.status >= 400 && parser.status < 500) {
      const d = STATUS_DEFAULTS[parser.status] ?? STATUS_DEFAULTS[400];
      return { status: parser.status, code: d.code, message: d.message, unexpected: false };
    }
  }
  if (databaseUnreachable(exception)) {
    return {
      status: 503,
      code: 'service_unavailable',
      message: 'The database is unavailable. Try again shortly.',
      headers: { 'Retry-After': '5' },
      unexpected: true,
    };
  }
  const pgCode = (exception as { driverError?: { code?: string } } | null)?.driverError?.code;
  if (pgCode && PG_CLIENT_ERRORS[pgCode]) {
    return { ...PG_CLIENT_ERRORS[pgCode], unexpected: pgCode === '57014' };
  }
  return { ...STATUS_DEFAULTS[500], status: 500, unexpected: true };
}

/** The one exception filter: every error leaves the service as the envelope; 500s never leak internals. */
@Catch()
export class ErrorEnvelopeFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  constructor(@Optional() @Inject(APP_CONFIG) private readonly config?: AppConfig) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    if (host.getType() !== 'http') throw exception;
    const ctx = host.switchToHttp();
    const req = ctx.getRequest<Request>();
    const res = ctx.getResponse<Response>();
    const resolved = resolveError(exception);
    if (resolved.cookies?.length) writeCookies(res, resolved.cookies, this.config?.cookieSecure ?? true);
    if (resolved.unexpected) {
      this.logger.error(
        { err: exception, request_id: req.id, method: req.method, path: req.path },
        'Request failed with an unexpected error',
      );
    }
    sendErrorEnvelope(
      res,
      resolved.status,
      resolved.code,
      resolved.message,
      requestIdOf(req),
      resolved.details,
      this.withChallenge(req, resolved),
    );
  }

  /**
   * RFC 6750 / RFC 9728 section 5.1: a 401 of the API names its protected-resource metadata, so OAuth clients
   * (the Model Context Protocol's among them) can discover the authorization server from the refusal alone.
   */
  private withChallenge(req: Request, resolved: Resolved): Record<string, string> | undefined {
    if (resolved.status !== 401 || !this.config || !req.path.startsWith('/api/v1/')) return resolved.headers;
    const metadata = `${this.config.baseUrl}/.well-known/oauth-protected-resource`;
    const presented = /^Bearer\s/i.test(req.headers.authorization ?? '');
    const challenge = `Bearer resource_metadata="${metadata}"${presented ? ', error="invalid_token"' : ''}`;
    return { ...resolved.headers, 'WWW-Authenticate': challenge };
  }
}
