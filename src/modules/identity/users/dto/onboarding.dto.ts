import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Length,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';

/** The dashboard's first steps, in display order. */
export const FIRST_STEPS = [
  'complete_profile',
  'customize_avatar',
  'join_organization',
  'enroll_course',
  'enable_two_factor',
] as const;
export type FirstStep = (typeof FIRST_STEPS)[number];
export type StepState = 'done' | 'pending';

export class CompleteOnboardingDto {
  @ApiProperty({ minLength: 1, maxLength: 255 })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  @IsString()
  @Length(1, 255)
  name!: string;

  @ApiProperty({ enum: ['es', 'en'] })
  @IsIn(['es', 'en'])
  locale!: 'es' | 'en';

  @ApiProperty({ description: 'Must be true: the person declares being an adult (recorded as a consent)' })
  @IsOptional()
  @IsBoolean()
  adult_confirmed?: boolean;
}

function IsStepMap(): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isStepMap',
      target: target.constructor,
      propertyName: propertyName as string,
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.entries(value).every(
            ([k, v]) => (FIRST_STEPS as readonly string[]).includes(k) && (v === 'done' || v === 'pending'),
          ),
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} maps known steps (${FIRST_STEPS.join(', ')}) to "done" or "pending"`,
      },
    });
}

/** The first steps, each `done` or `pending`: a closed set of keys. */
const STEP_PROPERTIES = Object.fromEntries(
  FIRST_STEPS.map((step) => [step, { type: 'string', enum: ['done', 'pending'] }]),
) as Record<FirstStep, { type: 'string'; enum: StepState[] }>;

export class UpdateFirstStepsDto {
  @ApiProperty({
    type: 'object',
    properties: STEP_PROPERTIES,
    additionalProperties: false,
    minProperties: 1,
    example: { complete_profile: 'done' },
    description: `Steps to mark; keys among ${FIRST_STEPS.join(', ')}`,
  })
  @IsObject()
  @IsStepMap()
  steps!: Partial<Record<FirstStep, StepState>>;

  @ApiPropertyOptional({ description: 'Hide (true) or show (false) the list on the dashboard' })
  @IsOptional()
  @IsBoolean()
  hidden?: boolean;
}

export class OnboardingStatusDto {
  @ApiProperty() completed!: boolean;
  @ApiProperty({
    type: 'object',
    properties: STEP_PROPERTIES,
    required: [...FIRST_STEPS],
    additionalProperties: false,
    example: {
      complete_profile: 'done',
      customize_avatar: 'pending',
      join_organization: 'done',
      enroll_course: 'pending',
      enable_two_factor: 'pending',
    },
  })
  first_steps!: Record<FirstStep, StepState>;
  @ApiProperty() first_steps_hidden!: boolean;
}

export class IntegrationDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'oauth_client' }) kind!: string;
  @ApiProperty({ example: 'Remote tool connector' }) name!: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time', description: 'First publication time, or null' })
  shared_since!: string | null;
  @ApiProperty() publishing_enabled!: boolean;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}

export class IntegrationListDto {
  @ApiProperty({ type: [IntegrationDto] }) items!: IntegrationDto[];
}
