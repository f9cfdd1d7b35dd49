import { Module } from '@nestjs/common';
import { AuthModule } from '@/modules/identity/auth/auth.module';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { InvitationsController } from './invitations.controller';
import { InvitationsPersonalData } from './invitations.personal-data';
import { InvitationsRepository } from './invitations.repository';
import { InvitationsService } from './invitations.service';
import { OrgInvitationsController } from './org-invitations.controller';

/** Exports InvitationsService: the member import sends its invitations through `invite`. */
@Module({
  imports: [UsersModule, AuthModule, CohortsModule],
  controllers: [InvitationsController, OrgInvitationsController],
  providers: [InvitationsRepository, InvitationsService, InvitationsPersonalData],
  exports: [InvitationsService],
})
export class InvitationsModule {}
