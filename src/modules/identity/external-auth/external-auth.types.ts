/*
 * The external-auth area's public types, pure helpers and shared limits, for the flows built on its machinery
 * (institutional SSO). Everything else of the area is reached through ExternalSignInService.
 */
export { type BrowserExit, BrowserFlowFailure, queryParam } from './browser-sign-in';
export { emailDomain, type ExternalIdentity, identityFromClaims, isTenantId } from './claims';
export { EXTERNAL_CALLBACK_IP, EXTERNAL_START_IP } from './external-auth.limits';
export { normalizeIssuer } from './issuer-policy';
export { OidcFlowError, type OidcTarget } from './oidc-clients';
export { type ConsumedSignIn, SIGN_IN_STATE_TTL_SECONDS, type StartedSignIn } from './sign-in-states';
