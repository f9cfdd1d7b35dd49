import { Module } from '@nestjs/common';
import { CertificatesModule } from '@/modules/learning/certificates/certificates.module';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { ObKey } from './ob-key';
import { MyOpenBadgesController, PublicOpenBadgesController } from './open-badges.controller';
import { OpenBadgesRepository } from './open-badges.repository';
import { OpenBadgesService } from './open-badges.service';

/** Open Badges 3.0 credentials of certificates (extensions-v2 25.5). Reads only; holds no personal data. */
@Module({
  imports: [CertificatesModule, OrganizationsModule],
  controllers: [PublicOpenBadgesController, MyOpenBadgesController],
  providers: [ObKey, OpenBadgesRepository, OpenBadgesService],
})
export class OpenBadgesModule {}
