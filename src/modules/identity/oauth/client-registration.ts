import { OAuthError } from './oauth-errors';

export const SCOPE = 'svc';
const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_LIST_LENGTH = 10;
const LOOPBACK_IPS = new Set(['127.0.0.1', '[::1]']);
const LOOPBACK_NAMES = new Set([...LOOPBACK_IPS, 'localhost']);

/** What a registration keeps and echoes (RFC 7591 section 3.2.1). */
export interface ClientMetadata {
  redirect_uris: string[];
  client_name: string | null;
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: 'none';
  scope: string;
  client_uri: string | null;
  logo_uri: string | null;
  software_id: string | null;
  software_version: string | null;
}

/**
 * Why a redirect URI cannot be registered, or null: an absolute https URI, or http on a loopback host
 * (RFC 8252 native apps); never a fragment (RFC 6749 3.1.2) or credentials.
 */
export function redirectUriProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URI_LENGTH) {
    return 'must be a URI of at most 2000 characters';
  }
  if (value.includes('#')) return 'must not contain a fragment';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URI';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK_NAMES.has(url.hostname)) return null;
  return 'must use https (http only on a loopback address)';
}

/**
 * Whether a requested redirect URI is one of the registered ones: exact string comparison, except that a
 * loopback IP literal may use any port (RFC 8252 section 7.3; OAuth 2.1 section 8.4.2), since a native app gets
 * its port from the system at run time.
 */
export function matchesRegisteredRedirect(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (redirectUriProblem(requested) !== null) return false;
  const asked = new URL(requested);
  if (asked.protocol !== 'http:' || !LOOPBACK_IPS.has(asked.hostname)) return false;
  return registered.some((candidate) => {
    const url = new URL(candidate);
    return (
      url.protocol === 'http:' &&
      url.hostname === asked.hostname &&
      url.pathname === asked.pathname &&
      url.search === asked.search
    );
  });
}

function hasControlCharacter(value: string): boolean {
  return [...value].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f);
}

function optionalString(body: Record<string, unknown>, field: string, max: number): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > max || hasControlCharacter(value)) {
    throw new OAuthError('invalid_client_metadata', `${field} must be a string of at most ${max} characters.`);
  }
  return value.trim() || null;
}

function optionalHttpsUri(body: Record<string, unknown>, field: string): string | null {
  const value = optionalString(body, field, MAX_URI_LENGTH);
  if (value === null) return null;
  try {
    if (new URL(value).protocol === 'https:') return value;
  } catch {
    // falls through to the error
  }
  throw new OAuthError('invalid_client_metadata', `${field} must be an https URI.`);
}

function stringList(body: Record<string, unknown>, field: string, fallback: string[]): string[] {
  const value = body[field];
  if (value === undefined) return fallback;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.length > MAX_LIST_LENGTH ||
    !value.every((v) => typeof v === 'string' && v.length <= 100)
  ) {
    throw new OAuthError(
      'invalid_client_metadata',
      `${field} must be an array of 1 to ${MAX_LIST_LENGTH} strings of at most 100 characters.`,
    );
  }
  return [...new Set(value as string[])];
}

/**
 * Checks a dynamic registration request (RFC 7591). Only public clients (`token_endpoint_auth_method: none`)
 * using the authorization code (and refresh token) grants with the scope `svc`; unknown metadata is ignored.
 */
export function validateRegistration(input: unknown): ClientMetadata {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new OAuthError('invalid_client_metadata', 'The body must be a JSON object of client metadata.');
  }
  const body = input as Record<string, unknown>;
  const redirectUris = body.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0 || redirectUris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} URIs.`);
  }
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', `The redirect URI ${problem}.`);
  }

  const method = body.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') {
    throw new OAuthError(
      'invalid_client_metadata',
      'Only public clients are registered: token_endpoint_auth_method must be "none" (PKCE protects the code).',
    );
  }
  const grantTypes = stringList(body, 'grant_types', ['authorization_code']);
  if (!grantTypes.includes('authorization_code') || grantTypes.some((g) => !GRANT_TYPES.includes(g))) {
    throw new OAuthError(
      'invalid_client_metadata',
      'grant_types must include authorization_code and may add refresh_token, nothing else.',
    );
  }
  const responseTypes = stringList(body, 'response_types', ['code']);
  if (responseTypes.length !== 1 || responseTypes[0] !== 'code') {
    throw new OAuthError('invalid_client_metadata', 'response_types must be ["code"].');
  }
  const scope = optionalString(body, 'scope', 200) ?? SCOPE;
  if (scope.split(' ').some((s) => s !== SCOPE)) {
    throw new OAuthError('invalid_client_metadata', `The only scope is "${SCOPE}".`);
  }
  return {
    redirect_uris: [...new Set(redirectUris as string[])],
    client_name: optionalString(body, 'client_name', 200),
    grant_types: grantTypes,
    response_types: responseTypes,
    token_endpoint_auth_method: 'none',
    scope: SCOPE,
    client_uri: optionalHttpsUri(body, 'client_uri'),
    logo_uri: optionalHttpsUri(body, 'logo_uri'),
    software_id: optionalString(body, 'software_id', 200),
    software_version: optionalString(body, 'software_version', 200),
  };
}
