import { Global, Module } from '@nestjs/common';
import { GuardianConsentResolver } from '@/core/auth/tenancy';
import { UsersModule } from '@/modules/identity/users/users.module';
import { ErasureService } from './erasure.service';
import { GuardianConsentService } from './guardian-consent.service';
import { PrivacyExportsService } from './privacy-exports.service';
import { PrivacyJobs } from './privacy-handlers.jobs';
import { GuardianConsentsController, MemberPrivacyController, PrivacyController } from './privacy.controller';
import {
  DataExportsPersonalData,
  ErasureRequestsPersonalData,
  GuardianAttestationsPersonalData,
  GuardianConsentsPersonalData,
} from './privacy.personal-data';
import { PrivacyRepository } from './privacy.repository';
import { PrivacyService } from './privacy.service';

/**
 * Privacy (extensions-v2 17): consents, exports, erasure, age brackets and guardian consent. Global for one reason:
 * the core's credential guard injects the `GuardianConsentResolver` port, answered here (DECISIONS.md, issue 9).
 */
@Global()
@Module({
  imports: [UsersModule],
  controllers: [PrivacyController, GuardianConsentsController, MemberPrivacyController],
  providers: [
    PrivacyRepository,
    PrivacyService,
    PrivacyExportsService,
    ErasureService,
    GuardianConsentService,
    { provide: GuardianConsentResolver, useExisting: GuardianConsentService },
    PrivacyJobs,
    DataExportsPersonalData,
    ErasureRequestsPersonalData,
    GuardianConsentsPersonalData,
    GuardianAttestationsPersonalData,
  ],
  exports: [GuardianConsentResolver],
})
export class PrivacyModule {}
