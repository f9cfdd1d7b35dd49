import { Module } from '@nestjs/common';
import { AuthModule } from '@/modules/auth/auth.module';
import { UsersModule } from '@/modules/users/users.module';
import { SsoDomainsRepository } from './sso-domains.repository';
import { SsoPolicyService } from './sso-policy.service';

/**
 * The SSO rules other sign-in methods obey (enforced domains), apart from the SSO flows themselves so that the
 * external-provider area can depend on them while the SSO area depends on the provider machinery.
 */
@Module({
  imports: [AuthModule, UsersModule],
  providers: [SsoDomainsRepository, SsoPolicyService],
  exports: [SsoDomainsRepository, SsoPolicyService],
})
export class SsoPolicyModule {}
