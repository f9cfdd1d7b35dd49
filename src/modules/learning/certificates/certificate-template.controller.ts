import { Body, Controller, Get, Param, Put, Query, Req, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { CurrentCredential, PlatformRoles } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { OrgScoped, Roles } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { CertificatePdfService } from './certificate-pdf.service';
import { PREVIEW_ACCOUNT } from './certificates.limits';
import { PutCertificateTemplateDto, StoredTemplateDto, TemplatePreviewQueryDto } from './dto/template-admin.dto';
import { PlatformTemplateStore } from './platform-template';

@ApiTags('certificates')
@Controller('admin/certificate-template')
@PlatformRoles('platform_admin')
export class AdminCertificateTemplateController {
  constructor(private readonly store: PlatformTemplateStore) {}

  @Get()
  @ApiOperation({
    summary: "The platform's default certificate template (platform admin)",
    description: 'What `GET /certificate-template` answers; every organization falls back to it field by field.',
  })
  @ApiOkResponse({ type: StoredTemplateDto })
  get(): Promise<StoredTemplateDto> {
    return this.store.get();
  }

  @Put()
  @ApiOperation({
    summary: "Replace the platform's default certificate template (platform admin)",
    description:
      'Every field nullable; a field left out becomes null. issuer_name, signature_name, signature_title up to 200; ' +
      'logo_url http(s) up to 512; footer_text up to 500; accent_color `#RRGGBB`. Audited ' +
      '(`certificate_template.updated`, with the names of the fields set).',
  })
  @ApiOkResponse({ type: StoredTemplateDto })
  @ApiErrors(422)
  put(
    @Body() dto: PutCertificateTemplateDto,
    @CurrentCredential() credential: Credential,
    @Req() req: Request,
  ): Promise<StoredTemplateDto> {
    return this.store.put(dto, credential.userId, req.ip);
  }
}

@ApiTags('certificates')
@Controller('organizations/:org_id/certificate-template')
@OrgScoped()
export class CertificateTemplatePreviewController {
  constructor(private readonly pdfs: CertificatePdfService) {}

  @Get('preview.pdf')
  @Roles('owner', 'admin')
  @RateLimit(PREVIEW_ACCOUNT)
  @ApiOperation({
    summary: 'Preview the organization’s certificate',
    description:
      'A PDF rendered exactly like a real certificate of this organization (its effective template and the logo ' +
      'rules of the built PDF) for the sample holder "Nombre Apellido" / "Jane Doe" and the code `CRS-XXXX-XXXX` or ' +
      '`PRG-XXXX-XXXX`, marked MUESTRA / SAMPLE. `Cache-Control: private, no-store`.',
  })
  @ApiOkResponse({
    description: 'The PDF',
    content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors(403, 422)
  async preview(
    @Param('org_id') orgId: string,
    @Query() query: TemplatePreviewQueryDto,
    @Res() res: Response,
  ): Promise<void> {
    const pdf = await this.pdfs.preview(orgId.toLowerCase(), query.type ?? 'course', query.lang);
    res.status(200);
    res.setHeader('Content-Type', 'application/pdf');
    res.setHeader('Content-Disposition', `inline; filename="certificate-preview-${query.type ?? 'course'}.pdf"`);
    res.setHeader('Cache-Control', 'private, no-store');
    res.end(pdf);
  }
}
