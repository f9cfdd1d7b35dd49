import { Module } from '@nestjs/common';
import { OrganizationsModule } from '@/modules/tenancy/organizations/organizations.module';
import { XapiController } from './xapi.controller';
import { XapiRepository } from './xapi.repository';
import { XapiService } from './xapi.service';

/** xAPI 1.0.3 statement export (extensions-v2 25.4): reads only, stores nothing. */
@Module({
  imports: [OrganizationsModule],
  controllers: [XapiController],
  providers: [XapiRepository, XapiService],
})
export class XapiModule {}
