import { Module } from '@nestjs/common';
import { UsersModule } from '@/modules/identity/users/users.module';
import { ApiKeysController } from './api-keys.controller';
import { ApiKeysPersonalData } from './api-keys.personal-data';
import { ApiKeysRepository } from './api-keys.repository';
import { ApiKeysService } from './api-keys.service';
import { PersonalTokenStrategy } from './personal-token.strategy';

@Module({
  imports: [UsersModule],
  controllers: [ApiKeysController],
  providers: [ApiKeysRepository, ApiKeysService, PersonalTokenStrategy, ApiKeysPersonalData],
  exports: [ApiKeysService],
})
export class ApiKeysModule {}
