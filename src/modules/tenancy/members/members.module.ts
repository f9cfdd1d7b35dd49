import { Module } from '@nestjs/common';
import { ApiKeysModule } from '@/modules/api-keys/api-keys.module';
import { OAuthModule } from '@/modules/oauth/oauth.module';
import { CohortsModule } from '@/modules/cohorts/cohorts.module';
import { UsersModule } from '@/modules/users/users.module';
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
