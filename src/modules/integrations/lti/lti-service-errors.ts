import { applyDecorators } from '@nestjs/common';
import { ApiResponse } from '@nestjs/swagger';
import type { Response } from 'express';

/**
 * An error of the LTI Advantage service routes, answered in the standards' own form: RFC 6749 on the token
 * endpoint, `{error, error_description}` on AGS and NRPS (their clients are LTI libraries, not this API's clients).
 */
export class LtiServiceError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'LtiServiceError';
  }
}

export function sendLtiServiceError(res: Response, err: LtiServiceError): void {
  res.setHeader('Cache-Control', 'no-store');
  for (const [k, v] of Object.entries(err.headers)) res.setHeader(k, v);
  if (err.status === 401) res.setHeader('WWW-Authenticate', `Bearer error="${err.error}"`);
  res.status(err.status).json({ error: err.error, error_description: err.description });
}

/** Documents the standard's `{error, error_description}` error responses of an LTI protocol route. */
export function LtiProtocolErrors(...statuses: number[]): MethodDecorator {
  return applyDecorators(
    ...statuses.map((status) =>
      ApiResponse({
        status,
        description: 'The standard’s error body',
        schema: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'string' }, error_description: { type: 'string' } },
        },
      }),
    ),
  );
}
