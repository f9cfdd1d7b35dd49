import { Body, Controller, Get, Put, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { ActivityDto, ActivityQueryDto, GoalsDto, StreakDto, UpdateGoalsDto } from './dto/me.dto';
import { MeEngagementService } from './me-engagement.service';
import { StreaksService } from './streaks.service';

@ApiTags('users')
@Controller('me')
export class MeEngagementController {
  constructor(
    private readonly streaks: StreaksService,
    private readonly me: MeEngagementService,
  ) {}

  @Get('streak')
  @ApiOperation({
    summary: 'My streak',
    description:
      'Days in the caller’s time zone with learning activity in any organization (lessons, quiz submissions, ' +
      'flashcard reviews, exams, finished games and duels). Freezes: 0..2; the first active day grants one and ' +
      'every local Monday after it another; an idle day right after an active or frozen one spends a freeze, ' +
      'else the streak breaks. Personal: a bearer token sees the same.',
  })
  @ApiOkResponse({ type: StreakDto })
  streak(@CurrentCredential() credential: Credential): Promise<StreakDto> {
    return this.streaks.view(credential.userId);
  }

  @Get('activity')
  @ApiOperation({
    summary: 'My activity calendar',
    description:
      'Local dates `from`..`to` (default the 365 days ending today; at most 366 days, else 422), ascending, only ' +
      'days with activity or a freeze. A bearer token counts its organization only.',
  })
  @ApiOkResponse({ type: ActivityDto })
  @ApiErrors(422)
  activity(@CurrentCredential() credential: Credential, @Query() query: ActivityQueryDto): Promise<ActivityDto> {
    return this.me.activity(credential, query);
  }
}

@ApiTags('gamification')
@Controller('me')
export class MeGoalsController {
  constructor(private readonly me: MeEngagementService) {}

  @Get('goals')
  @ApiOperation({
    summary: 'My goals and their progress',
    description:
      'Daily XP and weekly lessons, counted over every organization (a bearer token: its own) in the caller’s ' +
      'zone; `met` is false when the goal is null.',
  })
  @ApiOkResponse({ type: GoalsDto })
  goals(@CurrentCredential() credential: Credential): Promise<GoalsDto> {
    return this.me.goals(credential);
  }

  @Put('goals')
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Set my goals',
    description: '`daily_xp` 10..1000 or null, `weekly_lessons` 1..50 or null; a missing key keeps its value.',
  })
  @ApiOkResponse({ type: GoalsDto })
  @ApiErrors(422)
  setGoals(@CurrentCredential() credential: Credential, @Body() dto: UpdateGoalsDto): Promise<GoalsDto> {
    return this.me.setGoals(credential, dto);
  }
}
