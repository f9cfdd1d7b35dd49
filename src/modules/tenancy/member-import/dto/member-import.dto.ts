import { ApiProperty } from '@nestjs/swagger';

export class ImportQueuedDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['queued'] }) status!: 'queued';
}

export class ImportStatusDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: ['queued', 'running', 'completed', 'failed'] }) status!: string;
  @ApiProperty({ description: 'Rows in the file' }) total!: number;
  @ApiProperty({ description: 'Rows handled so far' }) processed!: number;
  @ApiProperty({ description: 'Unknown addresses: an invitation was sent' }) invited!: number;
  @ApiProperty({ description: 'Existing accounts: the membership was created' }) added!: number;
  @ApiProperty({ description: 'Already members, or an address repeated in the file' }) skipped!: number;
  @ApiProperty({ description: 'Rows that could not be applied (see the report)' }) failed!: number;
  @ApiProperty({ nullable: true, type: String, description: 'The per-row report, once the import has finished' })
  report_url!: string | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) finished_at!: string | null;
}
