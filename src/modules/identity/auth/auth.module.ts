import { Module } from '@nestjs/common';
import { UsersModule } from '@/modules/identity/users/users.module';
import { AccountSecurityController } from './account-security.controller';
import { AdminImpersonationController } from './admin-impersonation.controller';
import {
  ChallengesPersonalData,
  EmailCodesPersonalData,
  RecoveryCodesPersonalData,
  SessionsPersonalData,
} from './auth.personal-data';
import { AuthController } from './auth.controller';
import { CookieSessionStrategy } from './cookie-session.strategy';
import { CredentialView } from './credential-view';
import { EmailChangeService } from './email-change.service';
import { EmailCodeService } from './email-code.service';
import { EmailCodesRepository } from './email-codes.repository';
import { ImpersonationService } from './impersonation.service';
import { SessionService } from './session.service';
import { SessionsRepository } from './sessions.repository';
import { SignInMethods } from './sign-in-methods';
import { SignInService } from './sign-in.service';
import { StepUpService } from './step-up.service';
import { TwoFactorRepository } from './two-factor.repository';
import { TwoFactorService } from './two-factor.service';

@Module({
  imports: [UsersModule],
  controllers: [AuthController, AccountSecurityController, AdminImpersonationController],
  providers: [
    CookieSessionStrategy,
    CredentialView,
    EmailChangeService,
    EmailCodeService,
    EmailCodesRepository,
    ImpersonationService,
    SessionService,
    SessionsRepository,
    SignInMethods,
    SignInService,
    StepUpService,
    TwoFactorRepository,
    TwoFactorService,
    EmailCodesPersonalData,
    ChallengesPersonalData,
    SessionsPersonalData,
    RecoveryCodesPersonalData,
  ],
  exports: [
    EmailCodeService,
    SessionService,
    SignInService,
    StepUpService,
    TwoFactorService,
    CredentialView,
    SignInMethods,
  ],
})
export class AuthModule {}
