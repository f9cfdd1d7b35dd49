import { Module } from '@nestjs/common';
import { ProgressRepository } from './progress.repository';
import { ProgressService } from './progress.service';

@Module({
  providers: [ProgressRepository, ProgressService],
  exports: [ProgressService],
})
export class ProgressModule {}
