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

/**
 * LTI's standard routes (extensions-v3 1): the OIDC authorization (errors to the tool's redirect URI, else HTML), the
 * token endpoint (RFC 6749), dynamic registration (RFC 7591), AGS and NRPS (`{error, error_description}`), the
 * deep-linking return (HTML): none answers the envelope.
 */
const LTI_PROTOCOL_PATH =
  /^\/api\/v1\/lti\/(authorize|token|contexts\/|registrations\/[^/]+\/register|deep-linking\/return)/;

export function isLtiProtocolPath(path: string): boolean {
  return LTI_PROTOCOL_PATH.test(path);
}

const SCIM_PROTOCOL_PATH = /^\/scim\/v2(\/|$)/;

/** The SCIM 2.0 base (`/scim/v2`, outside the API prefix), whose errors take the RFC's form. */
export function isScimProtocolPath(path: string): boolean {
  return SCIM_PROTOCOL_PATH.test(path);
}

/**
 * SCIM (RFC 7644 section 3.12): identity providers read `{schemas, status, scimType?, detail}` in
 * `application/scim+json`, also for errors raised before routing (a malformed body, an unknown path). The SCIM
 * area's own exception filter answers the same shape for everything after routing.
 */
export function sendScimProtocolError(
  res: Response,
  status: number,
  scimType: string | undefined,
  detail: string,
  headers: Record<string, string> = {},
): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res
    .status(status)
    .type('application/scim+json')
    .send(
      JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
        status: String(status),
        ...(scimType ? { scimType } : {}),
        detail,
      }),
    );
}
