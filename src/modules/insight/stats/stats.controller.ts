import { Controller, Get, Header, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import { UuidPipe } from '@/core/http/uuid';
import {
  CourseStatsDto,
  MeStatsDto,
  OrganizationStatsDto,
  OrganizationStatsQueryDto,
  PlatformStatsDto,
  StatsQueryDto,
} from './dto/stats.dto';
import { StatsService } from './stats.service';

const CACHE = 'private, max-age=300';
const COMMON =
  '`days` (7..90, default 30) sets the period ending now; `series` has one entry per local day, ascending, today ' +
  'included. Rates are integer percents (half up), null over nothing. Served from aggregates kept by event ' +
  'subscribers (an active user has a learning fact in the window) and the learning tables; `Cache-Control: ' +
  'private, max-age=300`.';

@ApiTags('stats')
@Controller()
export class StatsController {
  constructor(private readonly stats: StatsService) {}

  @Get('me/stats')
  @Header('Cache-Control', CACHE)
  @ApiOperation({
    summary: 'My learning statistics',
    description:
      `${COMMON} Local days in the person's zone. Counts are of the period except \`xp_total\`, \`courses\` and ` +
      '`streak`. A bearer token counts its organization only. XP, flashcard learning, games and duels read 0 (or ' +
      'null) until their areas provide figures.',
  })
  @ApiOkResponse({ type: MeStatsDto })
  @ApiErrors(422)
  me(@CurrentCredential() credential: Credential, @Query() query: StatsQueryDto): Promise<MeStatsDto> {
    return this.stats.me(credential, query.days);
  }

  @Get('editor/courses/:course_id/stats')
  @PlatformRoles('editor')
  @Header('Cache-Control', CACHE)
  @ApiOperation({
    summary: 'Statistics of a course (editor)',
    description: `${COMMON} Aggregates over every organization, no names. Period days in UTC.`,
  })
  @ApiOkResponse({ type: CourseStatsDto })
  @ApiErrors(403, 404, 422)
  course(@Param('course_id', UuidPipe) courseId: string, @Query() query: StatsQueryDto): Promise<CourseStatsDto> {
    return this.stats.course(courseId, query.days);
  }

  @Get('admin/stats')
  @PlatformRoles('platform_admin')
  @Header('Cache-Control', CACHE)
  @ApiOperation({ summary: 'Platform statistics (platform admin)', description: `${COMMON} Days in UTC.` })
  @ApiOkResponse({ type: PlatformStatsDto })
  @ApiErrors(403, 422)
  platform(@Query() query: StatsQueryDto): Promise<PlatformStatsDto> {
    return this.stats.platform(query.days);
  }
}

@ApiTags('stats')
@Controller('organizations/:org_id/stats')
@OrgScoped()
export class OrganizationStatsController {
  constructor(private readonly stats: StatsService) {}

  @Get()
  @Roles('owner', 'admin', 'teacher')
  @Header('Cache-Control', CACHE)
  @ApiOperation({
    summary: 'Organization statistics',
    description:
      `${COMMON} Local days in the organization's zone. With \`cohort_id\` everything is limited to the cohort's ` +
      'students. Owners and admins; a teacher only with a cohort they teach (403 otherwise); a cohort of another ' +
      'organization is 404.',
  })
  @ApiOkResponse({ type: OrganizationStatsDto })
  @ApiErrors(403, 404, 422)
  get(
    @CurrentMembership() member: Membership,
    @Query() query: OrganizationStatsQueryDto,
  ): Promise<OrganizationStatsDto> {
    return this.stats.organization(member, query.days, query.cohort_id);
  }
}
