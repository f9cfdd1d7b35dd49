import { ApiProperty } from '@nestjs/swagger';

/** The account as the person sees it: returned by sign-in, refresh, `me` and profile update. */
export class UserDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'ana@example.org' }) email!: string;
  @ApiProperty({ example: 'ana-3f2a', description: 'Handle of the public profile' }) username!: string;
  @ApiProperty({ nullable: true, type: String, maxLength: 255 }) name!: string | null;
  @ApiProperty({ nullable: true, type: String, maxLength: 160 }) headline!: string | null;
  @ApiProperty({ nullable: true, type: String, maxLength: 500 }) bio!: string | null;
  @ApiProperty({ nullable: true, type: String, maxLength: 120 }) location!: string | null;
  @ApiProperty({ nullable: true, type: String, maxLength: 512 }) avatar_url!: string | null;
  @ApiProperty({ enum: ['es', 'en'], description: 'Language of transactional email' }) locale!: 'es' | 'en';
  @ApiProperty({ description: 'Profile visible to colleagues of the organization' }) public_profile!: boolean;
  @ApiProperty({
    example: 'Europe/Madrid',
    maxLength: 64,
    description: 'IANA time zone (default `UTC`): local days of streaks, missions, goals, quiet hours and reminders',
  })
  time_zone!: string;
  @ApiProperty({ type: [String], enum: ['platform_admin', 'editor'], isArray: true }) platform_roles!: string[];
  @ApiProperty() two_factor_enabled!: boolean;
  @ApiProperty() onboarding_completed!: boolean;
  @ApiProperty({ nullable: true, type: String, format: 'uuid', description: 'The active organization' })
  last_organization_id!: string | null;
  @ApiProperty({ description: 'The generated avatar (changes when the avatar choice changes)' })
  avatar_svg_url!: string;
  @ApiProperty({ format: 'date-time' }) created_at!: string;
}
