import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentCredential } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { CourseRatingDto, MyRatingDto, RatingListQueryDto, RemoveCommentDto } from './dto/ratings.dto';
import { RatingsService } from './ratings.service';

const COURSE_PARAM = { name: 'course_id', description: 'The course id or its slug' };
const REACHABLE =
  'The course must be reachable here (in the organization’s catalog, or the caller is enrolled here); else 404.';

@ApiTags('courses')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@Controller('organizations/:org_id/courses')
@OrgScoped()
export class RatingsController {
  constructor(private readonly ratings: RatingsService) {}

  @Get(':course_id/ratings')
  @ApiParam(COURSE_PARAM)
  @ApiOperation({
    summary: 'Ratings of a course in this organization',
    description:
      'This organization’s ratings, most recently updated first; `stars` and `with_comment` filter. Authors appear ' +
      `as the caller may see them; a removed comment is null. ${REACHABLE}`,
  })
  @ApiPageResponse(CourseRatingDto)
  @ApiErrors(404, 422)
  list(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Query() query: RatingListQueryDto,
  ): Promise<Page<CourseRatingDto>> {
    return this.ratings.list(member, courseId, query);
  }

  @Delete(':course_id/ratings/mine')
  @HttpCode(204)
  @ApiParam(COURSE_PARAM)
  @ApiOperation({
    summary: 'Withdraw my rating',
    description: `The caller’s rating of the course (wherever it was written) leaves the average; 404 when none. ${REACHABLE}`,
  })
  @ApiNoContentResponse()
  @ApiErrors(404)
  async withdraw(@CurrentMembership() member: Membership, @Param('course_id') courseId: string): Promise<void> {
    await this.ratings.withdraw(member, courseId);
  }

  @Post(':course_id/ratings/:user_id/remove-comment')
  @HttpCode(200)
  @Roles('owner', 'admin')
  @ApiParam(COURSE_PARAM)
  @ApiParam({ name: 'user_id', format: 'uuid', description: 'The author of the rating' })
  @ApiOperation({
    summary: 'Remove a rating’s comment',
    description:
      'The stars stay. 404 when that member has no rating of the course written here. Audited ' +
      '(`rating.comment_removed` with the course, the author and the reason).',
  })
  @ApiOkResponse({ type: CourseRatingDto })
  @ApiErrors(403, 404, 422)
  removeComment(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Param('user_id', UuidPipe) userId: string,
    @Body() dto: RemoveCommentDto,
    @Client() client: ClientInfo,
  ): Promise<CourseRatingDto> {
    return this.ratings.removeComment(member, courseId, userId, dto.reason, client.ip);
  }
}

@ApiTags('users')
@Controller('me/ratings')
export class MyRatingsController {
  constructor(private readonly ratings: RatingsService) {}

  @Get()
  @ApiOperation({
    summary: 'My course ratings',
    description: 'Most recently updated first. A bearer token sees the ratings written in its organization.',
  })
  @ApiPageResponse(MyRatingDto)
  @ApiErrors(422)
  mine(@CurrentCredential() credential: Credential, @Query() query: PageQueryDto): Promise<Page<MyRatingDto>> {
    return this.ratings.mine(credential, query.limit, query.offset);
  }
}
