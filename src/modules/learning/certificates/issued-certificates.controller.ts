import { Body, Controller, Get, Headers, HttpCode, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { CertificateExportService } from './certificate-export.service';
import { CertificatesService } from './certificates.service';
import {
  CertificateExportQueryDto,
  CertificateListQueryDto,
  IssuedCertificateDto,
  ReissueCertificateDto,
  RevokeCertificateDto,
} from './dto/certificate.dto';

/** A malformed id names nothing: 404, as an unknown one. */
const ACCESS =
  'Owner/admin see every certificate of the organization; a teacher sees those of people who are currently ' +
  'students of a cohort they teach; a student gets 403. `cohort_id` keeps holders who are currently members of ' +
  "that cohort: another organization's cohort is 404, and for a teacher a cohort of this organization they do " +
  'not teach is 403 (an explicit refusal rather than a silently empty answer).';

@ApiTags('certificates')
@Controller('organizations/:org_id/issued-certificates')
@OrgScoped()
export class IssuedCertificatesController {
  private readonly logger = new Logger('CertificateExport');

  constructor(
    private readonly certificates: CertificatesService,
    private readonly exports: CertificateExportService,
  ) {}

  @Get()
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Certificates issued by the organization',
    description:
      `A page, most recent first, filtered by course, program, cohort, status and type. ${ACCESS} ` +
      '`total` is always exact. With no filter or only `status`/`type` it is read from per-organization counters that ' +
      'the database updates in the same transaction as every certificate change (no `count(*)` over the organization); ' +
      'with a course, program or cohort filter (and for teachers) the matches are counted through their own index.',
  })
  @ApiPageResponse(IssuedCertificateDto)
  @ApiErrors([403, 'forbidden'], [404, 'not_found'], [422, 'validation_error'])
  list(
    @CurrentMembership() membership: Membership,
    @Query() query: CertificateListQueryDto,
  ): Promise<Page<IssuedCertificateDto>> {
    return this.certificates.list(membership, query);
  }

  @Get('export')
  @Roles('owner', 'admin', 'teacher')
  @ApiOperation({
    summary: 'Export the issued certificates as CSV',
    description:
      `The list's filters and access, without paging. ${ACCESS} UTF-8 with a byte order mark, RFC 4180 quoting, ` +
      'CRLF line ends, separator `comma` (default) or `semicolon`; header and status/type words in `lang`, else ' +
      "the browser's `Accept-Language`, else the organization's locale; every text cell that starts with `=`, `+`, " +
      "`-`, `@`, tab, CR or NUL is prefixed with `'` so spreadsheets never run it as a formula. More than 10 000 " +
      'matching rows is 413 `export_too_large` (counted before anything is sent). Rows are streamed from the ' +
      'database, never held in memory. Audited (`certificates.exported`, with the row count, filters, language and ' +
      'separator).',
  })
  @ApiOkResponse({
    description: 'The CSV file (`text/csv; charset=utf-8`, `Content-Disposition: attachment`)',
    content: { 'text/csv': { schema: { type: 'string' } } },
  })
  @ApiErrors([403, 'forbidden'], [404, 'not_found'], [413, 'export_too_large'], [422, 'validation_error'])
  async export(
    @CurrentMembership() membership: Membership,
    @Query() query: CertificateExportQueryDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Req() req: Request,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.exports.prepare(membership, query, acceptLanguage, req.ip);
    res.status(200);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
    res.setHeader('Content-Language', file.lang);
    res.setHeader('Cache-Control', 'no-store');
    try {
      await file.write(res);
    } catch (err) {
      // The client went away or the database failed mid-stream: the status is sent, so the response is cut.
      if (!res.headersSent) throw err;
      this.logger.warn({ err: (err as Error).message }, 'Export stream ended early');
      res.destroy();
    }
  }

  @Post(':certificate_id/revoke')
  @HttpCode(200)
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: 'Revoke a certificate',
    description:
      'active → revoked, irreversibly: public verification then answers `revoked` without the holder name. A ' +
      'certificate that is already revoked, or that was replaced by a reissue, is 409 ' +
      '`certificate_already_revoked` (a replaced one is no longer valid; its replacement is the one to revoke). ' +
      "Another organization's certificate is 404. Audited (`certificate.revoked`, with the reason).",
  })
  @ApiOkResponse({ type: IssuedCertificateDto })
  @ApiErrors([404, 'not_found'], [409, 'certificate_already_revoked'], [422, 'validation_error'])
  revoke(
    @CurrentMembership() membership: Membership,
    @Param('certificate_id', UuidPipe) certificateId: string,
    @Body() dto: RevokeCertificateDto,
    @Req() req: Request,
  ): Promise<IssuedCertificateDto> {
    return this.certificates.revoke(
      membership.organizationId,
      certificateId.toLowerCase(),
      dto.reason,
      membership.userId,
      req.ip,
    );
  }

  @Post(':certificate_id/reissue')
  @Roles('owner', 'admin')
  @ApiOperation({
    summary: 'Reissue a certificate with a corrected name',
    description:
      'Creates a new certificate (new code, the corrected holder name, same type, course or program, holder and ' +
      'organization, issued now) and marks the old one `replaced`, in one transaction; public verification of ' +
      'the old code answers `replaced` with `replaced_by_code`. Revoked or replaced: 409 ' +
      '`certificate_already_revoked`. Audited (`certificate.reissued`, with the reason).',
  })
  @ApiCreatedResponse({ type: IssuedCertificateDto, description: 'The new certificate' })
  @ApiErrors([404, 'not_found'], [409, 'certificate_already_revoked'], [422, 'validation_error'])
  reissue(
    @CurrentMembership() membership: Membership,
    @Param('certificate_id', UuidPipe) certificateId: string,
    @Body() dto: ReissueCertificateDto,
    @Req() req: Request,
  ): Promise<IssuedCertificateDto> {
    return this.certificates.reissue(
      membership.organizationId,
      certificateId.toLowerCase(),
      dto,
      membership.userId,
      req.ip,
    );
  }
}
