import { Module } from '@nestjs/common';
import { LtiAdminController } from './lti-admin.controller';
import { LtiEnabledGuard } from './lti-enabled.guard';
import { LtiKeysService } from './lti-keys.service';
import { LtiLaunchService } from './lti-launch.service';
import { LtiDeepLinkingStartController, LtiDeploymentsController, LtiLaunchController } from './lti-org.controller';
import { LtiPublicController } from './lti-public.controller';
import { LtiToolsService } from './lti-tools.service';
import { LtiRegistrationsService } from './lti-registrations.service';
import { LtiActivityPersonalData, LtiToolsPersonalData } from './lti.personal-data';
import { LtiRepository } from './lti.repository';
import { LtiMaintenance } from './lti.schedules';

/**
 * LTI 1.3 Advantage with this service as the platform (extensions-v3 section 1). Depends on no other area's
 * module: the editor and the learner's lesson read and write a lesson's tool link through `LtiToolsService`.
 */
@Module({
  controllers: [
    LtiPublicController,
    LtiAdminController,
    LtiDeploymentsController,
    LtiLaunchController,
    LtiDeepLinkingStartController,
  ],
  providers: [
    LtiRepository,
    LtiKeysService,
    LtiToolsService,
    LtiLaunchService,
    LtiRegistrationsService,
    LtiEnabledGuard,
    LtiActivityPersonalData,
    LtiToolsPersonalData,
    LtiMaintenance,
  ],
  exports: [LtiToolsService, LtiRepository, LtiKeysService, LtiLaunchService],
})
export class LtiModule {}
