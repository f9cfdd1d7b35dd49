import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUrl,
  IsUUID,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { NOT_UUID_SHAPED } from '@/core/http/uuid';
import { PageQueryDto } from '@/core/http/pagination';
import { IssuedCertificateDto } from '@/modules/learning/certificates';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const present = (_: object, v: unknown): boolean => v !== undefined;
const presentAndNotNull = (_: object, v: unknown): boolean => v !== undefined && v !== null;

export const PATH_KINDS = ['path', 'program'] as const;
export const PATH_STATUSES = ['draft', 'published', 'unpublished'] as const;
export const PATH_VISIBILITIES = ['public', 'restricted'] as const;
export type PathKind = (typeof PATH_KINDS)[number];
export type PathStatus = (typeof PATH_STATUSES)[number];
export type PathVisibility = (typeof PATH_VISIBILITIES)[number];

/** Lower-case words and dashes; never shaped like a UUID, so `{pathId}` (id or slug) is never ambiguous. */
export const SLUG = new RegExp(`${NOT_UUID_SHAPED.source}[a-z0-9-]{3,80}$`);
const SLUG_MESSAGE = { message: 'slug must be 3..80 of a-z, 0-9 and - (and not a UUID)' };
export const MAX_PATH_COURSES = 100;

export class PathCourseInputDto {
  @ApiProperty({ format: 'uuid', description: 'An existing course of the catalog' })
  @IsUUID()
  course_id!: string;

  @ApiPropertyOptional({ default: true, description: 'Whether completing it is required' })
  @IsOptional()
  @IsBoolean()
  required?: boolean;
}

export class CapstoneDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiProperty({ maxLength: 20000, description: 'What to deliver, in Markdown' })
  @IsString()
  @MaxLength(20000)
  instructions_md!: string;

  @ApiProperty({ minimum: 0, maximum: 100, description: 'A graded submission passes at or above this score' })
  @IsInt()
  @Min(0)
  @Max(100)
  passing_score!: number;
}

export class BadgeDto {
  @ApiProperty({ minLength: 1, maxLength: 120, example: 'Data analyst' })
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 120, example: 'chart-bar' })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(120)
  icon?: string | null;
}

export class CreatePathDto {
  @ApiProperty({ minLength: 1, maxLength: 200 })
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title!: string;

  @ApiProperty({ pattern: SLUG.source, maxLength: 80, example: 'data-analysis' })
  @Matches(SLUG, SLUG_MESSAGE)
  slug!: string;

  @ApiProperty({ enum: PATH_KINDS, description: 'A `program` can have a capstone and issue a certificate' })
  @IsIn(PATH_KINDS)
  kind!: PathKind;

  @ApiPropertyOptional({ maxLength: 20000, default: '' })
  @IsOptional()
  @IsString()
  @MaxLength(20000)
  description_md?: string;

