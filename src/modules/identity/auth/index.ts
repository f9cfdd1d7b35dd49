/**
 * The auth area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { EmailCodeService } from './email-code.service';
export { SignInProviders } from './sign-in-providers.port';
export { type SignedIn, SignInService } from './sign-in.service';
export { SsoPolicy, type VerifiedDomain } from './sso-policy.port';
export { StepUpService } from './step-up.service';
export type { ChallengeContext } from './two-factor.repository';
export { TwoFactorService } from './two-factor.service';
