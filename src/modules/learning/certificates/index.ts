/**
 * The certificates area's public surface (docs/DECISIONS.md, "One public surface per area"): what other areas,
 * the apps and the tests may use. From outside the area, lint allows only this file and, for composition,
 * the area's *.module.ts.
 */
export { CertificateExportService } from './certificate-export.service';
export { CertificatePdfService } from './certificate-pdf.service';
export { CertificatesService } from './certificates.service';
export { IssuedCertificateDto } from './dto/certificate.dto';
