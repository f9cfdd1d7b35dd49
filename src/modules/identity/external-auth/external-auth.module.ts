import { Global, Module } from '@nestjs/common';
import { AuthModule } from '@/modules/identity/auth/auth.module';
import { SignInProviders } from '@/modules/identity/auth';
import { UsersModule } from '@/modules/identity/users/users.module';
import { AccountLinker } from './account-linker';
import { BrowserSignIn } from './browser-sign-in';
import { ExternalAuthController } from './external-auth.controller';
import { LinkedIdentitiesPersonalData, SignInStartsPersonalData } from './external-auth.personal-data';
import { ExternalIdentitiesRepository } from './external-identities.repository';
import { ExternalSignInService } from './external-sign-in.service';
import { OidcClients } from './oidc-clients';
import { ProviderSignInService } from './provider-sign-in.service';
import { SignInStates } from './sign-in-states';
import { SignInStatesRepository } from './sign-in-states.repository';

/**
 * Sign-in through OpenID Connect providers: Google and Microsoft here, and the machinery (discovery, states,
 * identity links, browser redirects) the institutional SSO area reuses through ExternalSignInService. Global so
 * the auth area finds the `SignInProviders` port this area provides.
 */
@Global()
@Module({
  imports: [AuthModule, UsersModule],
  controllers: [ExternalAuthController],
  providers: [
    AccountLinker,
    BrowserSignIn,
    ExternalIdentitiesRepository,
    ExternalSignInService,
    OidcClients,
    ProviderSignInService,
    SignInStates,
    SignInStatesRepository,
    LinkedIdentitiesPersonalData,
    SignInStartsPersonalData,
    { provide: SignInProviders, useExisting: ProviderSignInService },
  ],
  exports: [ExternalSignInService, SignInProviders],
})
export class ExternalAuthModule {}
