import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsISO8601, IsObject, IsOptional, IsUUID, Matches, ValidateNested } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import {
  REPORT_FORMATS,
  REPORT_SEPARATORS,
  REPORT_STATUSES,
  REPORT_TYPES,
  type ReportFormat,
  type ReportSeparator,
  type ReportStatus,
  type ReportType,
} from '../report-types';

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const dayMessage = (field: string) => ({ message: `${field} must be a date YYYY-MM-DD` });

export class ReportFiltersDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only the students of this cohort of the organization' })
  @IsOptional()
  @IsUUID('all')
  cohort_id?: string;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only this course' })
  @IsOptional()
  @IsUUID('all')
  course_id?: string;

  @ApiPropertyOptional({
    type: String,
    format: 'date',
    description: 'First local day (organization zone) of the dated column, inclusive',
  })
  @IsOptional()
  @Matches(DAY, dayMessage('from'))
  @IsISO8601({ strict: true }, dayMessage('from'))
  from?: string;

  @ApiPropertyOptional({ type: String, format: 'date', description: 'Last local day, inclusive; not before `from`' })
  @IsOptional()
  @Matches(DAY, dayMessage('to'))
  @IsISO8601({ strict: true }, dayMessage('to'))
  to?: string;
}

export class CreateReportDto {
  @ApiProperty({ enum: REPORT_TYPES })
  @IsIn(REPORT_TYPES)
  type!: ReportType;

  @ApiProperty({ enum: REPORT_FORMATS })
  @IsIn(REPORT_FORMATS)
  format!: ReportFormat;

  @ApiPropertyOptional({ enum: ['es', 'en'], description: "Default the caller's locale" })
  @IsOptional()
  @IsIn(['es', 'en'])
  lang?: 'es' | 'en';

  @ApiPropertyOptional({ enum: REPORT_SEPARATORS, default: 'comma', description: 'CSV only' })
  @IsOptional()
  @IsIn(REPORT_SEPARATORS)
  separator?: ReportSeparator;

  @ApiPropertyOptional({ type: ReportFiltersDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ReportFiltersDto)
  filters?: ReportFiltersDto;
}

export class ReportListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: REPORT_TYPES })
  @IsOptional()
  @IsIn(REPORT_TYPES)
  type?: ReportType;

  @ApiPropertyOptional({ enum: REPORT_STATUSES })
  @IsOptional()
  @IsIn(REPORT_STATUSES)
  status?: ReportStatus;
}

export class ReportRequesterDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true, description: 'null once that person was erased' })
  user_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
}

export class ReportFiltersViewDto {
  @ApiPropertyOptional({ format: 'uuid' }) cohort_id?: string;
  @ApiPropertyOptional({ format: 'uuid' }) course_id?: string;
  @ApiPropertyOptional({ format: 'date' }) from?: string;
  @ApiPropertyOptional({ format: 'date' }) to?: string;
}

export class ReportDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: REPORT_TYPES }) type!: ReportType;
  @ApiProperty({ enum: REPORT_FORMATS }) format!: ReportFormat;
  @ApiProperty({ enum: ['es', 'en'] }) lang!: 'es' | 'en';
  @ApiProperty({ enum: REPORT_SEPARATORS }) separator!: ReportSeparator;
  @ApiProperty({ type: ReportFiltersViewDto }) filters!: ReportFiltersViewDto;
  @ApiProperty({ enum: REPORT_STATUSES }) status!: ReportStatus;
  @ApiProperty({ type: Number, nullable: true, description: 'Data rows (without the header); set when completed' })
  rows!: number | null;
  @ApiProperty({ type: Number, nullable: true }) size_bytes!: number | null;
  @ApiProperty({ type: String, nullable: true, description: '`report_too_large` or `internal_error` when failed' })
  error_code!: string | null;
  @ApiProperty({ type: ReportRequesterDto }) requested_by!: ReportRequesterDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) started_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) finished_at!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) expires_at!: string | null;
}
