import { Module } from '@nestjs/common';
import { ApiKeysModule } from '@/modules/identity/api-keys/api-keys.module';
import { OAuthModule } from '@/modules/identity/oauth/oauth.module';
import { CohortsModule } from '@/modules/tenancy/cohorts/cohorts.module';
import { UsersModule } from '@/modules/identity/users/users.module';
import { MembersController } from './members.controller';
import { MembersRepository } from './members.repository';
import { MembersService } from './members.service';
import { PeopleService } from './people.service';
import { ProfilesController } from './profiles.controller';

@Module({
  imports: [UsersModule, CohortsModule, ApiKeysModule, OAuthModule],
  controllers: [MembersController, ProfilesController],
  providers: [MembersRepository, MembersService, PeopleService],
  exports: [PeopleService],
})
export class MembersModule {}
