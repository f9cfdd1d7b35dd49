import { Module, type OnModuleInit } from '@nestjs/common';
import { UsersModule } from '@/modules/users/users.module';
import { IntegrationsRegistry } from '@/modules/users/integrations.registry';
import { AuthorizationService } from './authorization.service';
import { ClientRegistrationService } from './client-registration.service';
import { IntegrationsController } from './integrations.controller';
import { OAuthController } from './oauth.controller';
import { OAuthPersonalData } from './oauth.personal-data';
import { OAuthRepository } from './oauth.repository';
import { OAuthServer } from './oauth-server';
import { OAuthTokenStrategy } from './oauth-token.strategy';
import { TokenService } from './token.service';
import { WellKnownController } from './well-known.controller';

/**
 * The OAuth 2.1 authorization server for the remote tool connector, the `svc_oat_` bearer strategy, and the
 * connected applications among the person's integrations.
 */
@Module({
  imports: [UsersModule],
  controllers: [OAuthController, WellKnownController, IntegrationsController],
  providers: [
    AuthorizationService,
    ClientRegistrationService,
    OAuthRepository,
    OAuthServer,
    OAuthTokenStrategy,
    TokenService,
    OAuthPersonalData,
  ],
  exports: [TokenService],
})
export class OAuthModule implements OnModuleInit {
  constructor(
    private readonly registry: IntegrationsRegistry,
    private readonly repo: OAuthRepository,
    private readonly tokens: TokenService,
  ) {}

  onModuleInit(): void {
    this.registry.register({
      kind: 'oauth_client',
      list: async (userId) =>
        (await this.repo.listLiveGrants(userId)).map((grant) => ({
          id: grant.id,
          kind: 'oauth_client',
          name: grant.client_name ?? 'Application',
          shared_since: grant.shared_since?.toISOString() ?? null,
          publishing_enabled: grant.publishing_enabled,
          created_at: grant.created_at.toISOString(),
        })),
      revoke: (userId, id) => this.tokens.revokeIntegration(userId, id),
    });
  }
}
