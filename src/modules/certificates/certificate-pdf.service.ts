import { Inject, Injectable } from '@nestjs/common';
import QRCode from 'qrcode';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import type { Credential } from '@/core/auth/credential';
import { OrganizationsService } from '@/modules/organizations/organizations.service';
import { renderCertificatePdf } from './certificate-pdf';
import { effectiveTemplate } from './certificate-template';
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
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async render(credential: Credential, certificateId: string): Promise<{ filename: string; pdf: Buffer }> {
    const certificate = await this.certificates.ownCertificate(credential, certificateId);
    const org = await this.organizations.getById(certificate.organization_id);
    const template = effectiveTemplate(org);
    const verifyUrl = `${this.config.webUrl.replace(/\/+$/, '')}/certificates/verify/${encodeURIComponent(certificate.code)}`;
    const logo = template.logo_url ? await this.logos.fetch(template.logo_url) : null;
    const qr = QRCode.create(verifyUrl, { errorCorrectionLevel: 'M' }).modules;
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
