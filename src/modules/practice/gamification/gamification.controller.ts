import { Body, Controller, Get, HttpCode, Param, Post, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import {
  BadgeListDto,
  CurrentTitleDto,
  DailyRewardClaimDto,
  DailyRewardDto,
  MissionClaimDto,
  MissionListDto,
  SetTitleDto,
  TitleListDto,
} from './dto/gamification.dto';
import { RewardsService } from './rewards.service';

@ApiTags('gamification')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@Controller('organizations/:org_id')
@OrgScoped()
export class GamificationController {
  constructor(private readonly rewards: RewardsService) {}

  @Get('badges')
  @ApiOperation({
    summary: 'My badges in the organization',
    description:
      'Every system badge (earned or not, with progress where it has a target) and the program badges earned ' +
      'here. Names and descriptions in the caller’s language.',
  })
  @ApiOkResponse({ type: BadgeListDto })
  badges(@CurrentMembership() member: Membership): Promise<BadgeListDto> {
    return this.rewards.badges(member);
  }

  @Get('titles')
  @ApiOperation({
    summary: 'Titles and the one I show',
    description: 'Unlocked by a level or a badge in this organization. Nobody has a title until they choose one.',
  })
  @ApiOkResponse({ type: TitleListDto })
  titles(@CurrentMembership() member: Membership): Promise<TitleListDto> {
    return this.rewards.titles(member);
  }

  @Put('titles/current')
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Choose the title I show',
    description:
      '`null` shows none. An unknown code is 422; a title not unlocked 409 `title_locked`. A chosen title stays ' +
      'even if its requirement is later lost.',
  })
  @ApiOkResponse({ type: CurrentTitleDto })
  @ApiErrors([409, 'title_locked'], 422)
  setTitle(@CurrentMembership() member: Membership, @Body() dto: SetTitleDto): Promise<CurrentTitleDto> {
    return this.rewards.setTitle(member, dto.code);
  }

  @Get('missions')
  @ApiOperation({
    summary: 'My missions',
    description:
      'The six missions of the current local day and ISO week (the caller’s zone), counted from this ' +
      'organization’s facts; then the previous period’s completed, unclaimed ones that are still claimable (until ' +
      '24 hours after their period ends).',
  })
  @ApiOkResponse({ type: MissionListDto })
  missions(@CurrentMembership() member: Membership): Promise<MissionListDto> {
    return this.rewards.missions(member);
  }

  @Post('missions/:mission_id/claim')
  @HttpCode(200)
  @MinorAccess('with_consent')
  @ApiParam({
    name: 'mission_id',
    description: '`<code>-<period key>`: not a UUID',
    schema: {
      type: 'string',
      format: 'mission-id',
      maxLength: 40,
      pattern: '^[a-z0-9_]+-(\\d{4}-\\d{2}-\\d{2}|\\d{4}-W\\d{2})$',
      example: 'daily_lesson-2026-11-23',
    },
  })
  @ApiOperation({
    summary: 'Claim a completed mission',
    description:
      'Awards the mission’s XP once. An unknown mission, a future one or one past its claim window is 404; ' +
      '409 `mission_not_completed` or `mission_already_claimed`.',
  })
  @ApiOkResponse({ type: MissionClaimDto })
  @ApiErrors(404, [409, 'mission_not_completed', 'mission_already_claimed'])
  claimMission(
    @CurrentMembership() member: Membership,
    @Param('mission_id') missionId: string,
  ): Promise<MissionClaimDto> {
    return this.rewards.claimMission(member, missionId);
  }

  @Get('daily-reward')
  @ApiOperation({
    summary: 'The daily reward',
    description:
      'Once per local day (the caller’s zone) per organization: `5 * min(consecutive_days, 5)` XP, where ' +
      '`consecutive_days` is 1 plus yesterday’s when yesterday was claimed. `next_claim_at` is the next local ' +
      'midnight when claimed today, else now.',
  })
  @ApiOkResponse({ type: DailyRewardDto })
  dailyReward(@CurrentMembership() member: Membership): Promise<DailyRewardDto> {
    return this.rewards.dailyReward(member);
  }

  @Post('daily-reward/claim')
  @HttpCode(200)
  @MinorAccess('with_consent')
  @ApiOperation({ summary: 'Claim today’s reward', description: 'A second claim on one local day is 409.' })
  @ApiOkResponse({ type: DailyRewardClaimDto })
  @ApiErrors([409, 'daily_reward_already_claimed'])
  claimDailyReward(@CurrentMembership() member: Membership): Promise<DailyRewardClaimDto> {
    return this.rewards.claimDailyReward(member);
  }
}
