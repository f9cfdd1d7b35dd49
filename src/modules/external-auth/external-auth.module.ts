import { Module } from '@nestjs/common';
import { AuthModule } from '@/modules/auth/auth.module';
import { SsoPolicyModule } from '@/modules/sso/sso-policy.module';
import { UsersModule } from '@/modules/users/users.module';
import { AccountLinker } from './account-linker';
import { BrowserSignIn } from './browser-sign-in';
import { ExternalAuthController } from './external-auth.controller';
import { LinkedIdentitiesPersonalData, SignInStartsPersonalData } from './external-auth.personal-data';
import { ExternalIdentitiesRepository } from './external-identities.repository';
import { OidcClients } from './oidc-clients';
import { ProviderSignInService } from './provider-sign-in.service';
import { SignInStates } from './sign-in-states';
import { SignInStatesRepository } from './sign-in-states.repository';

/**
 * Sign-in through OpenID Connect providers: Google and Microsoft here, and the machinery (discovery, states,
 * identity links, browser redirects) the institutional SSO area reuses.
 */
@Module({
  imports: [AuthModule, UsersModule, SsoPolicyModule],
  controllers: [ExternalAuthController],
  providers: [
    AccountLinker,
    BrowserSignIn,
    ExternalIdentitiesRepository,
    OidcClients,
    ProviderSignInService,
    SignInStates,
    SignInStatesRepository,
    LinkedIdentitiesPersonalData,
    SignInStartsPersonalData,
  ],
  exports: [AccountLinker, BrowserSignIn, OidcClients, SignInStates],
})
export class ExternalAuthModule {}
