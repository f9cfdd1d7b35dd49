import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenancyResolver } from '@/core/auth/tenancy';
import { UsersModule } from '@/modules/identity/users/users.module';
import { OrganizationEntity } from './entities/organization.entity';
import { OrganizationsController } from './organizations.controller';
import { CreatedOrganizationsPersonalData, MembershipsPersonalData } from './organizations.personal-data';
import { OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';

/** Global so the core's org-scope guard finds the TenancyResolver this area provides. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OrganizationEntity]), UsersModule],
  controllers: [OrganizationsController],
  providers: [
    OrganizationsRepository,
    OrganizationsService,
    { provide: TenancyResolver, useExisting: OrganizationsService },
    MembershipsPersonalData,
    CreatedOrganizationsPersonalData,
  ],
  exports: [OrganizationsService, TenancyResolver],
})
export class OrganizationsModule {}
