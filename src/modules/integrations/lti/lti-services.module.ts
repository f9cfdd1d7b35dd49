import { Module } from '@nestjs/common';
import { ProgressModule } from '@/modules/progress/progress.module';
import { LtiAdvantageService } from './lti-advantage.service';
import { LtiModule } from './lti.module';
import { LtiServicesController } from './lti-services.controller';
import { LtiTokenService } from './lti-token.service';

/**
 * The LTI Advantage services tools call (token, AGS, NRPS). Apart from `LtiModule` because scores complete lessons
 * through the progress area, which itself reaches the catalog that reads lessons' tool links from `LtiModule`.
 */
@Module({
  imports: [LtiModule, ProgressModule],
  controllers: [LtiServicesController],
  providers: [LtiTokenService, LtiAdvantageService],
  exports: [LtiTokenService],
})
export class LtiServicesModule {}
