/**
 * The external-auth area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { type BrowserExit, BrowserFlowFailure, queryParam } from './browser-sign-in';
export { emailDomain, type ExternalIdentity, identityFromClaims, isTenantId } from './claims';
export { EXTERNAL_CALLBACK_IP, EXTERNAL_START_IP } from './external-auth.limits';
export { ExternalSignInService } from './external-sign-in.service';
export { normalizeIssuer } from './issuer-policy';
export { OidcFlowError, type OidcTarget } from './oidc-clients';
export { SIGN_IN_STATE_TTL_SECONDS } from './sign-in-states';
