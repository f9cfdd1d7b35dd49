import type { Response } from 'express';

/**
 * The OAuth protocol endpoints: token (RFC 6749), revocation (RFC 7009) and client registration (RFC 7591), and
 * the LTI platform's token endpoint for tools (RFC 6749 with an RFC 7523 client assertion).
 * Their clients are generic OAuth libraries that read `{error, error_description}`, so every error they answer,
 * even one raised before routing (a malformed body), has that shape instead of the service's envelope.
 */
const OAUTH_PROTOCOL_PATH = /^\/api\/v1\/(?:oauth\/(?:token|register|revoke)|lti\/token)\/?$/;

export function isOAuthProtocolPath(path: string): boolean {
  return OAUTH_PROTOCOL_PATH.test(path);
}

export function sendOAuthProtocolError(res: Response, status: number, error: string, description: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
  res.status(status).json({ error, error_description: description });
}
