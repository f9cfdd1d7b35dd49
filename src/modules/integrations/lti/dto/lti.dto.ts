import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Length,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { LTI_SCOPES } from '../lti-constants';

const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
const present = (_: object, v: unknown): boolean => v !== undefined;
const JWK_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  properties: {
    kty: { type: 'string', enum: ['RSA'] },
    n: { type: 'string', maxLength: 1024 },
    e: { type: 'string', maxLength: 16 },
    kid: { type: 'string', maxLength: 256 },
    alg: { type: 'string', enum: ['RS256'] },
    use: { type: 'string', enum: ['sig'] },
  },
  required: ['kty', 'n', 'e'],
  additionalProperties: false,
};
const CUSTOM_SCHEMA: ApiPropertyOptions = {
  type: 'object',
  additionalProperties: { type: 'string', maxLength: 256 },
  maxProperties: 20,
};
const URL_DOC = 'https (plain http only to a loopback address outside production), public address, max 2 048';

export class CreateLtiToolDto {
  @ApiProperty({ minLength: 1, maxLength: 120 })
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name!: string;

  @ApiPropertyOptional({ maxLength: 500, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string | null;

  @ApiProperty({ description: `The tool's OIDC login initiation URL; ${URL_DOC}` })
  @IsString()
  @MaxLength(2048)
  initiate_login_url!: string;

  @ApiProperty({ type: [String], minItems: 1, maxItems: 10, description: `Where id_tokens may be posted; ${URL_DOC}` })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  redirect_uris!: string[];

  @ApiProperty({ description: `The default launch URL; ${URL_DOC}` })
  @IsString()
  @MaxLength(2048)
  target_link_uri!: string;

  @ApiPropertyOptional({ nullable: true, description: `Deep Linking launch URL; ${URL_DOC}` })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  deep_linking_url?: string | null;

  @ApiPropertyOptional({ nullable: true, description: `The tool's JWKS; exactly one of jwks_url and public_jwk` })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  jwks_url?: string | null;

  @ApiPropertyOptional({ ...JWK_SCHEMA, nullable: true, description: 'An RSA public JWK' })
  @IsOptional()
  @IsObject()
  public_jwk?: Record<string, unknown> | null;

  @ApiPropertyOptional({
    type: [String],
    enum: LTI_SCOPES,
    maxItems: 5,
    description: 'AGS and NRPS scopes the tool may ask for',
  })
  @IsOptional()
  @IsArray()
  @IsIn(LTI_SCOPES, { each: true })
  scopes?: string[];

  @ApiPropertyOptional({
    ...CUSTOM_SCHEMA,
    description:
      'At most 20 keys `^[a-z0-9_]{1,64}$`; values may use `$User.id`, `$Context.id`, `$ResourceLink.id`, ' +
      '`$Person.name.full`, `$Person.email.primary`',
  })
  @IsOptional()
  @IsObject()
  custom?: Record<string, string>;
}

export class UpdateLtiToolDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 120 })
  @ValidateIf(present)
  @Transform(trim)
  @IsString()
  @Length(1, 120)
  name?: string;

  @ApiPropertyOptional({ maxLength: 500, nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(500)
  description?: string | null;

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsString()
  @MaxLength(2048)
  initiate_login_url?: string;

  @ApiPropertyOptional({ type: [String], minItems: 1, maxItems: 10 })
  @ValidateIf(present)
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(10)
  @IsString({ each: true })
  @MaxLength(2048, { each: true })
  redirect_uris?: string[];

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsString()
  @MaxLength(2048)
  target_link_uri?: string;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  deep_linking_url?: string | null;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  jwks_url?: string | null;

  @ApiPropertyOptional({ ...JWK_SCHEMA, nullable: true })
  @IsOptional()
  @IsObject()
  public_jwk?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: [String], enum: LTI_SCOPES, maxItems: 5 })
  @ValidateIf(present)
  @IsArray()
  @IsIn(LTI_SCOPES, { each: true })
  scopes?: string[];

  @ApiPropertyOptional(CUSTOM_SCHEMA)
  @ValidateIf(present)
  @IsObject()
  custom?: Record<string, string>;

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  enabled?: boolean;
}

export class LtiPlatformDto {
  @ApiProperty() issuer!: string;
  @ApiProperty() client_id!: string;
  @ApiProperty() authorization_endpoint!: string;
  @ApiProperty() token_endpoint!: string;
  @ApiProperty() jwks_uri!: string;
  @ApiProperty({ description: 'one per organization, in the launch' }) deployment_ids!: string;
}

export class LtiActorDto {
  @ApiProperty({ format: 'uuid', nullable: true }) user_id!: string | null;
}

