import { Global, Module, type OnModuleInit } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TenancyResolver } from '@/core/auth/tenancy';
import { AuthModule } from '@/modules/auth/auth.module';
import { CredentialView } from '@/modules/auth/credential-view';
import { UsersModule } from '@/modules/users/users.module';
import { OrganizationEntity } from './entities/organization.entity';
import { OrganizationsController } from './organizations.controller';
import { CreatedOrganizationsPersonalData, MembershipsPersonalData } from './organizations.personal-data';
import { OrganizationsRepository } from './organizations.repository';
import { OrganizationsService } from './organizations.service';

/** Global so the core's org-scope guard finds the TenancyResolver this area provides. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OrganizationEntity]), UsersModule, AuthModule],
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
export class OrganizationsModule implements OnModuleInit {
  constructor(
    private readonly orgs: OrganizationsService,
    private readonly credentialView: CredentialView,
  ) {}

  onModuleInit(): void {
    // `GET /auth/credential` reports a bearer token's role in its organization.
    this.credentialView.useRoleLookup(
      async (userId, organizationId) => (await this.orgs.membership(organizationId, userId))?.role ?? null,
    );
  }
}
