import { Body, Controller, Delete, Get, HttpCode, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { CreateReportDto, ReportDto, ReportListQueryDto } from './dto/report.dto';
import { REQUEST_ACCOUNT, REQUEST_ORGANIZATION } from './reports.limits';
import { ReportsService } from './reports.service';

const ACCESS =
  'Owners and admins see every report of the organization; a teacher only the reports they requested (others are ' +
  '404).';

@ApiTags('reports')
@Controller('organizations/:org_id/reports')
@OrgScoped()
@Roles('owner', 'admin', 'teacher')
export class ReportsController {
  private readonly logger = new Logger('Reports');

  constructor(private readonly reports: ReportsService) {}

  @Post()
  @HttpCode(202)
  @RateLimit(REQUEST_ORGANIZATION, REQUEST_ACCOUNT)
  @ApiOperation({
    summary: 'Request a report',
    description:
      'Queues the report (`queued`); the job `reports.generate` streams the rows from one database snapshot into ' +
      'the file and emails the requester (`reports.ready` or `reports.failed`). Types and columns: extensions-v2 ' +
      '15.1; the header row holds the column names. CSV: UTF-8 with BOM, RFC 4180 quoting, CRLF, `separator` ' +
      "`comma` or `semicolon`, every text cell starting with `=`, `+`, `-`, `@`, tab, CR or NUL prefixed with `'`. " +
      'XLSX: one sheet named after the type, bold frozen header row, instants as dates, numbers as numbers, ' +
      'everything else as strings. More than 200 000 rows fails the report (`error_code: report_too_large`). ' +
      '`filters.from`/`to` are local days of the organization (inclusive) on the dated column; `from` after `to` ' +
      'is 422. `engagement`: `xp_in_period` counts the XP awarded in those local days (all time without them); ' +
      '`xp_total`, `level` and `streak_current` are the member’s at generation, as their profile shows them (a ' +
      'lapsed streak is 0). A teacher must name a cohort they teach (`filters.cohort_id`; 403 otherwise); a cohort or course of ' +
      'another organization is 404. `lang` defaults to the caller’s locale (emails). Audited (`report.requested`).',
  })
  @ApiAcceptedResponse({ type: ReportDto })
  @ApiErrors(403, 404, 422)
  create(
    @CurrentMembership() member: Membership,
    @Body() dto: CreateReportDto,
    @Req() req: Request,
  ): Promise<ReportDto> {
    return this.reports.request(member, dto, req.ip);
  }

  @Get()
  @ApiOperation({ summary: 'Reports', description: `Most recent first. ${ACCESS}` })
  @ApiPageResponse(ReportDto)
  @ApiErrors(403, 422)
  list(@CurrentMembership() member: Membership, @Query() query: ReportListQueryDto): Promise<Page<ReportDto>> {
    return this.reports.list(member, query);
  }

  @Get(':report_id')
  @ApiOperation({
    summary: 'A report',
    description: `${ACCESS} A completed report past \`expires_at\` (7 days after \`finished_at\`) is \`expired\`.`,
  })
  @ApiOkResponse({ type: ReportDto })
  @ApiErrors(403, 404)
  get(@CurrentMembership() member: Membership, @Param('report_id', UuidPipe) id: string): Promise<ReportDto> {
    return this.reports.get(member, id);
  }

  @Get(':report_id/download')
  @ApiOperation({
    summary: 'Download a report',
    description:
      `The file, streamed, with \`Content-Disposition: attachment; filename="<type>-<organization slug>-<YYYYMMDD>.<csv|xlsx>"\` ` +
      `(the day it was requested, UTC) and \`Cache-Control: private, no-store\`. ${ACCESS} Not completed yet (or ` +
      'failed): 409 `report_not_ready`; past `expires_at`, or its file no longer in the file store: 410 ' +
      '`report_expired`. Audited (`report.downloaded`).',
  })
  @ApiOkResponse({
    description: 'The file',
    content: {
      'text/csv': { schema: { type: 'string' } },
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': {
        schema: { type: 'string', format: 'binary' },
      },
    },
  })
  @ApiErrors(403, 404, 409, 410)
  async download(
    @CurrentMembership() member: Membership,
    @Param('report_id', UuidPipe) id: string,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.reports.download(member, id, req.ip);
    res.status(200);
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    file.stream.on('error', (err) => {
      this.logger.warn({ err: err.message }, 'Report download ended early');
      res.destroy();
    });
    file.stream.pipe(res);
  }

  @Delete(':report_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a report', description: `The record and its file go at once. ${ACCESS}` })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(403, 404)
  async delete(@CurrentMembership() member: Membership, @Param('report_id', UuidPipe) id: string): Promise<void> {
    await this.reports.delete(member, id);
  }
}
