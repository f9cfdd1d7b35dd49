import { Module } from '@nestjs/common';
import { CoursesModule } from '@/modules/learning/courses/courses.module';
import { MembersModule } from '@/modules/tenancy/members/members.module';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { ProgressModule } from '@/modules/learning/progress/progress.module';
import { GameJobs } from './games.schedules';
import { GamesController } from './games.controller';
import { GamesPersonalData } from './games.personal-data';
import { GamesRepository } from './games.repository';
import { GamesService } from './games.service';
import { QuestionPoolService } from './question-pool.service';

/**
 * Single-player games (extensions-v2 section 7). Exports the question pool (the quiz questions a member may play),
 * so another area can draw from the same rule. XP, streaks and missions react to `game.finished`.
 */
@Module({
  imports: [CoursesModule, ProgressModule, MembersModule, OrganizationsModule],
  controllers: [GamesController],
  providers: [GamesRepository, GamesService, QuestionPoolService, GameJobs, GamesPersonalData],
  exports: [QuestionPoolService],
})
export class GamesModule {}
