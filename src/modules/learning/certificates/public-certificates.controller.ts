import { Controller, Get, Header, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { Public } from '@/core/auth/access.decorators';
import { ApiError } from '@/core/http/api-error';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { PlatformTemplateStore } from './platform-template';
import { VERIFY_IP } from './certificates.limits';
import { CertificatesService } from './certificates.service';
import {
  CertificateTemplateResponseDto,
  VERIFICATION_CODE_PARAM,
  VerificationDto,
  verificationCodeErrors,
} from './dto/certificate.dto';

/** The answers of public verification, errors included, are never stored by a cache (see CertificatesModule). */
export const VERIFY_CACHE_CONTROL = 'no-store';

@ApiTags('certificates')
@Controller()
@Public()
export class PublicCertificatesController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly platformTemplate: PlatformTemplateStore,
  ) {}

  @Get('certificate-template')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiOperation({
    summary: "The platform's default certificate template",
    description:
      'What a certificate looks like when its organization has set nothing: every field nullable (a null issuer ' +
      "means the organization's name). Organizations override it field by field with `PATCH " +
      '/organizations/{org_id}` (`issuer_name`, `signature_name`, `signature_title`, `cert_logo_url`, ' +
      '`footer_text`, `accent_color`). Cacheable for 5 minutes (`Cache-Control: public, max-age=300`).',
  })
  @ApiOkResponse({
    type: CertificateTemplateResponseDto,
    headers: { 'Cache-Control': { description: '`public, max-age=300`', schema: { type: 'string' } } },
  })
  async template(): Promise<CertificateTemplateResponseDto> {
    return { template: await this.platformTemplate.template() };
  }

  @Get('public/certificates/verify/:code')
  @RateLimit(VERIFY_IP)
  @ApiOperation({
    summary: 'Verify a certificate by its code',
    description:
      'The code (at most 64 characters) is upper-cased and stripped of spaces before the look-up, so ' +
      '`crs-7k2m q9xh` finds `CRS-7K2M-Q9XH`; codes are `CRS-XXXX-XXXX` (course), `PRG-XXXX-XXXX` (program) or a ' +
      'legacy code stored as it was issued. `status` is `valid`, `revoked` (no holder name is shown) or ' +
      '`replaced` (reissued with a corrected name: `replaced_by_code` names the new one). No email, ids or grade. ' +
      'Every answer, errors included, carries `Cache-Control: no-store`.',
  })
  @ApiOkResponse({
    type: VerificationDto,
    headers: { 'Cache-Control': { description: '`no-store`', schema: { type: 'string' } } },
  })
  @ApiParam({
    name: 'code',
    description: VERIFICATION_CODE_PARAM.description,
    schema: { maxLength: VERIFICATION_CODE_PARAM.maxLength, example: VERIFICATION_CODE_PARAM.example, type: 'string' },
  })
  @ApiErrors([404, 'not_found'], [422, 'validation_error'])
  verify(@Param('code') code: string): Promise<VerificationDto> {
    // Checked here rather than by the global ValidationPipe (a `string` parameter is not validated by it): the same
    // rule and the same 422 details as `VerificationParamsDto`, without class-validator's metadata look-ups.
    const errors = verificationCodeErrors(code);
    if (errors.length) throw ApiError.validation(errors);
    return this.certificates.verify(code);
  }
}
