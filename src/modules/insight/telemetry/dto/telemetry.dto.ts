import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';

export const METRICS = ['LCP', 'INP', 'CLS', 'FCP', 'TTFB'] as const;
export const RATINGS = ['good', 'needs-improvement', 'poor'] as const;
export const NAVIGATION_TYPES = [
  'navigate',
  'reload',
  'back-forward',
  'back-forward-cache',
  'prerender',
  'restore',
] as const;
export const PERIODS = ['day', 'week'] as const;
export type TelemetryPeriod = (typeof PERIODS)[number];

export class VitalEventDto {
  @ApiProperty({ enum: METRICS })
  @IsIn(METRICS)
  name!: (typeof METRICS)[number];

  @ApiProperty({ minimum: 0, maximum: 600000, description: 'Milliseconds; CLS is unitless, at most 10' })
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(600000)
  value!: number;

  @ApiProperty({ enum: RATINGS })
  @IsIn(RATINGS)
  rating!: (typeof RATINGS)[number];

  @ApiProperty({ maxLength: 2000, description: 'The page path; normalized, or dropped when it cannot be' })
  @IsString()
  @Length(1, 2000)
  route!: string;

  @ApiPropertyOptional({ enum: NAVIGATION_TYPES })
  @IsOptional()
  @IsIn(NAVIGATION_TYPES)
  navigation_type?: (typeof NAVIGATION_TYPES)[number];
}

export class VitalsDto {
  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  release?: string;

  @ApiProperty({ type: [VitalEventDto], minItems: 1, maxItems: 50 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(50)
  @ValidateNested({ each: true })
  @Type(() => VitalEventDto)
  events!: VitalEventDto[];
}

export class ClientErrorDto {
  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  release?: string;

  @ApiProperty({ maxLength: 2000 })
  @IsString()
  @Length(1, 2000)
  route!: string;

  @ApiProperty({ minLength: 1, maxLength: 1000 })
  @IsString()
  @Length(1, 1000)
  message!: string;

  @ApiPropertyOptional({ maxLength: 8000 })
  @IsOptional()
  @IsString()
  @MaxLength(8000)
  stack?: string;

  @ApiPropertyOptional({ enum: ['error', 'unhandledrejection'], default: 'error' })
  @IsOptional()
  @IsIn(['error', 'unhandledrejection'])
  kind?: 'error' | 'unhandledrejection';
}

export class AcceptedDto {
  @ApiProperty({ description: 'Events kept after validation, route normalization and sampling' }) accepted!: number;
}

export class VitalsQueryDto {
  @ApiPropertyOptional({ enum: PERIODS, default: 'day', description: 'The last 24 hours or 7 days' })
  @IsOptional()
  @IsIn(PERIODS)
  period: TelemetryPeriod = 'day';

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  route?: string;

  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  release?: string;
}

export class ErrorsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: PERIODS, default: 'day' })
  @IsOptional()
  @IsIn(PERIODS)
  period: TelemetryPeriod = 'day';

  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  release?: string;
}

export class VitalSummaryDto {
  @ApiProperty() route!: string;
  @ApiProperty({ enum: METRICS }) metric!: string;
  @ApiProperty({ description: '75th percentile by the nearest-rank method' }) p75!: number;
  @ApiProperty() samples!: number;
  @ApiProperty({ minimum: 0, maximum: 1, description: 'Share rated good (0..1)' }) good_share!: number;
}

export class VitalsReportDto {
  @ApiProperty({ enum: PERIODS }) period!: TelemetryPeriod;
  @ApiProperty({ format: 'date-time' }) from!: string;
  @ApiProperty({ format: 'date-time' }) to!: string;
  @ApiProperty({ type: [VitalSummaryDto] }) items!: VitalSummaryDto[];
}

export class ErrorGroupDto {
  @ApiProperty() fingerprint!: string;
  @ApiProperty() message!: string;
  @ApiProperty({ type: String, nullable: true }) sample_stack!: string | null;
  @ApiProperty({ type: [String] }) routes!: string[];
  @ApiProperty({ type: [String] }) releases!: string[];
  @ApiProperty() count!: number;
  @ApiProperty({ format: 'date-time' }) first_seen_at!: string;
  @ApiProperty({ format: 'date-time' }) last_seen_at!: string;
}
