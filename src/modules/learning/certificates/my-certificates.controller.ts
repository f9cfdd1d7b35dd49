import { Controller, Get, Param, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCredential } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { UuidPipe } from '@/core/http/uuid';
import { CertificatePdfService } from './certificate-pdf.service';
import { PDF_ACCOUNT } from './certificates.limits';
import { CertificatesService } from './certificates.service';
import { MyCertificatesDto } from './dto/certificate.dto';

/** A malformed id names nothing: 404, as an unknown one. */
@ApiTags('certificates')
@Controller('me/certificates')
export class MyCertificatesController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly pdfs: CertificatePdfService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'My certificates',
    description:
      'Every certificate the caller holds, from every organization, with the issuing organization, most recent ' +
      'first; revoked and replaced ones included (with their status). A personal access token acts in one ' +
      "organization only, so it lists that organization's certificates alone.",
  })
  @ApiOkResponse({ type: MyCertificatesDto })
  mine(@CurrentCredential() credential: Credential): Promise<MyCertificatesDto> {
    return this.certificates.mine(credential);
  }

  @Get(':certificate_id/pdf')
  @RateLimit(PDF_ACCOUNT)
  @ApiOperation({
    summary: 'My certificate as a PDF',
    description:
      "Rendered in the issuing organization's template (issuer, accent color, signer, footer, logo) and language: " +
      'the holder name, the credential, the issue date, the verification code and a QR code of ' +
      '`{web_url}/certificates/verify/{code}`. A revoked or replaced certificate is still delivered, marked ' +
      '"REVOKED"/"REVOCADO" or "REPLACED"/"REEMPLAZADO" with a notice, so the holder keeps a faithful record and ' +
      "nobody can mistake it for a valid one. Another person's certificate is 404. The logo is fetched by the " +
      'server (http(s), public addresses only, 3 s, 1 MiB, PNG or JPEG); when that fails the certificate is ' +
      'rendered without it.',
  })
  @ApiOkResponse({
    description: 'The PDF (`application/pdf`, `Content-Disposition: inline`)',
    content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors([404, 'not_found'])
  async pdf(
    @CurrentCredential() credential: Credential,
    @Param('certificate_id', UuidPipe) certificateId: string,
    @Res() res: Response,
  ): Promise<void> {
    const { filename, pdf } = await this.pdfs.render(credential, certificateId.toLowerCase());
    res.status(200);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename="${filename}"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.setHeader('Content-Length', String(pdf.length));
    res.end(pdf);
  }
}
