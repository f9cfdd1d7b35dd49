import { Module } from '@nestjs/common';
import { CohortsModule } from '@/modules/cohorts/cohorts.module';
import { UsersModule } from '@/modules/users/users.module';
import { CertificatesRepository } from './certificates.repository';
import { CertificatesService } from './certificates.service';

@Module({
  imports: [UsersModule, CohortsModule],
  providers: [CertificatesRepository, CertificatesService],
  exports: [CertificatesService],
})
export class CertificatesModule {}
