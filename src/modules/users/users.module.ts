import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserEntity } from './entities/user.entity';
import { IntegrationsRegistry } from './integrations.registry';
import { UsersController } from './users.controller';
import { AccountPersonalData, ConsentsPersonalData } from './users.personal-data';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  controllers: [UsersController],
  providers: [UsersRepository, UsersService, IntegrationsRegistry, AccountPersonalData, ConsentsPersonalData],
  exports: [UsersService, IntegrationsRegistry],
})
export class UsersModule {}
