import { Module } from '@nestjs/common';
import { OperationsController } from './operations.controller';

/** Operators' views beside /health, /ready, /version and /metrics: the outbox of background jobs. */
@Module({ controllers: [OperationsController] })
export class OperationsModule {}
