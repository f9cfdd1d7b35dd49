import { Global, Module } from '@nestjs/common';
import { CookieService } from '@/core/http/cookies';
import { CredentialGuard } from './credential.guard';
import { OrgScopeGuard } from './org-scope.guard';
import { SignedTokens } from './signed-tokens';
import { StepUpGuard } from './step-up.guard';

/** The guards and token machinery every area relies on; the credential strategies live in their areas. */
@Global()
@Module({
  providers: [SignedTokens, CookieService, CredentialGuard, OrgScopeGuard, StepUpGuard],
  exports: [SignedTokens, CookieService, CredentialGuard, OrgScopeGuard, StepUpGuard],
})
export class AuthCoreModule {}
