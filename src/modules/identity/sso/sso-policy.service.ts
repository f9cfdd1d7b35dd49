import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { SsoPolicy, type VerifiedDomain } from '@/modules/identity/auth';
import { emailDomain } from '@/modules/identity/external-auth';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { SsoDomainsRepository } from './sso-domains.repository';

/**
 * Which sign-in methods an address may use (the `SsoPolicy` port the auth and external-auth areas obey). When a
 * verified domain is `enforced`, email-code and external-provider sign-in are refused (`sso_required`) for its
 * addresses, except for owners of the organization that verified it, who must keep a way in if the institution's
 * identity provider fails. Without SSO in the deployment (`SSO_ENABLED=false`) nothing is enforced.
 */
@Injectable()
export class SsoPolicyService extends SsoPolicy {
  constructor(
    private readonly domains: SsoDomainsRepository,
    private readonly orgs: OrganizationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async ssoRequired(email: string, userId: string | null): Promise<boolean> {
    // A deployment without SSO cannot send anyone to it: enforcement would only lock people out.
    if (!this.config.sso.enabled) return false;
    const verified = await this.verifiedDomainOf(email);
    if (!verified?.enforced) return false;
    if (!userId) return true;
    const membership = await this.orgs.membership(verified.organizationId, userId);
    return membership?.role !== 'owner';
  }

  async verifiedDomainOf(email: string): Promise<VerifiedDomain | null> {
    const domain = emailDomain(email);
    const row = domain ? await this.domains.findVerified(domain) : null;
    return row ? { organizationId: row.organization_id, enforced: row.enforced } : null;
  }
}
