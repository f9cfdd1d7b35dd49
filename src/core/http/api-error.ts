import type { CookieChange } from './cookies';
import { type CodeWithStatus, ERROR_CODES, type ErrorCode } from './error-codes';

/** One entry of `error.details` on a 422. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * The one error type of the service. Thrown from anywhere; the exception filter turns it into the envelope
 * `{error: {code, message, request_id, details?}}` with `status`, plus any `headers` and `cookies`. The code must
 * be one of the catalog (`error-codes.ts`), which also fixes its status.
 */
export class ApiError extends Error {
  readonly status: number;
  /** Cookies the answer sets or clears even though the request failed (a session that ended, a 2FA challenge). */
  cookies: readonly CookieChange[] = [];

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CODES[code].status;
  }

  withCookies(cookies: readonly CookieChange[]): this {
    this.cookies = cookies;
    return this;
  }

  static badRequest(code: CodeWithStatus<400>, message: string): ApiError {
    return new ApiError(code, message);
  }

  static unauthorized(message = 'Authentication required.', code: CodeWithStatus<401> = 'unauthorized'): ApiError {
    return new ApiError(code, message);
  }

  static forbidden(
    message = 'You do not have permission to do this.',
    code: CodeWithStatus<403> = 'forbidden',
  ): ApiError {
    return new ApiError(code, message);
  }

  static notFound(message = 'Not found.', code: CodeWithStatus<404> = 'not_found'): ApiError {
    return new ApiError(code, message);
  }

  static conflict(code: CodeWithStatus<409>, message: string): ApiError {
    return new ApiError(code, message);
  }

  static gone(code: CodeWithStatus<410>, message: string): ApiError {
    return new ApiError(code, message);
  }

  static tooLarge(code: CodeWithStatus<413>, message: string): ApiError {
    return new ApiError(code, message);
  }

  static validation(details: ErrorDetail[], message = 'The request is not valid.'): ApiError {
    return new ApiError('validation_error', message, details);
  }

  /** A 422 with its own code, about one field. */
  static unprocessable(code: CodeWithStatus<422>, message: string, field?: string): ApiError {
    return new ApiError(code, message, field ? [{ field, message }] : undefined);
  }

  static tooManyRequests(retryAfterSeconds: number, headers: Record<string, string> = {}): ApiError {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    return new ApiError('too_many_requests', 'Too many requests. Try again later.', undefined, {
      ...headers,
      'Retry-After': String(seconds),
    });
  }

  static unavailable(message: string, code: CodeWithStatus<503> = 'service_unavailable'): ApiError {
    return new ApiError(code, message);
  }
}

/** Default code and message for a bare HTTP status (framework errors that carry no code of their own). */
export const STATUS_DEFAULTS: Record<number, { code: ErrorCode; message: string }> = {
  400: { code: 'bad_request', message: 'The request is not valid.' },
  401: { code: 'unauthorized', message: 'Authentication required.' },
  403: { code: 'forbidden', message: 'You do not have permission to do this.' },
  404: { code: 'not_found', message: 'Not found.' },
  405: { code: 'method_not_allowed', message: 'Method not allowed.' },
  406: { code: 'not_acceptable', message: 'Not acceptable.' },
  409: { code: 'conflict', message: 'The request conflicts with the current state.' },
  410: { code: 'gone', message: 'Gone.' },
  413: { code: 'payload_too_large', message: 'The request body is too large.' },
  415: { code: 'unsupported_media_type', message: 'Unsupported media type.' },
  422: { code: 'validation_error', message: 'The request is not valid.' },
  429: { code: 'too_many_requests', message: 'Too many requests. Try again later.' },
  500: { code: 'internal_error', message: 'Internal server error.' },
  503: { code: 'service_unavailable', message: 'Service unavailable.' },
};
