import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UserEntity } from './entities/user.entity';
import { IntegrationsService } from './integrations.service';
import { UsersController } from './users.controller';
import { AccountPersonalData, ConsentsPersonalData } from './users.personal-data';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';

@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  controllers: [UsersController],
  providers: [UsersRepository, UsersService, IntegrationsService, AccountPersonalData, ConsentsPersonalData],
  exports: [UsersService],
})
export class UsersModule {}
