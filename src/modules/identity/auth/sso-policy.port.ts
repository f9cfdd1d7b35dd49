/** An organization's verification of an email domain, as the sign-in rules see it. */
export interface VerifiedDomain {
  readonly organizationId: string;
  /** Other sign-in methods are refused for the domain's addresses (`sso_required`). */
  readonly enforced: boolean;
}

/**
 * The SSO rules the other sign-in methods obey (email code here, external providers in external-auth). The SSO
 * area owns them and depends on both, so it provides this port (in a global module) instead of them depending on
 * it; this keeps the dependencies one way: sso -> external-auth -> auth.
 */
export abstract class SsoPolicy {
  /** Whether this address must sign in through SSO (the account, if any, is not an owner of the enforcing organization). */
  abstract ssoRequired(email: string, userId: string | null): Promise<boolean>;
  /** The verification of the address's domain, when an organization holds one. */
  abstract verifiedDomainOf(email: string): Promise<VerifiedDomain | null>;
}
