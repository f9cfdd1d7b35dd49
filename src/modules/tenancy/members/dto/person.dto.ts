import { ApiProperty } from '@nestjs/swagger';

/**
 * How one person appears to another (extensions-v2 2.2): leaderboards, feeds, comments, ratings, duels,
 * challenges. A hidden person is `{user_id: null, username: null, name: null, avatar_svg_url: null,
 * anonymous: true}`: never an id, which would resolve through `/users/{id}/avatar.svg`.
 */
export class PersonDto {
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) user_id!: string | null;
  @ApiProperty({ type: String, nullable: true }) username!: string | null;
  @ApiProperty({ type: String, nullable: true, maxLength: 255 }) name!: string | null;
  @ApiProperty({ type: String, format: 'uri', nullable: true, maxLength: 2048 }) avatar_svg_url!: string | null;
  @ApiProperty({ description: 'true when the person is hidden from the caller (every other field null)' })
  anonymous!: boolean;
}
