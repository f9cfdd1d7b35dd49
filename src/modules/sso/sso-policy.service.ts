import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { ApiError } from '@/core/http/api-error';
import { SignInService } from '@/modules/auth/sign-in.service';
import { OrganizationsService } from '@/modules/organizations/organizations.service';
import { UsersService } from '@/modules/users/users.service';
import { emailDomain } from '@/modules/external-auth/claims';
import { type SsoDomainRow, SsoDomainsRepository } from './sso-domains.repository';

export const SSO_REQUIRED_MESSAGE = 'Your organization requires signing in with its single sign-on.';

/**
 * Which sign-in methods an address may use. When a verified domain is `enforced`, email-code and
 * external-provider sign-in are refused (`sso_required`) for its addresses, except for owners of the
 * organization that verified it, who must keep a way in if the institution's identity provider fails.
 * Without SSO in the deployment (`SSO_ENABLED=false`) nothing is enforced.
 */
@Injectable()
export class SsoPolicyService implements OnModuleInit {
  constructor(
    private readonly domains: SsoDomainsRepository,
    private readonly orgs: OrganizationsService,
    private readonly users: UsersService,
    private readonly signIn: SignInService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.signIn.useSsoEnforcement(async (email) => {
      const user = await this.users.findByEmail(email);
      if (await this.ssoRequired(email, user?.id ?? null))
        throw ApiError.forbidden(SSO_REQUIRED_MESSAGE, 'sso_required');
    });
  }

  /** Whether this address must sign in through SSO (the account, if any, is not an owner of the enforcing organization). */
  async ssoRequired(email: string, userId: string | null): Promise<boolean> {
    // A deployment without SSO cannot send anyone to it: enforcement would only lock people out.
    if (!this.config.sso.enabled) return false;
    const verified = await this.verifiedDomainOf(email);
    if (!verified?.enforced) return false;
    if (!userId) return true;
    const membership = await this.orgs.membership(verified.organization_id, userId);
    return membership?.role !== 'owner';
  }

  /** The verification of the address's domain, when an organization holds one. */
  async verifiedDomainOf(email: string): Promise<SsoDomainRow | null> {
    const domain = emailDomain(email);
    return domain ? this.domains.findVerified(domain) : null;
  }
}
