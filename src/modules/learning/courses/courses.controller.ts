import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { REVALIDATED_HEADERS, Revalidated } from '@/core/http/response-encoding';
import type { Page } from '@/core/http/pagination';
import { CoursesService } from './courses.service';
import { CatalogQueryDto, CourseCardDto, CourseDetailDto, LessonDto, RateCourseDto, RatingDto } from './dto/course.dto';

const COURSE_PARAM = { name: 'course_id', description: 'The course id or its slug' };

const REACH =
  "A course is reachable when it is in the organization's catalog (published, and public or restricted to this " +
  'organization). A learner already enrolled here keeps reaching it after it is unpublished or no longer offered ' +
  'to the organization (it leaves the catalog and search, and nobody new can enroll). Drafts and courses of other ' +
  'organizations are 404.';

@ApiTags('courses')
@Controller('organizations/:org_id/courses')
@OrgScoped()
export class CoursesController {
  constructor(private readonly courses: CoursesService) {}

  @Get()
  @ApiOperation({
    summary: 'The catalog of the organization',
    description:
      'Published courses that are public or restricted to this organization, newest published first (ties by id). ' +
      '`q` is full text over title, summary and description (Spanish and English stemming, accent-insensitive, ' +
      'web-search syntax: quotes, `or`, `-`); `language`, `level` and `tag` (exact, case-insensitive) narrow it. ' +
      '`rating.average` has one decimal and is null without ratings; ratings count from every organization. ' +
      '`enrolled` says whether the caller is enrolled here.',
  })
  @ApiPageResponse(CourseCardDto, 'A page of results', REVALIDATED_HEADERS)
  @Revalidated()
  @ApiErrors(422)
  list(@CurrentMembership() member: Membership, @Query() query: CatalogQueryDto): Promise<Page<CourseCardDto>> {
    return this.courses.list(member, query);
  }

  @Get(':course_id')
  @ApiParam(COURSE_PARAM)
  @ApiOperation({
    summary: 'A course with its lesson outline',
    description: `${REACH} The outline marks the lessons the caller completed; \`progress\` is the caller's enrollment or null.`,
  })
  @ApiOkResponse({ type: CourseDetailDto, headers: REVALIDATED_HEADERS })
  @Revalidated()
  @ApiErrors(404)
  detail(@CurrentMembership() member: Membership, @Param('course_id') courseId: string): Promise<CourseDetailDto> {
    return this.courses.detail(member, courseId);
  }

  @Get(':course_id/lessons/:lesson_id')
  @ApiParam(COURSE_PARAM)
  @ApiOperation({
    summary: 'A lesson with its content',
    description:
      `For members enrolled in the course here (else 403 \`not_enrolled\`). ${REACH} The quiz, if any, comes ` +
      'without its answers (no correct flags, no explanations): they are revealed by a submission.',
  })
  @ApiOkResponse({ type: LessonDto, headers: REVALIDATED_HEADERS })
  @Revalidated()
  @ApiErrors(404, [403, 'not_enrolled'])
  lesson(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
  ): Promise<LessonDto> {
    return this.courses.lesson(member, courseId, lessonId);
  }

  @Post(':course_id/ratings')
  @HttpCode(200)
  @ApiParam(COURSE_PARAM)
  @ApiOperation({
    summary: 'Rate a course',
    description:
      'For members enrolled in the course here (else 403 `not_enrolled`). One rating per person and course: a ' +
      "repeat replaces the stars and the comment (an omitted comment clears it). Answers the caller's rating.",
  })
  @ApiOkResponse({ type: RatingDto })
  @ApiErrors(404, 422, [403, 'not_enrolled'])
  rate(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Body() dto: RateCourseDto,
  ): Promise<RatingDto> {
    return this.courses.rate(member, courseId, dto);
  }
}
