import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import {
  CreateWindowDto,
  ExamCardDto,
  ExamCardQueryDto,
  ExamDetailDto,
  ExamWindowDto,
  ExamWindowListDto,
  UpdateWindowDto,
} from './dto/exam-card.dto';
import { ExamsService } from './exams.service';

const VISIBLE =
  'The exam must be published and its course reachable here (in the organization’s catalog, or the caller is ' +
  'enrolled here); otherwise 404.';
const TEACHERS =
  'Owners and admins manage every window; a teacher only those of a cohort they teach (403 otherwise, also for ' +
  'organization-wide windows). Changing or deleting a window never shortens a session already started.';

@ApiTags('exams')
@Controller('organizations/:org_id/exams')
@OrgScoped()
export class ExamsController {
  constructor(private readonly exams: ExamsService) {}

  @Get()
  @ApiOperation({
    summary: 'Exam cards',
    description:
      'Published exams of the courses reachable here, by course title then exam title, each with its availability ' +
      'for the caller (from the windows that apply to them) and their standing (attempts, best score, passed, the ' +
      'session in progress). `course_id` keeps one course.',
  })
  @ApiPageResponse(ExamCardDto)
  @ApiErrors(422)
  list(@CurrentMembership() member: Membership, @Query() query: ExamCardQueryDto): Promise<Page<ExamCardDto>> {
    return this.exams.list(member, query);
  }

  @Get(':exam_id')
  @ApiOperation({
    summary: 'An exam card with its instructions, proctoring settings and windows',
    description: `${VISIBLE} \`windows\`: those that apply to the caller; owners and admins see every window, teachers also those of their cohorts.`,
  })
  @ApiOkResponse({ type: ExamDetailDto })
  @ApiErrors(404)
  get(@CurrentMembership() member: Membership, @Param('exam_id') examId: string): Promise<ExamDetailDto> {
    return this.exams.get(member, examId);
  }

  @Get(':exam_id/windows')
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: "An exam's windows in the organization",
    description: `Owners and admins: every window; a teacher: organization-wide ones and those of the cohorts they teach. By opening time. ${VISIBLE}`,
  })
  @ApiOkResponse({ type: ExamWindowListDto })
  @ApiErrors(404)
  listWindows(@CurrentMembership() member: Membership, @Param('exam_id') examId: string): Promise<ExamWindowListDto> {
    return this.exams.listWindows(member, examId);
  }

  @Post(':exam_id/windows')
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Open the exam in a window',
    description:
      'For every member (`cohort_id` null) or a cohort’s students, from `opens_at` until `closes_at` (after it, ' +
      `else 422; null: open-ended). A cohort of another organization is 404. ${TEACHERS} ${VISIBLE} Audited ` +
      '(`exam_window.created`).',
  })
  @ApiCreatedResponse({ type: ExamWindowDto })
  @ApiErrors(403, 404, 422)
  createWindow(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Body() dto: CreateWindowDto,
    @Req() req: Request,
  ): Promise<ExamWindowDto> {
    return this.exams.createWindow(member, examId, dto, req.ip);
  }

  @Patch(':exam_id/windows/:window_id')
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Move a window',
    description: `Only the fields sent change (\`closes_at: null\` makes it open-ended); \`closes_at\` must stay after \`opens_at\` (422). ${TEACHERS} Audited (\`exam_window.updated\`).`,
  })
  @ApiOkResponse({ type: ExamWindowDto })
  @ApiErrors(403, 404, 422)
  updateWindow(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Param('window_id') windowId: string,
    @Body() dto: UpdateWindowDto,
    @Req() req: Request,
  ): Promise<ExamWindowDto> {
    return this.exams.updateWindow(member, examId, windowId, dto, req.ip);
  }

  @Delete(':exam_id/windows/:window_id')
  @HttpCode(204)
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Delete a window',
    description: `${TEACHERS} Audited (\`exam_window.deleted\`).`,
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(403, 404)
  async deleteWindow(
    @CurrentMembership() member: Membership,
    @Param('exam_id') examId: string,
    @Param('window_id') windowId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.exams.deleteWindow(member, examId, windowId, req.ip);
  }
}
