import { Module } from '@nestjs/common';
import { ApiKeysModule } from '@/modules/identity/api-keys/api-keys.module';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { ScimController } from './scim.controller';
import { ScimMembersPersonalData, ScimTokensPersonalData } from './scim.personal-data';
import { ScimAuthGuard } from './scim-auth.guard';
import { ScimDirectoryRepository } from './scim-directory.repository';
import { ScimExceptionFilter } from './scim-errors';
import { ScimGroupsService } from './scim-groups.service';
import { ScimTokensController } from './scim-tokens.controller';
import { ScimTokensRepository } from './scim-tokens.repository';
import { ScimTokensService } from './scim-tokens.service';
import { ScimUsersService } from './scim-users.service';

/** SCIM 2.0 provisioning per organization (issue 27, extensions-v3 section 2). */
@Module({
  imports: [UsersModule, CohortsModule, ApiKeysModule],
  controllers: [ScimController, ScimTokensController],
  providers: [
    ScimTokensRepository,
    ScimDirectoryRepository,
    ScimTokensService,
    ScimUsersService,
    ScimGroupsService,
    ScimAuthGuard,
    ScimExceptionFilter,
    ScimMembersPersonalData,
    ScimTokensPersonalData,
  ],
})
export class ScimModule {}
