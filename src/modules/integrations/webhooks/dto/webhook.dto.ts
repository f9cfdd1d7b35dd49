import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  MaxLength,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../webhook-events';

export const DESCRIPTION_MAX = 200;
export const URL_MAX = 2048;
const SUBSCRIBABLE = WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test');
const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const notNull = (_: object, v: unknown): boolean => v !== undefined;

export class CreateEndpointDto {
  @ApiProperty({
    maxLength: URL_MAX,
    example: 'https://hooks.example.com/learning',
    description: 'https, resolving only to public addresses (checked now and before every delivery)',
  })
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(URL_MAX)
  url!: string;

  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string | null;

  @ApiProperty({ enum: SUBSCRIBABLE, isArray: true, minItems: 1, maxItems: SUBSCRIBABLE.length })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SUBSCRIBABLE.length)
  @ArrayUnique()
  @IsIn(SUBSCRIBABLE, { each: true })
  events!: WebhookEventType[];

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class UpdateEndpointDto {
  @ApiPropertyOptional({ maxLength: URL_MAX })
  @ValidateIf(notNull)
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(URL_MAX)
  url?: string;

  @ApiPropertyOptional({ maxLength: DESCRIPTION_MAX, nullable: true, description: '`null` clears it' })
  @IsOptional()
  @IsString()
  @MaxLength(DESCRIPTION_MAX)
  description?: string | null;

  @ApiPropertyOptional({ enum: SUBSCRIBABLE, isArray: true, minItems: 1, maxItems: SUBSCRIBABLE.length })
  @ValidateIf(notNull)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(SUBSCRIBABLE.length)
  @ArrayUnique()
  @IsIn(SUBSCRIBABLE, { each: true })
  events?: WebhookEventType[];

  @ApiPropertyOptional({ description: 'Enabling clears `disabled_reason`' })
  @ValidateIf(notNull)
  @IsBoolean()
  enabled?: boolean;
}

export class WebhookCreatedByDto {
  @ApiProperty({ format: 'uuid', nullable: true, type: String })
  user_id!: string | null;
}

export class EndpointDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() url!: string;
  @ApiProperty({ nullable: true, type: String }) description!: string | null;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES, isArray: true }) events!: string[];
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ enum: ['failing', 'gone'], nullable: true, type: String }) disabled_reason!: 'failing' | 'gone' | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) secret_rotated_at!: string | null;
  @ApiProperty({ type: WebhookCreatedByDto }) created_by!: WebhookCreatedByDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class EndpointWithSecretDto extends EndpointDto {
  @ApiProperty({
    example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    description: 'Shown only here (`whsec_` + base64 of 32 random bytes); keep it to verify signatures',
  })
  secret!: string;
}

export class EndpointListDto {
  @ApiProperty({ type: [EndpointDto], maxItems: 10 }) items!: EndpointDto[];
}

export class TestEventDto {
  @ApiProperty({ format: 'uuid', description: 'The `webhook-id` of the `webhook.test` delivery' }) event_id!: string;
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export class DeliveryQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @IsOptional()
  @IsIn(DELIVERY_STATUSES)
  status?: (typeof DELIVERY_STATUSES)[number];

  @ApiPropertyOptional({ enum: WEBHOOK_EVENT_TYPES })
  @IsOptional()
  @IsIn(WEBHOOK_EVENT_TYPES)
  event_type?: WebhookEventType;
}

export class DeliveryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid', description: 'The `webhook-id`, the same on every attempt and redelivery' })
  event_id!: string;
  @ApiProperty({ enum: WEBHOOK_EVENT_TYPES }) event_type!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status!: string;
  @ApiProperty({ minimum: 0, maximum: 8 }) attempts!: number;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) last_attempt_at!: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) next_attempt_at!: string | null;
  @ApiProperty({ nullable: true, type: Number }) last_status_code!: number | null;
  @ApiProperty({ nullable: true, type: String }) last_error!: string | null;
  @ApiProperty({ nullable: true, type: Number, description: 'Time of the last attempt, milliseconds' })
  response_ms!: number | null;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}
