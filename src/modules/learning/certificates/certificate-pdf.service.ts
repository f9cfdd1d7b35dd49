import { Inject, Injectable } from '@nestjs/common';
import type QRCode from 'qrcode';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { Credential } from '@/core/auth/credential';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { renderCertificatePdf } from './certificate-pdf';
import { effectiveTemplate } from './certificate-template';
import { Clock } from '@/core/clock/clock';
import type { Locale } from '@/core/mail/mail-template';
import type { CertificateType } from './certificate-code';
import { PlatformTemplateStore } from './platform-template';
import { CertificatesService } from './certificates.service';
import { LogoFetcher } from './logo-fetcher';

/**
 * The holder's PDF of one of their certificates, in the issuing organization's template and language. A revoked
 * or replaced certificate is still delivered (the holder keeps their records) but carries a large mark and a
 * notice, and its QR code leads to the public verification that says the same.
 */
@Injectable()
export class CertificatePdfService {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly organizations: OrganizationsService,
    private readonly logos: LogoFetcher,
    private readonly platformTemplate: PlatformTemplateStore,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * A sample certificate of this organization (16.2): rendered exactly like a real one (effective template, logo
   * rules) for a sample holder and code, marked MUESTRA / SAMPLE.
   */
  async preview(organizationId: string, type: CertificateType, lang: Locale | undefined): Promise<Buffer> {
    const org = await this.organizations.getById(organizationId);
    const template = effectiveTemplate(org, await this.platformTemplate.template());
    const language: Locale = lang ?? (org.locale === 'en' ? 'en' : 'es');
    const code = type === 'course' ? 'CRS-XXXX-XXXX' : 'PRG-XXXX-XXXX';
    const verifyUrl = `${this.config.webUrl.replace(/\/+$/, '')}/certificates/verify/${code}`;
    const logo = template.logo_url ? await this.logos.fetch(template.logo_url) : null;
    return renderCertificatePdf({
      lang: language,
      template,
      holderName: language === 'en' ? 'Jane Doe' : 'Nombre Apellido',
      title: language === 'en' ? 'Sample course' : 'Curso de ejemplo',
      type,
      status: 'active',
      code,
      issuedAt: this.clock.now(),
      revokedAt: null,
      replacedByCode: null,
      verifyUrl,
      qr: qrcode().create(verifyUrl, { errorCorrectionLevel: 'M' }).modules,
      logo,
      sample: true,
    });
  }

  async render(credential: Credential, certificateId: string): Promise<{ filename: string; pdf: Buffer }> {
    const certificate = await this.certificates.ownCertificate(credential, certificateId);
    const org = await this.organizations.getById(certificate.organization_id);
    const template = effectiveTemplate(org, await this.platformTemplate.template());
    const verifyUrl = `${this.config.webUrl.replace(/\/+$/, '')}/certificates/verify/${encodeURIComponent(certificate.code)}`;
    const logo = template.logo_url ? await this.logos.fetch(template.logo_url) : null;
    const qr = qrcode().create(verifyUrl, { errorCorrectionLevel: 'M' }).modules;
    const pdf = await renderCertificatePdf({
      lang: org.locale === 'en' ? 'en' : 'es',
      template,
      holderName: certificate.holder_name,
      title: certificate.title,
      type: certificate.type,
      status: certificate.status,
      code: certificate.code,
      issuedAt: certificate.issued_at,
      revokedAt: certificate.revoked_at,
      replacedByCode: certificate.replaced_by_code,
      verifyUrl,
      qr,
      logo,
    });
    return { filename: `certificate-${certificate.code.replace(/[^A-Za-z0-9-]/g, '')}.pdf`, pdf };
  }
}

/** qrcode, loaded when first drawn rather than at start. */
function qrcode(): typeof QRCode {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('qrcode') as typeof QRCode;
}
