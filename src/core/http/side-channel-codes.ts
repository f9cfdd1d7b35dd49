/**
 * Codes of the channels that do not answer with the envelope, each a typed catalog (the compiler refuses any other
 * string), generated into docs/error-codes.md beside the envelope's codes.
 */

/** OAuth protocol errors: RFC 6749 5.2 and 4.1.2.1, RFC 7591 3.2.2 (registration), RFC 8707 2 (resource). */
export const OAUTH_ERROR_CODES = {
  invalid_request: 'RFC 6749: a parameter is missing, repeated, too long or malformed',
  invalid_client: 'RFC 6749: client authentication failed (unknown client, bad secret or assertion)',
  invalid_grant: 'RFC 6749: the code, refresh token or verifier is invalid, expired, used or not this client’s',
  unauthorized_client: 'RFC 6749: the client may not use this grant or response type',
  unsupported_grant_type: 'RFC 6749: the grant type is not supported',
  unsupported_response_type: 'RFC 6749: the response type is not supported',
  invalid_scope: 'RFC 6749: the scope is unknown, malformed or beyond what the client may ask',
  access_denied: 'RFC 6749: the person or the platform refused the request',
  invalid_redirect_uri: 'RFC 7591: a redirect URI is not acceptable',
  invalid_client_metadata: 'RFC 7591: a registration field is not acceptable',
  invalid_target: 'RFC 8707: the resource indicator is not this server’s',
} as const;
export type OAuthErrorCode = keyof typeof OAUTH_ERROR_CODES;

/** Why a browser sign-in flow (external providers, SSO) ended on `{WEB_URL}/login?error=<code>`. */
export const BROWSER_FLOW_FAILURES = {
  feature_disabled: 'The sign-in method is switched off',
  unknown_provider: 'No such external provider',
  oauth_not_configured: 'The provider has no client configured',
  oauth_provider_unavailable: 'The provider’s discovery failed or timed out',
  oauth_provider_error: 'The provider answered the callback with an error',
  oauth_invalid_request: 'A callback parameter is repeated or too long',
  oauth_invalid_state: 'The callback’s state is missing, expired, used or not this browser’s',
  oauth_exchange_failed: 'The code exchange with the provider failed',
  oauth_invalid_token: 'The provider’s ID token failed verification',
  oauth_email_unverified: 'The provider does not vouch for the email address',
  oauth_failed: 'An unexpected failure (logged)',
  sso_provider_unavailable: 'The identity provider’s discovery failed or timed out',
  sso_connection_unavailable: 'The SSO connection is disabled, deleted or not verified',
  sso_provider_error: 'The identity provider answered the callback with an error',
  sso_invalid_request: 'A callback parameter is repeated or too long',
  sso_invalid_state: 'The callback’s state is missing, expired, used or not this browser’s',
  sso_exchange_failed: 'The code exchange with the identity provider failed',
  sso_invalid_token: 'The identity provider’s ID token failed verification',
  sso_email_unverified: 'The identity provider does not vouch for the email address',
  sso_domain_not_verified: 'The email’s domain is not a verified domain of the connection',
  sso_required: 'The email domain enforces SSO and the flow was not SSO',
  sso_failed: 'An unexpected failure (logged)',
} as const;
export type BrowserFlowFailureCode = keyof typeof BROWSER_FLOW_FAILURES;