export class LtiToolDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ nullable: true }) description!: string | null;
  @ApiProperty({ format: 'uuid' }) client_id!: string;
  @ApiProperty() initiate_login_url!: string;
  @ApiProperty({ type: [String] }) redirect_uris!: string[];
  @ApiProperty() target_link_uri!: string;
  @ApiProperty({ nullable: true }) deep_linking_url!: string | null;
  @ApiProperty({ nullable: true }) jwks_url!: string | null;
  @ApiProperty({ ...JWK_SCHEMA, nullable: true }) public_jwk!: Record<string, unknown> | null;
  @ApiProperty({ type: [String] }) scopes!: string[];
  @ApiProperty(CUSTOM_SCHEMA) custom!: Record<string, string>;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ enum: ['manual', 'dynamic'] }) registered_by!: 'manual' | 'dynamic';
  @ApiProperty({ type: LtiActorDto }) created_by!: LtiActorDto;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
  @ApiProperty({ type: LtiPlatformDto }) platform!: LtiPlatformDto;
}

/** What an editor (not a platform admin) sees of a tool: enough to pick one for a lesson. */
export class LtiToolBriefDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() enabled!: boolean;
}

export class LtiToolListDto {
  @ApiProperty({ description: 'Full tools for platform admins; `{id, name, enabled}` for editors' })
  items!: (LtiToolDto | LtiToolBriefDto)[];
}

export class LtiKidDto {
  @ApiProperty() kid!: string;
}

export class LtiJwksDto {
  @ApiProperty({ type: 'array', items: JWK_SCHEMA as object })
  keys!: Record<string, unknown>[];
}

export class LtiPrivacyInputDto {
  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  send_name?: boolean;

  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  send_email?: boolean;
}

export class UpdateLtiDeploymentDto {
  @ApiPropertyOptional()
  @ValidateIf(present)
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ type: LtiPrivacyInputDto })
  @ValidateIf(present)
  @ValidateNested()
  @Type(() => LtiPrivacyInputDto)
  privacy?: LtiPrivacyInputDto;
}

export class LtiPrivacyDto {
  @ApiProperty() send_name!: boolean;
  @ApiProperty() send_email!: boolean;
}

export class LtiDeploymentCourseDto {
  @ApiProperty({ format: 'uuid' }) course_id!: string;
  @ApiProperty() title!: string;
}

export class LtiDeploymentDto {
  @ApiProperty({ format: 'uuid' }) tool_id!: string;
  @ApiProperty() tool_name!: string;
  @ApiProperty({ format: 'uuid' }) deployment_id!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty({ type: LtiPrivacyDto }) privacy!: LtiPrivacyDto;
  @ApiProperty({ type: [LtiDeploymentCourseDto] }) courses!: LtiDeploymentCourseDto[];
  @ApiProperty({ format: 'date-time' }) updated_at!: string;
}

export class LtiDeploymentListDto {
  @ApiProperty({ type: [LtiDeploymentDto] }) items!: LtiDeploymentDto[];
}

export class LtiLineItemInputDto {
  @ApiProperty({ minimum: 1, maximum: 1000 })
  @IsNumber()
  @Min(1)
  @Max(1000)
  score_maximum!: number;

  @ApiPropertyOptional({ maxLength: 120 })
  @ValidateIf(present)
  @IsString()
  @Length(1, 120)
  label?: string;
}

/** A lesson's tool (editor's lesson create and update; `null` removes it). */
export class LessonLtiInputDto {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  tool_id!: string;

  @ApiPropertyOptional({ description: "Overrides the tool's target_link_uri" })
  @ValidateIf(present)
  @IsString()
  @MaxLength(2048)
  url?: string;

  @ApiPropertyOptional(CUSTOM_SCHEMA)
  @ValidateIf(present)
  @IsObject()
  custom?: Record<string, string>;

  @ApiPropertyOptional({ type: LtiLineItemInputDto })
  @ValidateIf(present)
  @ValidateNested()
  @Type(() => LtiLineItemInputDto)
  line_item?: LtiLineItemInputDto;
}

export class LessonLtiDto {
  @ApiProperty({ format: 'uuid' }) tool_id!: string;
  @ApiProperty({ nullable: true }) url!: string | null;
  @ApiProperty(CUSTOM_SCHEMA) custom!: Record<string, string>;
  @ApiProperty({ type: LtiLineItemInputDto, nullable: true }) line_item!: {
    score_maximum: number;
    label?: string;
  } | null;
}

/** The lesson's tool as a learner reads it. */
export class LearnerLessonLtiDto {
  @ApiProperty() tool_name!: string;
  @ApiProperty() launch_url!: string;
  @ApiProperty({ description: 'False when the tool or the organization’s deployment is disabled' }) available!: boolean;
}

export class DeepLinkingQueryDto {
  @ApiProperty({ format: 'uuid', description: 'The tool whose content picker opens' })
  @IsUUID()
  tool_id!: string;
}

export class StartLtiRegistrationDto {
  @ApiProperty({ description: "The tool's dynamic-registration URL", maxLength: 2048 })
  @IsString()
  @MaxLength(2048)
  initiation_url!: string;
}

export class LtiRegistrationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() launch_url!: string;
  @ApiProperty({ format: 'date-time' }) expires_at!: string;
}
