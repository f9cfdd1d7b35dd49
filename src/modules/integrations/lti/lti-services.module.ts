import { Module } from '@nestjs/common';
import { EditorModule } from '@/modules/learning/editor/editor.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { LtiDeepLinkingService } from './lti-deep-linking.service';
import { LtiAdvantageService } from './lti-advantage.service';
import { LtiModule } from './lti.module';
import { LtiServicesController } from './lti-services.controller';
import { LtiTokenService } from './lti-token.service';

/**
 * The LTI Advantage services tools call (token, AGS, NRPS). Apart from `LtiModule` because scores complete lessons
 * through the progress area, which itself reaches the catalog that reads lessons' tool links from `LtiModule`.
 */
@Module({
  imports: [LtiModule, ProgressModule, EditorModule],
  controllers: [LtiServicesController],
  providers: [LtiTokenService, LtiAdvantageService, LtiDeepLinkingService],
  exports: [LtiTokenService],
})
export class LtiServicesModule {}
