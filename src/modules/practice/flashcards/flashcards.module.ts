import { Module } from '@nestjs/common';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { EditorFlashcardsController } from './editor-flashcards.controller';
import { FlashcardSettingsController } from './flashcard-settings.controller';
import { FlashcardsController } from './flashcards.controller';
import { FlashcardsPersonalData } from './flashcards.personal-data';
import { FlashcardsRepository } from './flashcards.repository';
import { FlashcardJobs } from './flashcards-handlers.jobs';
import { FlashcardsService } from './flashcards.service';

/** Flashcards (extensions-v2 section 6, FSRS of 25.1). Reactions (XP, streaks) subscribe to `flashcard.reviewed`. */
@Module({
  imports: [CoursesModule, ProgressModule, UsersModule],
  controllers: [EditorFlashcardsController, FlashcardsController, FlashcardSettingsController],
  providers: [FlashcardsRepository, FlashcardsService, FlashcardsPersonalData, FlashcardJobs],
})
export class FlashcardsModule {}
