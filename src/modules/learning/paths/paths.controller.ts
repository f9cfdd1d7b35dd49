import { Body, Controller, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import {
  CapstoneGradeDto,
  CapstoneSubmissionDto,
  CapstoneSubmissionQueryDto,
  CapstoneSubmitDto,
  OrgPathDto,
  OrgPathQueryDto,
  ProgramProgressDto,
} from './dto/path.dto';
import { PathsService } from './paths.service';
import { ProgramsService } from './programs.service';

/** A malformed id names nothing: 404, as an unknown one. */
/** `{pathId}`: an id or a slug; anything longer than a slug could be is not one. */
function idOrSlug(value: string): string {
  if (value.length > 80) throw ApiError.notFound('No such program in this organization.');
  return value;
}

const PROGRAM_PARAM = {
  name: 'pathId',
  description: 'The program id or its slug',
  example: 'data-analysis',
  schema: { type: 'string', maxLength: 80 },
} as const;
const VISIBILITY =
  'The program must be published and public or restricted to this organization; a draft, a program restricted to ' +
  'other organizations, and a plain learning path (kind `path`: it has no credential) are 404.';

@ApiTags('paths')
@Controller('organizations/:org_id')
@OrgScoped()
export class PathsController {
  constructor(
    private readonly paths: PathsService,
    private readonly programs: ProgramsService,
  ) {}

  @Get('paths')
  @ApiOperation({
    summary: 'Learning paths and programs of the organization',
    description:
      'The published paths and programs the organization sees (public ones and those restricted to it), most ' +
      "recent first, with their courses in order and the caller's completion of each; filter by `kind`.",
  })
  @ApiPageResponse(OrgPathDto)
  @ApiErrors([422, 'validation_error'])
  list(@CurrentMembership() membership: Membership, @Query() query: OrgPathQueryDto): Promise<Page<OrgPathDto>> {
    return this.paths.listForOrganization(membership, query);
  }

  @Get('programs/:pathId/progress')
  @ApiParam(PROGRAM_PARAM)
  @ApiOperation({
    summary: 'My progress in a program',
    description:
      'Its courses (required or not, completed or not), the capstone (null when the program has none), whether ' +
      `the program was completed and the caller's certificate of it. ${VISIBILITY}`,
  })
  @ApiOkResponse({ type: ProgramProgressDto })
  @ApiErrors([404, 'not_found'])
  progress(@CurrentMembership() membership: Membership, @Param('pathId') pathId: string): Promise<ProgramProgressDto> {
    return this.programs.progressOf(membership, idOrSlug(pathId));
  }

  @Post('programs/:pathId/credential')
  @HttpCode(200)
  @ApiParam(PROGRAM_PARAM)
  @ApiOperation({
    summary: 'Claim the program credential',
    description:
      'Marks the program completed when every required course is completed (all courses when none is marked ' +
      'required) and its capstone, if any, was passed; grants its badge and, if the program issues one, the program ' +
      'certificate, all in one transaction. Unmet courses: 409 `program_not_completed` (checked first); capstone ' +
      'not passed: 409 `capstone_required`. Idempotent: later calls answer 200 with the same progress and never ' +
      `grant a second badge or certificate (also when called concurrently). ${VISIBILITY}`,
  })
  @ApiOkResponse({ type: ProgramProgressDto })
  @ApiErrors([404, 'not_found'], [409, 'program_not_completed', 'capstone_required'])
  claim(@CurrentMembership() membership: Membership, @Param('pathId') pathId: string): Promise<ProgramProgressDto> {
    return this.programs.claim(membership, idOrSlug(pathId));
  }

  @Post('programs/:pathId/capstone/submissions')
  @MinorAccess('with_consent')
  @ApiParam(PROGRAM_PARAM)
  @ApiOperation({
    summary: 'Submit my capstone',
    description:
      'Any member may submit, as often as needed; each submission is graded on its own and the capstone counts as ' +
      `passed once one of them passes. A program without a capstone is 404. ${VISIBILITY}`,
  })
  @ApiCreatedResponse({ type: CapstoneSubmissionDto })
  @ApiErrors([404, 'not_found'], [422, 'validation_error'])
  submit(
    @CurrentMembership() membership: Membership,
    @Param('pathId') pathId: string,
    @Body() dto: CapstoneSubmitDto,
  ): Promise<CapstoneSubmissionDto> {
    return this.programs.submit(membership, idOrSlug(pathId), dto);
  }

  @Get('programs/:pathId/capstone/submissions')
  @ApiParam(PROGRAM_PARAM)
  @ApiOperation({
    summary: 'Capstone submissions of a program',
    description:
      "Owner/admin see every submission; a teacher their own and those of their cohorts' students; anyone else " +
      'their own. Most recent first; `status` and `user_id` narrow what the caller may see.',
  })
  @ApiPageResponse(CapstoneSubmissionDto)
  @ApiErrors([404, 'not_found'], [422, 'validation_error'])
  submissions(
    @CurrentMembership() membership: Membership,
    @Param('pathId') pathId: string,
    @Query() query: CapstoneSubmissionQueryDto,
  ): Promise<Page<CapstoneSubmissionDto>> {
    return this.programs.listSubmissions(membership, idOrSlug(pathId), query);
  }

  @Post('programs/:pathId/capstone/submissions/:submission_id/grade')
  @HttpCode(200)
  @Roles('owner', 'admin', 'teacher')
  @ApiParam(PROGRAM_PARAM)
  @ApiOperation({
    summary: 'Grade a capstone submission',
    description:
      'Owner/admin, or a teacher of a cohort the learner is a student in (another teacher: 403); nobody grades ' +
      'their own submission (403). The status becomes `passed` at or above the program’s passing score, else ' +
      '`failed`; grading again replaces the grade. Audited (`capstone.graded`, with the score and status).',
  })
  @ApiOkResponse({ type: CapstoneSubmissionDto })
  @ApiErrors([403, 'forbidden'], [404, 'not_found'], [422, 'validation_error'])
  grade(
    @CurrentMembership() membership: Membership,
    @Param('pathId') pathId: string,
    @Param('submission_id', UuidPipe) submissionId: string,
    @Body() dto: CapstoneGradeDto,
    @Req() req: Request,
  ): Promise<CapstoneSubmissionDto> {
    return this.programs.grade(membership, idOrSlug(pathId), submissionId.toLowerCase(), dto, req.ip);
  }
}
