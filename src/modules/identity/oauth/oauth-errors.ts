import type { Response } from 'express';
import { sendOAuthProtocolError } from '@/core/http/protocol-errors';
import type { OAuthErrorCode } from '@/core/http/side-channel-codes';

/**
 * An error of the OAuth protocol endpoints (token, registration, revocation), answered with the RFC 6749 /
 * RFC 7591 body `{error, error_description}` instead of the service's envelope, as those RFCs require.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export function sendOAuthError(res: Response, err: OAuthError): void {
  sendOAuthProtocolError(res, err.status, err.error, err.description);
}

/**
 * One parameter of a form or query: absent, or exactly one string. RFC 6749 section 3.1: parameters must not
 * be repeated.
 */
/** No protocol parameter of this server is longer (tokens, codes, verifiers, URIs, state). */
export const OAUTH_PARAM_MAX_LENGTH = 2048;

export function singleParam(source: unknown, name: string): string | undefined {
  const value: unknown = (source as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `The parameter ${name} must appear once.`);
  if (value.length > OAUTH_PARAM_MAX_LENGTH) {
    throw new OAuthError(
      'invalid_request',
      `The parameter ${name} is longer than ${OAUTH_PARAM_MAX_LENGTH} characters.`,
    );
  }
  return value;
}
