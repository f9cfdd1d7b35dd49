import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors } from '@/core/http/openapi';
import { ColleagueProfileDto } from './dto/profile.dto';
import { MembersService } from './members.service';

@ApiTags('users')
@ApiParam({ name: 'org_id', format: 'uuid', description: 'The organization' })
@ApiParam({
  name: 'username',
  description: 'The handle of the profile',
  schema: { type: 'string', pattern: '^[a-z0-9]{3,20}(-[a-z0-9]{4})?$', maxLength: 25 },
})
@Controller('organizations/:org_id/profiles')
export class ProfilesController {
  constructor(private readonly members: MembersService) {}

  @Get(':username')
  @OrgScoped()
  @ApiOperation({
    summary: "A colleague's public profile",
    description:
      "Only for a member of this organization who turned `public_profile` on (one's own profile is always " +
      'visible); anyone else, or an unknown username, is 404 `not_found`. Carries no email.',
  })
  @ApiOkResponse({ type: ColleagueProfileDto })
  @ApiErrors([404, 'not_found'])
  profile(
    @CurrentMembership() membership: Membership,
    @Param('username') username: string,
  ): Promise<ColleagueProfileDto> {
    return this.members.profile(membership, username);
  }
}
