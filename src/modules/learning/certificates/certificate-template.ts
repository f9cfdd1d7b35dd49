/** The certificate template of interface-v1 section 2: every field nullable. */
export interface CertificateTemplate {
  issuer_name: string | null;
  signature_name: string | null;
  signature_title: string | null;
  logo_url: string | null;
  footer_text: string | null;
  accent_color: string | null;
}

/**
 * The platform's default template, what `GET /certificate-template` answers and what every organization's
 * certificate falls back to field by field. No issuer, signer or logo of its own: an organization's certificate
 * names the organization unless its template says otherwise.
 */
export const DEFAULT_TEMPLATE: Readonly<CertificateTemplate> = Object.freeze({
  issuer_name: null,
  signature_name: null,
  signature_title: null,
  logo_url: null,
  footer_text: null,
  accent_color: '#1F4E79',
});

/** The organization columns of its template (`cert_*`), as the organizations area stores them. */
export interface OrganizationTemplateSource {
  name: string;
  logoUrl: string | null;
  certIssuerName: string | null;
  certSignatureName: string | null;
  certSignatureTitle: string | null;
  certLogoUrl: string | null;
  certFooterText: string | null;
  certAccentColor: string | null;
}

/**
 * What a certificate of this organization shows: its template, then the platform default (the stored one,
 * 16.2; the constant until a platform admin saves one), field by field.
 */
export function effectiveTemplate(
  org: OrganizationTemplateSource,
  platform: Readonly<CertificateTemplate> = DEFAULT_TEMPLATE,
): CertificateTemplate & { issuer_name: string } {
  return {
    issuer_name: org.certIssuerName ?? platform.issuer_name ?? org.name,
    signature_name: org.certSignatureName ?? platform.signature_name,
    signature_title: org.certSignatureTitle ?? platform.signature_title,
    logo_url: org.certLogoUrl ?? platform.logo_url ?? org.logoUrl,
    footer_text: org.certFooterText ?? platform.footer_text,
    accent_color: org.certAccentColor ?? platform.accent_color,
  };
}
