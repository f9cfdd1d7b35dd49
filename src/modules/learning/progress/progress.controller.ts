import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import { EnrollmentDto } from '@/modules/learning/courses';
import { MyProgressDto, QuizResultDto, QuizSubmissionInputDto } from './dto/progress.dto';
import { ProgressService } from './progress.service';

const COURSE_PARAM = { name: 'course_id', description: 'The course id or its slug' };
const ENROLLED =
  'For members enrolled in the course here (else 403 `not_enrolled`); an enrolled learner keeps access after the ' +
  'course leaves the catalog. A course the caller cannot reach, or a lesson of another course, is 404.';

@ApiTags('progress')
@Controller('organizations/:org_id')
@OrgScoped()
export class ProgressController {
  constructor(private readonly progress: ProgressService) {}

  @Post('courses/:course_id/enroll')
  @MinorAccess('with_consent')
  @ApiParam(COURSE_PARAM)
  @ApiOperation({
    summary: 'Enroll in a course',
    description:
      "Any member enrolls in a course of the organization's catalog (else 404). 201 with the new enrollment; " +
      '200 with the same record when already enrolled (also when two requests race, and after the course left ' +
      'the catalog). The certificate a completion earns is issued by this organization.',
  })
  @ApiCreatedResponse({ type: EnrollmentDto, description: 'Enrolled' })
  @ApiOkResponse({ type: EnrollmentDto, description: 'Already enrolled' })
  @ApiErrors(404)
  async enroll(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<EnrollmentDto> {
    const { enrollment, created } = await this.progress.enroll(member, courseId);
    res.status(created ? 201 : 200);
    return enrollment;
  }

  @Post('courses/:course_id/lessons/:lesson_id/complete')
  @MinorAccess('with_consent')
  @HttpCode(200)
  @ApiParam(COURSE_PARAM)
  @ApiOperation({
    summary: 'Complete a lesson',
    description:
      `${ENROLLED} Idempotent. A lesson with a quiz completes only after a passed submission (409 ` +
      '`quiz_not_passed`). Completing the last lesson completes the course and, if it issues one, issues the course ' +
      'certificate of this organization (once, also under concurrent completions). ' +
      'A completed course stays completed when lessons are added later (its percent then drops below 100).',
  })
  @ApiOkResponse({ type: EnrollmentDto })
  @ApiErrors(404, [403, 'not_enrolled'], [409, 'quiz_not_passed'])
  complete(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
  ): Promise<EnrollmentDto> {
    return this.progress.completeLesson(member, courseId, lessonId);
  }

  @Post('courses/:course_id/lessons/:lesson_id/quiz/submissions')
  @MinorAccess('with_consent')
  @ApiParam(COURSE_PARAM)
  @ApiOperation({
    summary: 'Submit answers to a lesson quiz',
    description:
      `${ENROLLED} A lesson without a quiz is 404. A question is right when the chosen options are exactly its ` +
      'correct options (a partly right `multiple` answer is wrong); questions left out count wrong. `score` is the ' +
      'share of right questions as an integer percent; `passed` is `score >= passing_score`. The answer reveals ' +
      'the correct options and explanations. A question that is not in the quiz, a question answered twice or an ' +
      'option of another question is 422. Every attempt is kept; one pass is enough to complete the lesson.',
  })
  @ApiCreatedResponse({ type: QuizResultDto })
  @ApiErrors(404, 422, [403, 'not_enrolled'])
  submit(
    @CurrentMembership() member: Membership,
    @Param('course_id') courseId: string,
    @Param('lesson_id') lessonId: string,
    @Body() dto: QuizSubmissionInputDto,
  ): Promise<QuizResultDto> {
    return this.progress.submitQuiz(member, courseId, lessonId, dto);
  }

  @Get('progress')
  @ApiOperation({
    summary: 'My learning in the organization',
    description: "The caller's enrollments in this organization with their course cards, most recently enrolled first.",
  })
  @ApiOkResponse({ type: MyProgressDto })
  mine(@CurrentMembership() member: Membership): Promise<MyProgressDto> {
    return this.progress.mine(member);
  }
}
