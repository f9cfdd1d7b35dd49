import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  MaxLength,
  Matches,
  ValidateNested,
} from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import {
  TICKET_CATEGORIES,
  TICKET_PRIORITIES,
  TICKET_STATUSES,
  type TicketCategory,
  type TicketPriority,
  type TicketStatus,
} from '../support.types';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
/** Not only white space. */
const VISIBLE = /\S/;

export class TicketClientDto {
  @ApiPropertyOptional({ maxLength: 300 })
  @IsOptional()
  @IsString()
  @MaxLength(300)
  user_agent?: string;

  @ApiPropertyOptional({ maxLength: 32 })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  app_version?: string;

  @ApiPropertyOptional({ maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  route?: string;
}

export class CreateTicketDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  subject!: string;

  @ApiProperty({ minLength: 1, maxLength: 10000, description: 'Markdown' })
  @IsString()
  @Length(1, 10000)
  @Matches(VISIBLE, { message: 'body must not be empty' })
  body!: string;

  @ApiProperty({ enum: TICKET_CATEGORIES })
  @IsIn(TICKET_CATEGORIES)
  category!: TicketCategory;

  @ApiPropertyOptional({ format: 'uuid', description: 'An organization of the caller (else 404)' })
  @IsOptional()
  @IsUUID('all')
  organization_id?: string;

  @ApiPropertyOptional({ type: TicketClientDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TicketClientDto)
  client?: TicketClientDto;
}

export class CreateMessageDto {
  @ApiProperty({ minLength: 1, maxLength: 10000, description: 'Markdown' })
  @IsString()
  @Length(1, 10000)
  @Matches(VISIBLE, { message: 'body must not be empty' })
  body!: string;
}

export class CreateStaffMessageDto extends CreateMessageDto {
  @ApiPropertyOptional({ default: false, description: 'An internal note: never shown to the person' })
  @IsOptional()
  @IsBoolean()
  internal?: boolean;
}

export class UpdateTicketDto {
  @ApiPropertyOptional({ enum: TICKET_STATUSES })
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;

  @ApiPropertyOptional({ enum: TICKET_PRIORITIES })
  @IsOptional()
  @IsIn(TICKET_PRIORITIES)
  priority?: TicketPriority;
}

export class TicketListQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: TICKET_STATUSES })
  @IsOptional()
  @IsIn(TICKET_STATUSES)
  status?: TicketStatus;
}

export class AdminTicketListQueryDto extends TicketListQueryDto {
  @ApiPropertyOptional({ enum: TICKET_CATEGORIES })
  @IsOptional()
  @IsIn(TICKET_CATEGORIES)
  category?: TicketCategory;

  @ApiPropertyOptional({ enum: TICKET_PRIORITIES })
  @IsOptional()
  @IsIn(TICKET_PRIORITIES)
  priority?: TicketPriority;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Words of the subject, or the ticket number' })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  q?: string;
}

export class MessageAuthorDto {
  @ApiProperty({ enum: ['user', 'staff'] }) kind!: 'user' | 'staff';
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
}

export class TicketMessageDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: MessageAuthorDto }) author!: MessageAuthorDto;
  @ApiProperty({ description: 'Markdown as written' }) body!: string;
  @ApiProperty({ description: 'The markdown rendered and sanitized (no raw HTML, no images, safe links)' })
  body_html!: string;
  @ApiPropertyOptional({ description: 'Staff views only: an internal note' }) internal?: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class TicketDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ description: 'Sequential, shown to people' }) number!: number;
  @ApiProperty() subject!: string;
  @ApiProperty({ enum: TICKET_CATEGORIES }) category!: TicketCategory;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) organization_id!: string | null;
  @ApiProperty({ enum: TICKET_STATUSES }) status!: TicketStatus;
  @ApiProperty({ enum: TICKET_PRIORITIES }) priority!: TicketPriority;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) closed_at!: string | null;
  @ApiProperty({ format: 'date-time' }) last_message_at!: string;
}

export class TicketWithMessagesDto extends TicketDto {
  @ApiProperty({ type: [TicketMessageDto] }) messages!: TicketMessageDto[];
}

export class RequesterDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty() email!: string;
}

export class AdminTicketDto extends TicketDto {
  @ApiProperty({ type: RequesterDto }) requester!: RequesterDto;
}

export class AdminTicketWithMessagesDto extends AdminTicketDto {
  @ApiProperty({ type: [TicketMessageDto] }) messages!: TicketMessageDto[];
}
