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
}
