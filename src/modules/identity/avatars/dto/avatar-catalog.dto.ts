import { ApiProperty } from '@nestjs/swagger';

export class AvatarLicenseDto {
  @ApiProperty({ example: 'CC0 1.0' }) name!: string;
  @ApiProperty({ example: 'https://creativecommons.org/publicdomain/zero/1.0/' }) url!: string;
  @ApiProperty({ description: 'Attribution text of the artwork' }) text!: string;
}

export class AvatarTraitsDto {
  @ApiProperty({ type: [String], example: ['afro', 'bangs'] }) head!: string[];
  @ApiProperty({ type: [String], example: ['calm', 'smile'] }) expression!: string[];
  @ApiProperty({ type: [String], example: ['chin', 'full'] }) facial_hair!: string[];
  @ApiProperty({ type: [String], example: ['glasses', 'eyepatch'] }) accessories!: string[];
  @ApiProperty({ type: [String], example: ['medicalMask'] }) mask!: string[];
}

export class AvatarColorsDto {
  @ApiProperty({ type: [String], example: ['#ffdbb4'], description: 'Lowercase `#rrggbb`' }) skin!: string[];
  @ApiProperty({ type: [String], example: ['#2c1b18'], description: 'Lowercase `#rrggbb`' }) hair!: string[];
  @ApiProperty({ type: [String], example: ['#8fa7df'], description: 'Lowercase `#rrggbb`' }) clothing!: string[];
}

export class AvatarBackgroundDto {
  @ApiProperty({ example: 'sky-100', pattern: '^[a-z]+-[0-9]{2,3}$' }) name!: string;
  @ApiProperty({ example: '#e0f2fe' }) color!: string;
}

/** Everything a person can choose for the generated avatar. */
export class AvatarCatalogDto {
  @ApiProperty({ example: 'open-peeps' }) style!: string;
  @ApiProperty({
    example: '@dicebear/styles@10.6.0+@dicebear/core@10.7.0',
    description: 'Versions of the artwork and of the renderer; the same choice may look different across them',
  })
  version!: string;
  @ApiProperty({ type: AvatarLicenseDto }) license!: AvatarLicenseDto;
  @ApiProperty({ type: AvatarTraitsDto, description: 'Variant names per trait' }) traits!: AvatarTraitsDto;
  @ApiProperty({ type: AvatarColorsDto }) colors!: AvatarColorsDto;
  @ApiProperty({ type: [AvatarBackgroundDto] }) backgrounds!: AvatarBackgroundDto[];
}

/** A saved choice: every field present, null where the seed decides. */
export class AvatarChoiceDto {
  @ApiProperty({ example: 'k3v9-ana_2026' }) seed!: string;
  @ApiProperty({ type: String, nullable: true, example: 'afro' }) head!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'smile' }) expression!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) facial_hair!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'glasses' }) accessories!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null }) mask!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '#ae5d29', description: 'Lowercase `#rrggbb`' })
  skin_color!: string | null;
  @ApiProperty({ type: String, nullable: true, example: '#2c1b18', description: 'Lowercase `#rrggbb`' })
  hair_color!: string | null;
  @ApiProperty({ type: String, nullable: true, example: null, description: 'Lowercase `#rrggbb`' })
  clothing_color!: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'sky-100' }) background!: string | null;
}

export class SavedAvatarDto {
  @ApiProperty({ type: AvatarChoiceDto }) avatar!: AvatarChoiceDto;
  @ApiProperty({
    example: 'https://api.example.org/api/v1/users/6f1c…/avatar.svg?v=3a9f0c12ab34',
    description: 'The generated avatar; its `v` changes with the choice (equals `avatar_svg_url` of the account)',
  })
  avatar_svg_url!: string;
}
