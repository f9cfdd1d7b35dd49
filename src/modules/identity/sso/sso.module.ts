import { Global, Module } from '@nestjs/common';
import { AuthModule } from '@/modules/identity/auth/auth.module';
import { SsoPolicy } from '@/modules/identity/auth';
import { ExternalAuthModule } from '@/modules/identity/external-auth/external-auth.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { DomainVerifier } from './domain-verifier';
import { SsoAdminController } from './sso-admin.controller';
import { SsoAdminService } from './sso-admin.service';
import { SsoAuthController } from './sso-auth.controller';
import { SsoConnectionsRepository } from './sso-connections.repository';
import { SsoDomainsRepository } from './sso-domains.repository';
import { SsoPolicyService } from './sso-policy.service';
import { SsoSignInService } from './sso-sign-in.service';
import { SsoConnectionsPersonalData } from './sso.personal-data';

/**
 * Institutional single sign-on: administration of connections and domains, discovery, start and callback. Global
 * so the auth and external-auth areas find the `SsoPolicy` port this area provides (enforced domains); the SSO
 * flows themselves depend on external-auth, never the other way.
 */
@Global()
@Module({
  imports: [AuthModule, UsersModule, ExternalAuthModule],
  controllers: [SsoAuthController, SsoAdminController],
  providers: [
    DomainVerifier,
    SsoAdminService,
    SsoConnectionsRepository,
    SsoDomainsRepository,
    SsoPolicyService,
    SsoSignInService,
    SsoConnectionsPersonalData,
    { provide: SsoPolicy, useExisting: SsoPolicyService },
  ],
  exports: [SsoPolicy],
})
export class SsoModule {}
