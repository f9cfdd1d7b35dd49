import { Body, Controller, Get, Headers, HttpCode, Post, Query } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PlatformRoles, Public } from '@/core/auth/access.decorators';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { RateLimit, type RateLimitPolicy } from '@/core/rate-limit/rate-limit';
import {
  AcceptedDto,
  ClientErrorDto,
  ErrorGroupDto,
  ErrorsQueryDto,
  VitalsDto,
  VitalsQueryDto,
  VitalsReportDto,
} from './dto/telemetry.dto';
import { TelemetryService } from './telemetry.service';

const VITALS_IP: RateLimitPolicy = { name: 'telemetry.vitals.ip', points: 60, durationSeconds: 60, key: 'ip' };
const ERRORS_IP: RateLimitPolicy = { name: 'telemetry.errors.ip', points: 30, durationSeconds: 60, key: 'ip' };

const PRIVACY =
  'Public (the web app sends it before sign-in too); credentials are ignored and nothing identifies a person: no ' +
  'address, account, organization, cookie or user agent is stored, only `release`, the normalized route (query and ' +
  'fragment removed, UUIDs `:id`, runs of 4+ digits `:n`, emails `:email`; anything else than ' +
  '`^/[A-Za-z0-9/_:.-]*$` up to 200 characters is dropped), a device class and a browser family with its major ' +
  'version. A share `TELEMETRY_SAMPLE_RATE` of accepted events is kept, for 30 days.';

@ApiTags('telemetry')
@Controller('telemetry')
@Public()
export class TelemetryController {
  constructor(private readonly telemetry: TelemetryService) {}

  @Post('vitals')
  @HttpCode(202)
  @RateLimit(VITALS_IP)
  @ApiOperation({
    summary: 'Report web vitals',
    description: `1..50 events; \`value\` >= 0, CLS at most 10, others at most 600000 ms (else 422). ${PRIVACY}`,
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  @ApiErrors(422)
  async vitals(@Body() dto: VitalsDto, @Headers('user-agent') ua: string | undefined): Promise<AcceptedDto> {
    return { accepted: await this.telemetry.vitals(dto, ua) };
  }

  @Post('errors')
  @HttpCode(202)
  @RateLimit(ERRORS_IP)
  @ApiOperation({
    summary: 'Report a client error',
    description:
      `Message and stack are scrubbed before storage: email addresses \`[email]\`, \`svc_live_\`/\`svc_oat_\`/` +
      '`svc_ort_` tokens and JWT-shaped strings `[token]`, IPv4 addresses `[ip]`, runs of 6+ digits `[n]`, query ' +
      'strings of URLs removed. The fingerprint is the SHA-256 of the scrubbed message without numbers and the ' +
      `first three stack frames without line and column. ${PRIVACY}`,
  })
  @ApiAcceptedResponse({ type: AcceptedDto })
  @ApiErrors(422)
  async error(@Body() dto: ClientErrorDto, @Headers('user-agent') ua: string | undefined): Promise<AcceptedDto> {
    return { accepted: await this.telemetry.error(dto, ua) };
  }
}

@ApiTags('telemetry')
@Controller('admin/telemetry')
@PlatformRoles('platform_admin')
export class AdminTelemetryController {
  constructor(private readonly telemetry: TelemetryService) {}

  @Get('vitals')
  @ApiOperation({
    summary: 'Web vitals per route (platform admin)',
    description:
      'p75 by the nearest-rank method, samples and the share rated good (0..1) per route and metric over the last ' +
      'day or week.',
  })
  @ApiOkResponse({ type: VitalsReportDto })
  @ApiErrors(422)
  vitals(@Query() query: VitalsQueryDto): Promise<VitalsReportDto> {
    return this.telemetry.vitalsReport(query);
  }

  @Get('errors')
  @ApiOperation({
    summary: 'Client errors by fingerprint (platform admin)',
    description: 'Groups of the last day or week, most frequent first.',
  })
  @ApiPageResponse(ErrorGroupDto)
  @ApiErrors(422)
  errors(@Query() query: ErrorsQueryDto): Promise<Page<ErrorGroupDto>> {
    return this.telemetry.errorsReport(query);
  }
}
