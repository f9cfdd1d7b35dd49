import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { PageQueryDto } from '@/core/http/pagination';
import { CatalogQueryDto, LANGUAGES, LEVELS, type Language, type Level } from '@/modules/learning/courses';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const trimLower = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' ? value.trim().toLowerCase() : value;

export const CONTACT_TOPICS = ['general', 'sales', 'press', 'other'] as const;
export const ORGANIZATION_SIZES = ['1-50', '51-500', '501-5000', '5000+'] as const;
export const REQUEST_KINDS = ['contact', 'demo'] as const;
export const REQUEST_STATUSES = ['new', 'handled', 'spam'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

class FormBase {
  @ApiProperty({ minLength: 1, maxLength: 120 })
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiProperty({ format: 'email', maxLength: 254 })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(254)
  email!: string;

  @ApiPropertyOptional({ enum: ['es', 'en'] })
  @IsOptional()
  @IsIn(['es', 'en'])
  locale?: 'es' | 'en';

  @ApiPropertyOptional({
    description: 'Leave empty: a honeypot. When filled the answer is the same 202 and nothing is stored.',
    maxLength: 1000,
  })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  website?: string;
}

export class ContactDto extends FormBase {
  @ApiProperty({ minLength: 10, maxLength: 5000 })
  @Transform(trim)
  @IsString()
  @Length(10, 5000)
  message!: string;

  @ApiPropertyOptional({ enum: CONTACT_TOPICS, default: 'general' })
  @IsOptional()
  @IsIn(CONTACT_TOPICS)
  topic?: (typeof CONTACT_TOPICS)[number];
}

export class DemoRequestDto extends FormBase {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  organization_name!: string;

  @ApiPropertyOptional({ maxLength: 120 })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(120)
  role?: string;

  @ApiPropertyOptional({ enum: ORGANIZATION_SIZES })
  @IsOptional()
  @IsIn(ORGANIZATION_SIZES)
  organization_size?: (typeof ORGANIZATION_SIZES)[number];

  @ApiPropertyOptional({ description: 'ISO 3166-1 alpha-2', example: 'ES' })
  @IsOptional()
  @Matches(/^[A-Z]{2}$/, { message: 'country must be an ISO 3166-1 alpha-2 code' })
  country?: string;

  @ApiPropertyOptional({ maxLength: 5000 })
  @IsOptional()
  @Transform(trim)
  @IsString()
  @MaxLength(5000)
  message?: string;
}

export class ReceivedDto {
  @ApiProperty({ enum: ['received'] }) status!: 'received';
}

export class PublicCatalogQueryDto extends CatalogQueryDto {}

export class PublicRatingDto {
  @ApiProperty({ type: Number, nullable: true }) average!: number | null;
  @ApiProperty() count!: number;
}

export class PublicCourseCardDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() slug!: string;
  @ApiProperty() title!: string;
  @ApiProperty() summary!: string;
  @ApiProperty({ enum: LANGUAGES }) language!: Language;
  @ApiProperty({ enum: LEVELS }) level!: Level;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty() lessons_count!: number;
  @ApiProperty() estimated_minutes!: number;
  @ApiProperty({ type: PublicRatingDto }) rating!: PublicRatingDto;
  @ApiProperty() issues_certificate!: boolean;
  @ApiProperty({ format: 'date-time' }) published_at!: string;
}

export class PublicLessonDto {
  @ApiProperty() position!: number;
  @ApiProperty() title!: string;
  @ApiProperty() estimated_minutes!: number;
  @ApiProperty() has_quiz!: boolean;
}

export class PublicCourseDto extends PublicCourseCardDto {
  @ApiProperty() description_md!: string;
  @ApiProperty({ type: [PublicLessonDto] }) lessons!: PublicLessonDto[];
}

export class ContactRequestQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: REQUEST_KINDS })
  @IsOptional()
  @IsIn(REQUEST_KINDS)
  kind?: RequestKind;

  @ApiPropertyOptional({ enum: REQUEST_STATUSES })
  @IsOptional()
  @IsIn(REQUEST_STATUSES)
  status?: RequestStatus;
}

export class UpdateContactRequestDto {
  @ApiProperty({ enum: REQUEST_STATUSES })
  @IsIn(REQUEST_STATUSES)
  status!: RequestStatus;
}

export class ContactRequestDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ enum: REQUEST_KINDS }) kind!: RequestKind;
  @ApiProperty() name!: string;
  @ApiProperty() email!: string;
  @ApiProperty({ type: String, nullable: true }) topic!: string | null;
  @ApiProperty({ type: String, nullable: true }) organization_name!: string | null;
  @ApiProperty({ type: String, nullable: true }) role!: string | null;
  @ApiProperty({ type: String, nullable: true }) organization_size!: string | null;
  @ApiProperty({ type: String, nullable: true }) country!: string | null;
  @ApiProperty({ type: String, nullable: true }) message!: string | null;
  @ApiProperty({ type: String, nullable: true }) locale!: string | null;
  @ApiProperty({ enum: REQUEST_STATUSES }) status!: RequestStatus;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) handled_at!: string | null;
}
