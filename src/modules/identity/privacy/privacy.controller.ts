import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { BrowserSessionOnly, CurrentCredential, MinorAccess, Public, StepUp } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { CurrentMembership, type Membership, OrgScoped, Roles } from '@/core/auth/tenancy';
import { Client, type ClientInfo } from '@/core/http/client-info';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  AgeBracketDto,
  AttestationDto,
  ConsentDto,
  ConsentListQueryDto,
  EmptyBodyDto,
  ErasureRequestDto,
  ErasureScheduledDto,
  ExportDto,
  ExportListDto,
  GuardianConsentPendingDto,
  GuardianConsentRequestDto,
  GuardianDecisionDto,
  GuardianDecisionResultDto,
  GuardianPreviewDto,
  GuardianRevokedDto,
  GuardianTokenDto,
  MemberAgeBracketDto,
  MemberAgeBracketInputDto,
  MemberAttestationDto,
  PrivacyRecordDto,
  RecordConsentDto,
} from './dto/privacy.dto';
import { ErasureService } from './erasure.service';
import { GuardianConsentService } from './guardian-consent.service';
import { PrivacyExportsService } from './privacy-exports.service';
import {
  DECISION_IP,
  DECISION_TOKEN,
  EXPORT_ACCOUNT,
  GUARDIAN_REQUEST_ACCOUNT,
  PREVIEW_IP,
  PREVIEW_TOKEN,
  REVOKE_IP,
  REVOKE_TOKEN,
} from './privacy.limits';
import { PrivacyService } from './privacy.service';

