import { Module } from '@nestjs/common';
import { AuthModule } from '@/modules/auth/auth.module';
import { ExternalAuthModule } from '@/modules/external-auth/external-auth.module';
import { UsersModule } from '@/modules/users/users.module';
import { DomainVerifier } from './domain-verifier';
import { SsoAdminController } from './sso-admin.controller';
import { SsoAdminService } from './sso-admin.service';
import { SsoAuthController } from './sso-auth.controller';
import { SsoConnectionsRepository } from './sso-connections.repository';
import { SsoPolicyModule } from './sso-policy.module';
import { SsoSignInService } from './sso-sign-in.service';
import { SsoConnectionsPersonalData } from './sso.personal-data';

/** Institutional single sign-on: administration of connections and domains, discovery, start and callback. */
@Module({
  imports: [AuthModule, UsersModule, ExternalAuthModule, SsoPolicyModule],
  controllers: [SsoAuthController, SsoAdminController],
  providers: [DomainVerifier, SsoAdminService, SsoConnectionsRepository, SsoSignInService, SsoConnectionsPersonalData],
})
export class SsoModule {}
