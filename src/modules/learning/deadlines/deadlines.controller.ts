import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import { DeadlinesService } from './deadlines.service';
import {
  CreateDeadlineDto,
  DeadlineDto,
  DeadlineListDto,
  DeadlineRangeDto,
  UpdateDeadlineDto,
} from './dto/deadline.dto';

const SEE =
  'Owners, admins, the cohort’s teachers and its students see its deadlines; anyone else gets 404 (as for a cohort ' +
  'of another organization).';
const MANAGE = 'Owners, admins and the cohort’s teachers set them; its students get 403.';

@ApiTags('integrations')
@Controller('organizations/:org_id')
@OrgScoped()
export class DeadlinesController {
  constructor(private readonly deadlines: DeadlinesService) {}

  @Get('deadlines')
  @ApiOperation({
    summary: 'My deadlines in the organization',
    description:
      'The deadlines of every cohort the caller belongs to here, by `due_at`, each with the caller’s `status`. ' +
      '`from`/`to` are local days of the organization’s time zone, inclusive.',
  })
  @ApiOkResponse({ type: DeadlineListDto })
  @ApiErrors(422)
  mine(@CurrentMembership() member: Membership, @Query() range: DeadlineRangeDto): Promise<DeadlineListDto> {
    return this.deadlines.mine(member, range);
  }

  @Get('cohorts/:cohort_id/deadlines')
  @ApiOperation({
    summary: 'A cohort’s deadlines',
    description: `By \`due_at\`; students get their \`status\` too. ${SEE}`,
  })
  @ApiOkResponse({ type: DeadlineListDto })
  @ApiErrors(404)
  list(@CurrentMembership() member: Membership, @Param('cohort_id') cohortId: string): Promise<DeadlineListDto> {
    return this.deadlines.list(member, cohortId);
  }

  @Post('cohorts/:cohort_id/deadlines')
  @ApiOperation({
    summary: 'Set a due date for a course of the cohort',
    description:
      '`course_id` must be in the organization’s catalog (422), `due_at` in the future (422); `title` defaults to ' +
      `the course title. One deadline per cohort and course (409 \`deadline_exists\`). ${MANAGE} Audited ` +
      '(`cohort_deadline.created`).',
  })
  @ApiCreatedResponse({ type: DeadlineDto })
  @ApiErrors(403, 404, 409, 422)
  create(
    @CurrentMembership() member: Membership,
    @Param('cohort_id') cohortId: string,
    @Body() dto: CreateDeadlineDto,
    @Req() req: Request,
  ): Promise<DeadlineDto> {
    return this.deadlines.create(member, cohortId, dto, req.ip);
  }

  @Patch('cohorts/:cohort_id/deadlines/:deadline_id')
  @ApiOperation({
    summary: 'Move or rename a deadline',
    description: `Only the fields sent change; \`due_at\` must be in the future. ${MANAGE} Audited (\`cohort_deadline.updated\`).`,
  })
  @ApiOkResponse({ type: DeadlineDto })
  @ApiErrors(403, 404, 422)
  update(
    @CurrentMembership() member: Membership,
    @Param('cohort_id') cohortId: string,
    @Param('deadline_id') deadlineId: string,
    @Body() dto: UpdateDeadlineDto,
    @Req() req: Request,
  ): Promise<DeadlineDto> {
    return this.deadlines.update(member, cohortId, deadlineId, dto, req.ip);
  }

  @Delete('cohorts/:cohort_id/deadlines/:deadline_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a deadline', description: `${MANAGE} Audited (\`cohort_deadline.deleted\`).` })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(403, 404)
  async remove(
    @CurrentMembership() member: Membership,
    @Param('cohort_id') cohortId: string,
    @Param('deadline_id') deadlineId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.deadlines.remove(member, cohortId, deadlineId, req.ip);
  }
}