/** The person's own privacy (extensions-v2 17.1 to 17.5, routes of 17.7). */
@ApiTags('privacy')
@Controller('me/privacy')
export class PrivacyController {
  constructor(
    private readonly privacy: PrivacyService,
    private readonly exports: PrivacyExportsService,
    private readonly erasure: ErasureService,
    private readonly guardian: GuardianConsentService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'The privacy record',
    description:
      'Age bracket (and the organization managing it), guardian consent (`not_required` unless the bracket is ' +
      '`under_18`), the current state of each consent with its current version, the 5 most recent exports and the ' +
      'scheduled erasure, if any.',
  })
  @ApiOkResponse({ type: PrivacyRecordDto })
  record(@CurrentCredential() credential: Credential): Promise<PrivacyRecordDto> {
    return this.privacy.record(credential.userId);
  }

  @Get('consents')
  @ApiOperation({ summary: 'The consent history', description: 'Most recent first; `kind` filters.' })
  @ApiPageResponse(ConsentDto)
  @ApiErrors(422)
  consents(
    @CurrentCredential() credential: Credential,
    @Query() query: ConsentListQueryDto,
  ): Promise<Page<ConsentDto>> {
    return this.privacy.consents(credential.userId, query);
  }

  @Post('consents')
  @BrowserSessionOnly()
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Grant or withdraw a consent',
    description:
      'Appends `terms`, `privacy_policy` or `product_updates_email` to the history with its current version. The ' +
      'other kinds (`adult_declaration`, `guardian_consent`) are recorded by onboarding and the guardian: 422.',
  })
  @ApiCreatedResponse({ type: ConsentDto })
  @ApiErrors(422)
  recordConsent(
    @CurrentCredential() credential: Credential,
    @Body() dto: RecordConsentDto,
    @Client() client: ClientInfo,
  ): Promise<ConsentDto> {
    return this.privacy.recordConsent(credential.userId, dto, client.ip);
  }

  @Post('exports')
  @HttpCode(202)
  @BrowserSessionOnly()
  @MinorAccess('always')
  @RateLimit(EXPORT_ACCOUNT)
  @ApiOperation({
    summary: 'Ask for a copy of the own data',
    description:
      'Queues the export (a ZIP with `manifest.json`, a README in the person’s language and one JSON file per ' +
      'area); an email says when it is ready. One at a time: 409 `export_in_progress`.',
  })
  @ApiAcceptedResponse({ type: ExportDto })
  @ApiErrors(422, [409, 'export_in_progress'])
  requestExport(@CurrentCredential() credential: Credential, @Body() _body: EmptyBodyDto): Promise<ExportDto> {
    return this.exports.request(credential.userId);
  }

  @Get('exports')
  @BrowserSessionOnly()
  @ApiOperation({ summary: 'The 10 most recent exports' })
  @ApiOkResponse({ type: ExportListDto })
  listExports(@CurrentCredential() credential: Credential): Promise<ExportListDto> {
    return this.exports.list(credential.userId, 10);
  }

  @Get('exports/:export_id')
  @BrowserSessionOnly()
  @ApiOperation({ summary: 'An export', description: 'A ready export past `expires_at` is `expired` (its file gone).' })
  @ApiOkResponse({ type: ExportDto })
  @ApiErrors(404)
  getExport(
    @CurrentCredential() credential: Credential,
    @Param('export_id', UuidPipe) exportId: string,
  ): Promise<ExportDto> {
    return this.exports.get(credential.userId, exportId);
  }

  @Get('exports/:export_id/download')
  @BrowserSessionOnly()
  @StepUp()
  @ApiOperation({
    summary: 'Download an export',
    description:
      'The ZIP (`application/zip`, `Content-Disposition: attachment; filename="export-<YYYYMMDD>.zip"`, ' +
      '`Cache-Control: private, no-store`), streamed from the file store. Past its expiry, or its file no longer in ' +
      'the store: 410 `export_expired`. Audited `privacy.export_downloaded`.',
  })
  @ApiOkResponse({
    description: 'The ZIP',
    content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors(404, [409, 'export_not_ready'], [410, 'export_expired'])
  async download(
    @CurrentCredential() credential: Credential,
    @Param('export_id', UuidPipe) exportId: string,
    @Client() client: ClientInfo,
    @Res() res: Response,
  ): Promise<void> {
    const file = await this.exports.download(credential.userId, exportId, client.ip);
    res.status(200);
    res.setHeader('Content-Type', 'application/zip');
    res.setHeader('Content-Disposition', `attachment; filename="${file.filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    if (file.sizeBytes !== null) res.setHeader('Content-Length', String(file.sizeBytes));
    // A tampered file fails at its end (GCM checks last): the connection is then cut, never a shorter file.
    await pipeline(file.stream, res).catch(() => res.destroy());
  }

  @Post('erasure')
  @HttpCode(202)
  @BrowserSessionOnly()
  @StepUp()
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Schedule the erasure of the account',
    description:
      'Erasure happens 14 days later (an email says how to cancel, a reminder comes 24 h before); the account ' +
      'works normally meanwhile. The only owner of an organization with other members cannot: 409 `sole_owner`.',
  })
  @ApiAcceptedResponse({ type: ErasureScheduledDto })
  @ApiErrors(422, [409, 'erasure_already_scheduled', 'sole_owner'])
  scheduleErasure(
    @CurrentCredential() credential: Credential,
    @Body() dto: ErasureRequestDto,
    @Client() client: ClientInfo,
  ): Promise<ErasureScheduledDto> {
    return this.erasure.schedule(credential.userId, dto.keep_certificate_names ?? false, client.ip);
  }

  @Delete('erasure')
  @HttpCode(204)
  @BrowserSessionOnly()
  @MinorAccess('always')
  @ApiOperation({ summary: 'Cancel the scheduled erasure', description: '404 when none is scheduled.' })
  @ApiNoContentResponse()
  @ApiErrors(404)
  cancelErasure(@CurrentCredential() credential: Credential, @Client() client: ClientInfo): Promise<void> {
    return this.erasure.cancel(credential.userId, client.ip);
  }

  @Put('age-bracket')
  @BrowserSessionOnly()
  @StepUp()
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Declare the own age bracket',
    description:
      'Takes effect on the next request. A bracket an organization manages cannot be changed: 409 ' +
      '`age_bracket_managed`. Declaring `adult` records the consent `adult_declaration`.',
  })
  @ApiOkResponse({ type: PrivacyRecordDto })
  @ApiErrors(422, [409, 'age_bracket_managed'])
  declareAgeBracket(
    @CurrentCredential() credential: Credential,
    @Body() dto: AgeBracketDto,
    @Client() client: ClientInfo,
  ): Promise<PrivacyRecordDto> {
    return this.privacy.declareAgeBracket(credential.userId, dto.age_bracket, client.ip);
  }

  @Post('guardian-consent')
  @HttpCode(202)
  @BrowserSessionOnly()
  @MinorAccess('always')
  @RateLimit(GUARDIAN_REQUEST_ACCOUNT)
  @ApiOperation({
    summary: 'Ask a guardian for consent',
    description:
      'Emails the guardian (in the learner’s language) a link valid 7 days; a new request replaces a pending one. ' +
      'Only for accounts under 18 (409 `not_a_minor`); the address must not be the account’s own (422).',
  })
  @ApiAcceptedResponse({ type: GuardianConsentPendingDto })
  @ApiErrors(422, [409, 'not_a_minor'])
  requestGuardianConsent(
    @CurrentCredential() credential: Credential,
    @Body() dto: GuardianConsentRequestDto,
  ): Promise<GuardianConsentPendingDto> {
    return this.guardian.request(credential.userId, dto);
  }
}

/** The guardian's page (public): preview, decision, revocation (extensions-v2 17.5). */
@ApiTags('privacy')
@Public()
@Controller('guardian-consents')
export class GuardianConsentsController {
  constructor(private readonly guardian: GuardianConsentService) {}

  @Post('preview')
  @HttpCode(200)
  @RateLimit(PREVIEW_IP, PREVIEW_TOKEN)
  @ApiOperation({ summary: 'What a guardian is asked to consent to' })
  @ApiOkResponse({ type: GuardianPreviewDto })
  @ApiErrors(404, 422, [410, 'guardian_consent_expired'])
  preview(@Body() dto: GuardianTokenDto): Promise<GuardianPreviewDto> {
    return this.guardian.preview(dto.token);
  }

  @Post('decision')
  @HttpCode(200)
  @RateLimit(DECISION_IP, DECISION_TOKEN)
  @ApiOperation({
    summary: 'Grant or deny consent',
    description:
      'A grant applies everywhere, is recorded as the consent `guardian_consent`, and emails the guardian a ' +
      'revocation link (valid 365 days). Audited `guardian_consent.granted` / `guardian_consent.denied`.',
  })
  @ApiOkResponse({ type: GuardianDecisionResultDto })
  @ApiErrors(404, 422, [409, 'guardian_consent_decided'], [410, 'guardian_consent_expired'])
  decide(@Body() dto: GuardianDecisionDto, @Client() client: ClientInfo): Promise<GuardianDecisionResultDto> {
    return this.guardian.decide(dto, client.ip);
  }

  @Post('revoke')
  @HttpCode(200)
  @RateLimit(REVOKE_IP, REVOKE_TOKEN)
  @ApiOperation({
    summary: 'Withdraw a granted consent',
    description: 'With the revocation token; idempotent. Audited `guardian_consent.revoked`.',
  })
  @ApiOkResponse({ type: GuardianRevokedDto })
  @ApiErrors(404, 422, [410, 'guardian_consent_expired'])
  revoke(@Body() dto: GuardianTokenDto, @Client() client: ClientInfo): Promise<GuardianRevokedDto> {
    return this.guardian.revoke(dto.token, client.ip);
  }
}

/** An organization's side: a member's age bracket and its attestation of guardian consent (17.5). */
@ApiTags('privacy')
@Controller('organizations/:org_id/members/:user_id')
@OrgScoped()
@Roles('owner', 'admin')
export class MemberPrivacyController {
  constructor(
    private readonly privacy: PrivacyService,
    private readonly guardian: GuardianConsentService,
  ) {}

  @Put('age-bracket')
  @StepUp()
  @ApiOperation({
    summary: 'Set a member’s age bracket',
    description:
      'The organization then manages it (the person and other organizations cannot change it); null releases the ' +
      'management and leaves the bracket. Audited `member.age_bracket_set`.',
  })
  @ApiOkResponse({ type: MemberAgeBracketDto })
  @ApiErrors(404, 422, [409, 'age_bracket_managed'])
  setAgeBracket(
    @CurrentMembership() member: Membership,
    @Param('user_id') userId: string,
    @Body() dto: MemberAgeBracketInputDto,
    @Client() client: ClientInfo,
  ): Promise<MemberAgeBracketDto> {
    return this.privacy.setMemberAgeBracket(member, userId, dto.age_bracket, client.ip);
  }

  @Post('guardian-consent')
  @HttpCode(200)
  @StepUp()
  @ApiOperation({
    summary: 'Attest the guardian’s consent',
    description:
      'The organization states (with a reason) that it holds the guardian’s consent; it applies on this ' +
      'organization’s paths and on personal routes. Audited `guardian_consent.attested`.',
  })
  @ApiOkResponse({ type: MemberAttestationDto })
  @ApiErrors(404, 422, [409, 'not_a_minor'])
  attest(
    @CurrentMembership() member: Membership,
    @Param('user_id') userId: string,
    @Body() dto: AttestationDto,
    @Client() client: ClientInfo,
  ): Promise<MemberAttestationDto> {
    return this.guardian.attest(member, userId, dto.reason, client.ip);
  }

  @Delete('guardian-consent')
  @HttpCode(204)
  @StepUp()
  @ApiOperation({ summary: 'Withdraw the attestation', description: 'Audited `guardian_consent.withdrawn`.' })
  @ApiNoContentResponse()
  @ApiErrors(404)
  withdraw(
    @CurrentMembership() member: Membership,
    @Param('user_id') userId: string,
    @Client() client: ClientInfo,
  ): Promise<void> {
    return this.guardian.withdraw(member, userId, client.ip);
  }
}
