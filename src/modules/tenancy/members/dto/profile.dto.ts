import { ApiProperty } from '@nestjs/swagger';

/** What colleagues of the same organization see of a person who turned `public_profile` on. */
export class ColleagueProfileDto {
  @ApiProperty({ example: 'ana-3f2a' }) username!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ type: String, nullable: true }) headline!: string | null;
  @ApiProperty({ type: String, nullable: true }) bio!: string | null;
  @ApiProperty({ type: String, nullable: true }) location!: string | null;
  @ApiProperty({ type: String, nullable: true }) avatar_url!: string | null;
  @ApiProperty({ description: 'The generated avatar' }) avatar_svg_url!: string;
  @ApiProperty({
    type: () => ProfileGamificationDto,
    nullable: true,
    description: 'null when the deployment has no engagement area',
  })
  gamification!: ProfileGamificationDto | null;
}

export class ProfileTitleDto {
  @ApiProperty() code!: string;
  @ApiProperty() name!: string;
}

export class ProfileBadgeDto {
  @ApiProperty() code!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ type: String, nullable: true }) icon!: string | null;
  @ApiProperty({ format: 'date-time' }) earned_at!: string;
}

/** The colleague's engagement in the organization of the path (extensions-v2 3.1). */
export class ProfileGamificationDto {
  @ApiProperty() xp!: number;
  @ApiProperty() level!: number;
  @ApiProperty({ type: ProfileTitleDto, nullable: true }) title!: ProfileTitleDto | null;
  @ApiProperty() streak_current!: number;
  @ApiProperty({ type: [ProfileBadgeDto], description: 'The 6 most recent' }) badges!: ProfileBadgeDto[];
}
