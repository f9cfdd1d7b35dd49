import { Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { GuardedNet } from '@/core/net/guarded-net';
import { AiUsageModule } from '@/modules/assistant/ai-usage/ai-usage.module';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { EditorModule } from '@/modules/learning/editor/editor.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { AI_PROVIDER, type AiProvider, LOCAL_AI_PROVIDER } from './providers/ai-provider';
import { LocalProvider } from './providers/local.provider';
import { OpenAiCompatibleProvider } from './providers/openai-compatible.provider';
import { QuizProposalsController } from './quiz-proposals.controller';
import { QuizProposalsProcessor } from './tutor-handlers.jobs';
import { QuizProposalsRepository } from './quiz-proposals.repository';
import { QuizProposalsService } from './quiz-proposals.service';
import { TutorController } from './tutor.controller';
import { QuizProposalsPersonalData, TutorConversationsPersonalData } from './tutor.personal-data';
import { TutorRepository } from './tutor.repository';
import { TutorService } from './tutor.service';

/** The remote provider when `AI_BASE_URL` is set (chosen once, at start), else the local one. */
function chooseProvider(config: AppConfig, local: AiProvider, net: GuardedNet): AiProvider {
  const remote = config.ai.remote;
  return remote
    ? new OpenAiCompatibleProvider({
        fetch: net.guardedFetch,
        baseUrl: remote.baseUrl,
        apiKey: remote.apiKey,
        model: remote.model,
        timeoutMs: config.ai.timeoutMs,
      })
    : local;
}

@Module({
  imports: [CoursesModule, EditorModule, AiUsageModule, UsersModule],
  controllers: [TutorController, QuizProposalsController],
  providers: [
    { provide: LOCAL_AI_PROVIDER, useFactory: () => new LocalProvider() },
    { provide: AI_PROVIDER, useFactory: chooseProvider, inject: [APP_CONFIG, LOCAL_AI_PROVIDER, GuardedNet] },
    TutorRepository,
    TutorService,
    QuizProposalsRepository,
    QuizProposalsService,
    QuizProposalsProcessor,
    TutorConversationsPersonalData,
    QuizProposalsPersonalData,
  ],
})
export class TutorModule {}
