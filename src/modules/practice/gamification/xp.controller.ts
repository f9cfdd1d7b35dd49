import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { LeaderboardDto, LeaderboardQueryDto, XpDto, XpHistoryEntryDto } from './dto/xp.dto';
import { XpService } from './xp.service';

@ApiTags('users')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@Controller('organizations/:org_id')
@OrgScoped()
export class XpController {
  constructor(private readonly xp: XpService) {}

  @Get('xp')
  @ApiOperation({
    summary: 'My XP and level in the organization',
    description:
      'XP belongs to a person in an organization. Level: the largest n >= 1 with `50 n (n - 1) <= xp`. `today_xp` ' +
      "counts the caller's local date; `week_xp`, `month_xp` and `week_rank` the organization's current week and " +
      'month as the leaderboard counts them (`week_rank` null with 0 XP).',
  })
  @ApiOkResponse({ type: XpDto })
  xpOf(@CurrentMembership() member: Membership): Promise<XpDto> {
    return this.xp.xp(member);
  }

  @Get('xp/history')
  @ApiOperation({
    summary: 'My XP history in the organization',
    description: 'Ledger rows, most recent first, each with a label in the caller’s language.',
  })
  @ApiPageResponse(XpHistoryEntryDto)
  @ApiErrors(422)
  history(@CurrentMembership() member: Membership, @Query() query: PageQueryDto): Promise<Page<XpHistoryEntryDto>> {
    return this.xp.history(member, query.limit, query.offset);
  }

  @Get('leaderboard')
  @ApiOperation({
    summary: 'The XP leaderboard',
    description:
      'Members with more than 0 XP in the period (ISO week or month in the organization’s zone, or all time), ' +
      '`rank = 1 + members with strictly more XP` (equal XP shares the rank; ordered by `user_id`). `period_key` ' +
      'chooses a past period (at most 52 weeks or 24 months back; a future or malformed key is 422). `cohort_id` ' +
      'restricts entries to its students and teachers: a cohort of another organization is 404, a student or ' +
      'teacher outside it 403. People appear as the caller may see them (hidden ones are anonymous). `me` is the ' +
      "caller's own standing (`rank` null with 0 XP).",
  })
  @ApiOkResponse({ type: LeaderboardDto })
  @ApiErrors(403, 404, 422)
  leaderboard(@CurrentMembership() member: Membership, @Query() query: LeaderboardQueryDto): Promise<LeaderboardDto> {
    return this.xp.leaderboard(member, query);
  }
}

/**
 * Benchmarks only, mounted with BENCH_ROUTES (never in a deployment; absent from the OpenAPI description): the
 * leaderboard's answer through the same route shape, guards, query validation and serialization, without its work.
 * The first call of each caller and query computes the real answer; later calls answer those same bytes from
 * memory, so the leaderboard measured against it is measured against the pipeline it shares (bench/README.md,
 * `node bench/engagement.mjs`).
 */
@ApiExcludeController()
@Controller('organizations/:org_id')
@OrgScoped()
export class LeaderboardBaselineController {
  private readonly answers = new Map<string, LeaderboardDto>();

  constructor(private readonly xp: XpService) {}

  @Get('bench/leaderboard-baseline')
  async baseline(
    @CurrentMembership() member: Membership,
    @Query() query: LeaderboardQueryDto,
  ): Promise<LeaderboardDto> {
    const key = `${member.organizationId} ${member.userId} ${JSON.stringify(query)}`;
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = await this.xp.leaderboard(member, query);
      this.answers.set(key, answer);
    }
    return answer;
  }
}
