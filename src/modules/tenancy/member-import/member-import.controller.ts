import {
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Res,
  StreamableFile,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { stringify } from 'csv-stringify';
import type { Response } from 'express';
import { Readable } from 'node:stream';
import { CurrentCredential } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { OrgScoped, Roles } from '@/core/auth/tenancy';
import { UuidPipe } from '@/core/http/uuid';
import { neutralizeCell } from '@/core/csv/csv';
import { ApiError } from '@/core/http/api-error';
import { ApiErrors } from '@/core/http/openapi';
import { CsvUploadInterceptor } from './csv-upload.interceptor';
import { ImportQueuedDto, ImportStatusDto } from './dto/member-import.dto';
import { IMPORT_MAX_BYTES, readImportFile } from './import-file';
import { MemberImportService } from './member-import.service';

@ApiTags('members')
@OrgScoped()
@Roles('owner', 'admin')
@Controller('organizations/:org_id/members/import')
export class MemberImportController {
  constructor(private readonly imports: MemberImportService) {}

  @Post()
  @HttpCode(202)
  @UseInterceptors(CsvUploadInterceptor)
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['file'],
      properties: {
        file: {
          type: 'string',
          format: 'binary',
          maxLength: IMPORT_MAX_BYTES,
          description: `CSV: header email,name,role,cohort; \`,\` or \`;\`; UTF-8; at most ${IMPORT_MAX_BYTES} bytes`,
        },
      },
    },
  })
  @ApiOperation({
    summary: 'Import members from a CSV file',
    description:
      'Header `email,name,role,cohort` (email required; name, role and cohort optional; any order), separated by `,` or ' +
      '`;`, UTF-8 with or without BOM, at most 10 000 rows and 5 MiB. Runs in the background: an unknown email is ' +
      '`invited`, an existing account `added`, an existing member `skipped`; a bad row is `failed` and never stops the ' +
      'others. A cohort is named as in the organization (case-insensitive). Only an owner can grant owner or admin.',
  })
  @ApiAcceptedResponse({ type: ImportQueuedDto })
  @ApiErrors([413, 'import_too_large'], [422, 'invalid_csv', 'validation_error'])
  async upload(
    @Param('org_id') orgId: string,
    @CurrentCredential() credential: Credential,
    @UploadedFile() file: Express.Multer.File | undefined,
  ): Promise<ImportQueuedDto> {
    if (!file)
      throw ApiError.validation([{ field: 'file', message: 'file is required (multipart part named "file")' }]);
    return this.imports.start(orgId, credential.userId, readImportFile(file.buffer));
  }

  @Get(':import_id')
  @ApiOperation({
    summary: 'Import status with counts',
    description: 'The report link appears once the import has finished.',
  })
  @ApiOkResponse({ type: ImportStatusDto })
  @ApiErrors(404)
  status(@Param('org_id') orgId: string, @Param('import_id', UuidPipe) importId: string): Promise<ImportStatusDto> {
    return this.imports.status(orgId, importId);
  }

  @Get(':import_id/report')
  @ApiOperation({
    summary: 'The per-row report (CSV)',
    description:
      'One line per input row: `row,email,outcome,reason`, UTF-8 with BOM, cells neutralized against spreadsheet formulas.',
  })
  @ApiOkResponse({ description: 'The report as CSV', content: { 'text/csv': { schema: { type: 'string' } } } })
  @ApiErrors(404, [409, 'import_not_finished'])
  async report(
    @Param('org_id') orgId: string,
    @Param('import_id', UuidPipe) importId: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<StreamableFile> {
    const rows = await this.imports.reportSource(orgId, importId);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="member-import-${importId}.csv"`);
    res.setHeader('Cache-Control', 'no-store');
    const lines = Readable.from(
      (async function* () {
        for await (const r of rows) yield [r.row, neutralizeCell(r.email), r.outcome ?? '', neutralizeCell(r.reason)];
      })(),
    );
    // Streamed: rows are read in pages and written as they come, never held whole in memory.
    return new StreamableFile(
      lines.pipe(stringify({ bom: true, header: true, columns: ['row', 'email', 'outcome', 'reason'] })),
    );
  }
}
