import { type MiddlewareConsumer, Module, type NestModule, RequestMethod } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { CertificateExportService } from './certificate-export.service';
import { CertificatePdfService } from './certificate-pdf.service';
import { CertificatesRepository } from './certificates.repository';
import { IssuedCertificatesPersonalData, PlatformSettingsPersonalData } from './certificates.personal-data';
import { CertificatesService } from './certificates.service';
import { IssuedCertificatesController } from './issued-certificates.controller';
import { DEFAULT_LOGO_TIMEOUT_MS, LOGO_FETCH_TIMEOUT_MS, LogoFetcher } from './logo-fetcher';
import {
  AdminCertificateTemplateController,
  CertificateTemplatePreviewController,
} from './certificate-template.controller';
import { MyCertificatesController } from './my-certificates.controller';
import { PlatformTemplateStore } from './platform-template';
import { PublicCertificatesController, VERIFY_CACHE_CONTROL } from './public-certificates.controller';

/** Set before the guards run, so 429 and 422 answers of the verification carry it too. */
function noStore(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Cache-Control', VERIFY_CACHE_CONTROL);
  next();
}

@Module({
  imports: [UsersModule, CohortsModule],
  controllers: [
    PublicCertificatesController,
    IssuedCertificatesController,
    MyCertificatesController,
    AdminCertificateTemplateController,
    CertificateTemplatePreviewController,
  ],
  providers: [
    CertificatesRepository,
    CertificatesService,
    CertificateExportService,
    CertificatePdfService,
    LogoFetcher,
    PlatformTemplateStore,
    IssuedCertificatesPersonalData,
    PlatformSettingsPersonalData,
    { provide: LOGO_FETCH_TIMEOUT_MS, useValue: DEFAULT_LOGO_TIMEOUT_MS },
  ],
  exports: [CertificatesService],
})
export class CertificatesModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(noStore).forRoutes({ path: 'public/certificates/verify/*path', method: RequestMethod.GET });
  }
}