  @ApiProperty({
    type: [PathCourseInputDto],
    minItems: 1,
    maxItems: MAX_PATH_COURSES,
    description: 'In order (positions follow the array); each course once; every course must exist (else 422)',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_PATH_COURSES)
  @ValidateNested({ each: true })
  @Type(() => PathCourseInputDto)
  courses!: PathCourseInputDto[];

  @ApiPropertyOptional({ type: CapstoneDto, nullable: true, description: 'Programs only' })
  @ValidateIf(presentAndNotNull)
  @IsObject()
  @ValidateNested()
  @Type(() => CapstoneDto)
  capstone?: CapstoneDto | null;

  @ApiPropertyOptional({ default: false, description: 'Programs only: completing it issues a program certificate' })
  @IsOptional()
  @IsBoolean()
  issues_certificate?: boolean;

  @ApiPropertyOptional({ type: BadgeDto, nullable: true, description: 'Granted when a program is completed' })
  @ValidateIf(presentAndNotNull)
  @IsObject()
  @ValidateNested()
  @Type(() => BadgeDto)
  badge?: BadgeDto | null;

  @ApiPropertyOptional({ enum: PATH_STATUSES, default: 'draft' })
  @IsOptional()
  @IsIn(PATH_STATUSES)
  status?: PathStatus;

  @ApiPropertyOptional({
    enum: PATH_VISIBILITIES,
    default: 'public',
    description: '`public`: every organization sees it once published; `restricted`: only `organization_ids`',
  })
  @IsOptional()
  @IsIn(PATH_VISIBILITIES)
  visibility?: PathVisibility;

  @ApiPropertyOptional({ type: [String], format: 'uuid', default: [], description: 'Existing organizations' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(1000)
  @IsUUID(undefined, { each: true })
  organization_ids?: string[];
}

/** Only the fields present are applied; `courses` and `organization_ids` replace the lists; null clears capstone and badge. */
export class UpdatePathDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 200 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 200)
  title?: string;

  @ApiPropertyOptional({ maxLength: 80, pattern: SLUG.source })
  @ValidateIf(present)
  @Matches(SLUG, SLUG_MESSAGE)
  slug?: string;

  @ApiPropertyOptional({ enum: PATH_KINDS })
  @ValidateIf(present)
  @IsIn(PATH_KINDS)
  kind?: PathKind;

  @ApiPropertyOptional({ maxLength: 20000 })
  @ValidateIf(present)
  @IsString()
  @MaxLength(20000)
  description_md?: string;

  @ApiPropertyOptional({ type: [PathCourseInputDto], minItems: 1, maxItems: MAX_PATH_COURSES })
  @ValidateIf(present)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_PATH_COURSES)
  @ValidateNested({ each: true })
  @Type(() => PathCourseInputDto)
  courses?: PathCourseInputDto[];

  @ApiPropertyOptional({ type: CapstoneDto, nullable: true })
  @ValidateIf(presentAndNotNull)
  @IsObject()
  @ValidateNested()
  @Type(() => CapstoneDto)
  capstone?: CapstoneDto | null;

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  issues_certificate?: boolean;

  @ApiPropertyOptional({ type: BadgeDto, nullable: true })
  @ValidateIf(presentAndNotNull)
  @IsObject()
  @ValidateNested()
  @Type(() => BadgeDto)
  badge?: BadgeDto | null;

  @ApiPropertyOptional({ enum: PATH_STATUSES })
  @ValidateIf(present)
  @IsIn(PATH_STATUSES)
  status?: PathStatus;

  @ApiPropertyOptional({ enum: PATH_VISIBILITIES })
  @ValidateIf(present)
  @IsIn(PATH_VISIBILITIES)
  visibility?: PathVisibility;

  @ApiPropertyOptional({ type: [String], format: 'uuid' })
  @ValidateIf(present)
  @IsArray()
  @ArrayMaxSize(1000)
  @IsUUID(undefined, { each: true })
  organization_ids?: string[];
}

export class PathCourseDto {
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() required!: boolean;
  @ApiProperty({ minimum: 1 }) position!: number;
}

export class PathDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() slug!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ enum: PATH_KINDS }) kind!: PathKind;
  @ApiProperty() description_md!: string;
  @ApiProperty({ type: [PathCourseDto] }) courses!: PathCourseDto[];
  @ApiProperty({ type: CapstoneDto, nullable: true }) capstone!: CapstoneDto | null;
  @ApiProperty() issues_certificate!: boolean;
  @ApiProperty({ type: BadgeDto, nullable: true }) badge!: BadgeDto | null;
  @ApiProperty({ enum: PATH_STATUSES }) status!: PathStatus;
  @ApiProperty({ enum: PATH_VISIBILITIES }) visibility!: PathVisibility;
  @ApiProperty({ type: [String], format: 'uuid' }) organization_ids!: string[];
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class EditorPathQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: PATH_KINDS })
  @IsOptional()
  @IsIn(PATH_KINDS)
  kind?: PathKind;

  @ApiPropertyOptional({ enum: PATH_STATUSES })
  @IsOptional()
  @IsIn(PATH_STATUSES)
  status?: PathStatus;
}

export class OrgPathQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: PATH_KINDS })
  @IsOptional()
  @IsIn(PATH_KINDS)
  kind?: PathKind;
}

