import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { QUEUE_NAMES, type QueueName } from '@/core/queue/queues';

export const OUTBOX_STATUSES = ['pending', 'running', 'failed'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export class OutboxQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: OUTBOX_STATUSES, description: 'Default: pending and running (not yet finished)' })
  @IsOptional()
  @IsIn(OUTBOX_STATUSES)
  status?: OutboxStatus;

  @ApiPropertyOptional({ enum: QUEUE_NAMES })
  @IsOptional()
  @IsIn(QUEUE_NAMES)
  queue?: QueueName;
}

export class OutboxJobDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: QUEUE_NAMES }) queue!: string;
  @ApiProperty({ maxLength: 100, example: 'mail.send' }) name!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) organization_id!: string | null;
  @ApiProperty({ enum: OUTBOX_STATUSES }) status!: OutboxStatus;
  @ApiProperty({ minimum: 0, format: 'int32' }) attempts!: number;
  @ApiProperty({ minimum: 1, format: 'int32' }) max_attempts!: number;
  @ApiProperty({ format: 'date-time', description: 'When it is (or was) due' }) run_after!: string;
  @ApiProperty({ type: String, nullable: true, maxLength: 2000, description: 'The last try’s error' })
  last_error!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time', description: 'When a process last touched it' }) updated_at!: string;
}
