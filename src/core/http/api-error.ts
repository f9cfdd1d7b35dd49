/** One entry of `error.details` on a 422. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/**
 * The one error type of the service. Thrown from anywhere; the exception filter turns it into the envelope
 * `{error: {code, message, request_id, details?}}` with `status`, plus any `headers`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  static badRequest(code: string, message: string): ApiError {
    return new ApiError(400, code, message);
  }

  static unauthorized(message = 'Authentication required.', code = 'unauthorized'): ApiError {
    return new ApiError(401, code, message);
  }

  static forbidden(message = 'You do not have permission to do this.', code = 'forbidden'): ApiError {
    return new ApiError(403, code, message);
  }

  static notFound(message = 'Not found.'): ApiError {
    return new ApiError(404, 'not_found', message);
  }

  static conflict(code: string, message: string): ApiError {
    return new ApiError(409, code, message);
  }

  static gone(code: string, message: string): ApiError {
    return new ApiError(410, code, message);
  }

  static validation(details: ErrorDetail[], message = 'The request is not valid.'): ApiError {
    return new ApiError(422, 'validation_error', message, details);
  }

  /** A 422 with its own code, about one field. */
  static unprocessable(code: string, message: string, field?: string): ApiError {
    return new ApiError(422, code, message, field ? [{ field, message }] : undefined);
  }

  static tooManyRequests(retryAfterSeconds: number): ApiError {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    return new ApiError(429, 'too_many_requests', 'Too many requests. Try again later.', undefined, {
      'Retry-After': String(seconds),
    });
  }
}

/** Default code and message for a bare HTTP status (framework errors that carry no code of their own). */
export const STATUS_DEFAULTS: Record<number, { code: string; message: string }> = {
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
