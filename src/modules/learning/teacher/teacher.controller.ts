import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { CohortProgressDto, StudentDetailDto, TeacherCohortDto } from './dto/teacher.dto';
import { TeacherService } from './teacher.service';

@ApiTags('teacher')
@Controller('organizations/:org_id/teacher/cohorts')
@OrgScoped()
@Roles('owner', 'admin', 'teacher')
export class TeacherController {
  constructor(private readonly teacher: TeacherService) {}

  @Get()
  @ApiOperation({
    summary: 'My cohorts',
    description:
      'A teacher sees the cohorts they teach; owner/admin see every cohort of the organization; a student gets 403. ' +
      'Most recent first, with the member count.',
  })
  @ApiPageResponse(TeacherCohortDto)
  @ApiErrors(422)
  cohorts(@CurrentMembership() member: Membership, @Query() query: PageQueryDto): Promise<Page<TeacherCohortDto>> {
    return this.teacher.cohortsOf(member, query);
  }

  @Get(':cohort_id/progress')
  @ApiOperation({
    summary: 'Learning progress of a cohort',
    description:
      'For a teacher of this cohort or an owner/admin (a teacher of another cohort gets 403; a cohort of another ' +
      'organization is 404). One row per student of the cohort and course they are enrolled in here (percent of ' +
      'lessons completed, completion, last activity), and a summary per student (also those not enrolled in anything).',
  })
  @ApiOkResponse({ type: CohortProgressDto })
  @ApiErrors(404)
  progress(@CurrentMembership() member: Membership, @Param('cohort_id') cohortId: string): Promise<CohortProgressDto> {
    return this.teacher.cohortProgress(member, cohortId);
  }

  @Get(':cohort_id/students/:user_id')
  @ApiOperation({
    summary: "A student's detail in a cohort",
    description:
      'For a teacher of this cohort or an owner/admin (a teacher of another cohort gets 403; a cohort of another ' +
      'organization, or a person who is not a student of the cohort, is 404). Courses enrolled in here with the ' +
      'quizzes attempted, exams (attempts, best score, passed, flagged sessions), deadlines, activity (local days ' +
      "in the student's zone) and XP.",
  })
  @ApiOkResponse({ type: StudentDetailDto })
  @ApiErrors(403, 404)
  student(
    @CurrentMembership() member: Membership,
    @Param('cohort_id') cohortId: string,
    @Param('user_id') userId: string,
  ): Promise<StudentDetailDto> {
    return this.teacher.studentDetail(member, cohortId, userId);
  }
}
