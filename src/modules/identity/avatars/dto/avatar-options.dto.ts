import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsString, Matches, MaxLength, ValidateIf } from 'class-validator';

const SEED = /^[A-Za-z0-9_-]{8,64}$/;
const VARIANT = /^[a-z][A-Za-z0-9]*$/;
const COLOR = /^#?[0-9A-Fa-f]{6}$/;
const BACKGROUND = /^[a-z]+-[0-9]{2,3}$/;

export const VARIANT_MAX = 32;
export const BACKGROUND_MAX = 24;

const presentAndNotNull = (_: object, v: unknown): boolean => v !== undefined && v !== null;
// A query string cannot carry null; an empty value (`?head=`) is how a form says "no choice".
const emptyIsNull = Transform(({ value }: { value: unknown }) => (value === '' ? null : value));

function Seed(): PropertyDecorator {
  return applyDecorators(
    ApiProperty({
      pattern: SEED.source,
      minLength: 8,
      maxLength: 64,
      example: 'k3v9-ana_2026',
      description: 'Decides every option not chosen; the same seed and options always give the same avatar',
    }),
    IsString(),
    Matches(SEED, { message: '$property must be 8 to 64 letters, digits, "_" or "-"' }),
  );
}

function Optional(query: boolean, decorators: PropertyDecorator[], doc: Parameters<typeof ApiPropertyOptional>[0]) {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, ...doc }),
    ...(query ? [emptyIsNull] : []),
    ValidateIf(presentAndNotNull),
    IsString(),
    ...decorators,
  );
}

function Variant(query: boolean, trait: string): PropertyDecorator {
  return Optional(
    query,
    [
      MaxLength(VARIANT_MAX),
      Matches(VARIANT, { message: '$property must be a lowercase letter followed by letters and digits' }),
    ],
    {
      maxLength: VARIANT_MAX,
      pattern: VARIANT.source,
      description: `A ${trait} variant from the catalog (\`traits\`); absent or null lets the seed decide`,
    },
  );
}

function Color(query: boolean, palette: string, example: string): PropertyDecorator {
  return Optional(query, [Matches(COLOR, { message: '$property must be a color like #a1b2c3' })], {
    pattern: COLOR.source,
    example,
    description: `A color of the catalog's \`colors.${palette}\` (case and "#" optional); absent or null lets the seed decide`,
  });
}

function Background(query: boolean): PropertyDecorator {
  return Optional(
    query,
    [MaxLength(BACKGROUND_MAX), Matches(BACKGROUND, { message: '$property must be a background name like sky-100' })],
    {
      maxLength: BACKGROUND_MAX,
      pattern: BACKGROUND.source,
      example: 'sky-100',
      description: 'A background name from the catalog (`backgrounds`); absent or null lets the seed pick one',
    },
  );
}

/** Query of the preview. An empty value counts as absent. */
export class AvatarPreviewQueryDto {
  @Seed() seed!: string;
  @Variant(true, 'head') head?: string | null;
  @Variant(true, 'expression') expression?: string | null;
  @Variant(true, 'facial hair') facial_hair?: string | null;
  @Variant(true, 'accessories') accessories?: string | null;
  @Variant(true, 'mask') mask?: string | null;
  @Color(true, 'skin', '#ae5d29') skin_color?: string | null;
  @Color(true, 'hair', '#2c1b18') hair_color?: string | null;
  @Color(true, 'clothing', '#8fa7df') clothing_color?: string | null;
  @Background(true) background?: string | null;
}

/** The avatar choice to save: the preview's options, as JSON. */
export class SaveAvatarDto {
  @Seed() seed!: string;
  @Variant(false, 'head') head?: string | null;
  @Variant(false, 'expression') expression?: string | null;
  @Variant(false, 'facial hair') facial_hair?: string | null;
  @Variant(false, 'accessories') accessories?: string | null;
  @Variant(false, 'mask') mask?: string | null;
  @Color(false, 'skin', '#ae5d29') skin_color?: string | null;
  @Color(false, 'hair', '#2c1b18') hair_color?: string | null;
  @Color(false, 'clothing', '#8fa7df') clothing_color?: string | null;
  @Background(false) background?: string | null;
}

/** Query of a person's avatar. */
export class UserAvatarQueryDto {
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    maxLength: 32,
    description: 'Cache busting only (the `v` of `avatar_svg_url`); its value is not checked',
  })
  @ValidateIf(presentAndNotNull)
  @IsString()
  @MaxLength(32)
  v?: string | null;
}
