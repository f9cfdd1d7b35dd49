import { Global, Module } from '@nestjs/common';
import { ConnectedApplications } from '@/modules/identity/users';
import { UsersModule } from '@/modules/identity/users/users.module';
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
 * connected applications among the person's integrations. Global so the users area finds the
 * `ConnectedApplications` port this area provides.
 */
@Global()
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
    { provide: ConnectedApplications, useExisting: TokenService },
  ],
  exports: [TokenService, ConnectedApplications],
})
export class OAuthModule {}
