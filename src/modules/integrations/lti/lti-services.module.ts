import { Global, Module } from '@nestjs/common';
import { EditorModule } from '@/modules/learning/editor/editor.module';
import { LessonScores } from '@/modules/learning/progress';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { LtiDeepLinkingService } from './lti-deep-linking.service';
import { LtiLessonScores } from './lti-lesson-scores';
import { LtiAdvantageService } from './lti-advantage.service';
import { LtiModule } from './lti.module';
import { LtiServicesController } from './lti-services.controller';
import { LtiTokenService } from './lti-token.service';

/**
 * The LTI Advantage services tools call (token, AGS, NRPS). Apart from `LtiModule` because scores complete lessons
 * through the progress area, which itself reaches the catalog that reads lessons' tool links from `LtiModule`.
 * Global for one reason, as the exams area is: progress shows lessons' scores through its port `LessonScores`,
 * provided here, instead of importing this module.
 */
@Global()
@Module({
  imports: [LtiModule, ProgressModule, EditorModule],
  controllers: [LtiServicesController],
  providers: [
    LtiTokenService,
    LtiAdvantageService,
    LtiDeepLinkingService,
    LtiLessonScores,
    { provide: LessonScores, useExisting: LtiLessonScores },
  ],
  exports: [LtiTokenService, LessonScores],
})
export class LtiServicesModule {}