export class LearnerCourseDto {
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() required!: boolean;
  @ApiProperty({ description: 'Completed by the caller in this organization' }) completed!: boolean;
}

export class OrgPathDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() slug!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ enum: PATH_KINDS }) kind!: PathKind;
  @ApiProperty() description_md!: string;
  @ApiProperty({ type: [LearnerCourseDto], description: 'In order' }) courses!: LearnerCourseDto[];
  @ApiProperty({ type: CapstoneDto, nullable: true }) capstone!: CapstoneDto | null;
  @ApiProperty() issues_certificate!: boolean;
  @ApiProperty({ type: BadgeDto, nullable: true }) badge!: BadgeDto | null;
  @ApiProperty({
    description:
      'For the caller: a program once its credential was claimed (completion recorded); a path once every ' +
      'required course (all of them when none is required) is completed',
  })
  completed!: boolean;
}

export class ProgramCourseDto {
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty() required!: boolean;
  @ApiProperty() completed!: boolean;
}

export class ProgramCapstoneStateDto {
  @ApiProperty({ description: 'Always true: a program with a capstone requires it' }) required!: boolean;
  @ApiProperty({ description: 'One of the caller’s submissions was graded as passed' }) passed!: boolean;
}

export class ProgramProgressDto {
  @ApiProperty({ format: 'uuid' }) path_id!: string;
  @ApiProperty() title!: string;
  @ApiProperty({ description: 'The program was marked completed for the caller (credential claimed)' })
  completed!: boolean;
  @ApiProperty({ type: [ProgramCourseDto] }) courses!: ProgramCourseDto[];
  @ApiProperty({ type: ProgramCapstoneStateDto, nullable: true }) capstone!: ProgramCapstoneStateDto | null;
  @ApiProperty({
    type: IssuedCertificateDto,
    nullable: true,
    description: "The caller's most recent certificate of this program in this organization (any status)",
  })
  certificate!: IssuedCertificateDto | null;
}

export class CapstoneSubmitDto {
  @ApiProperty({ minLength: 1, maxLength: 20000, description: 'The work, in Markdown' })
  @IsString()
  @Length(1, 20000)
  @Matches(/\S/, { message: 'content_md must not be blank' })
  content_md!: string;

  @ApiPropertyOptional({ nullable: true, type: String, format: 'uri', maxLength: 512, description: 'http(s) only' })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(512)
  @IsUrl({ protocols: ['http', 'https'], require_protocol: true }, { message: 'url must be an http(s) URL' })
  url?: string | null;
}

export class CapstoneGradeDto {
  @ApiProperty({ minimum: 0, maximum: 100 })
  @IsInt()
  @Min(0)
  @Max(100)
  score!: number;

  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 5000 })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(5000)
  feedback?: string | null;
}

export const SUBMISSION_STATUSES = ['submitted', 'passed', 'failed'] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

export class CapstoneSubmissionQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: SUBMISSION_STATUSES })
  @IsOptional()
  @IsIn(SUBMISSION_STATUSES)
  status?: SubmissionStatus;

  @ApiPropertyOptional({ format: 'uuid', description: 'Submissions of this person (within what the caller may see)' })
  @IsOptional()
  @IsUUID()
  user_id?: string;
}

export class SubmissionLearnerDto {
  @ApiProperty({ format: 'uuid' }) user_id!: string;
  @ApiProperty({ nullable: true, type: String }) name!: string | null;
}

export class CapstoneSubmissionDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) path_id!: string;
  @ApiProperty({ type: SubmissionLearnerDto }) learner!: SubmissionLearnerDto;
  @ApiProperty() content_md!: string;
  @ApiProperty({ nullable: true, type: String }) url!: string | null;
  @ApiProperty({ enum: SUBMISSION_STATUSES }) status!: SubmissionStatus;
  @ApiProperty({ nullable: true, type: Number, minimum: 0, maximum: 100 }) score!: number | null;
  @ApiProperty({ nullable: true, type: String }) feedback!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'uuid' }) graded_by!: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) graded_at!: string | null;
  @ApiProperty({ format: 'date-time' }) submitted_at!: string;
}
