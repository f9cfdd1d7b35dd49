import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { DuelsService } from './duels.service';
import { CHALLENGE_ACCOUNT } from './duels.limits';
import { CreateDuelDto, DuelDto, DuelListQueryDto, DuelStatsDto } from './dto/duel.dto';

const PLAY =
  'Play happens over Socket.IO: namespace `/duels`, path `/api/v1/socket.io`, `auth: {organization_id, token?}` ' +
  '(events `queue:join`, `queue:leave`, `duel:ready`, `duel:answer`, `duel:forfeit`, `duel:state`; see extensions-v2 8.3).';

@ApiTags('duels')
@Controller('organizations/:org_id/duels')
@OrgScoped()
export class DuelsController {
  constructor(private readonly duels: DuelsService) {}

  @Post()
  @MinorAccess('with_consent')
  @RateLimit(CHALLENGE_ACCOUNT)
  @ApiOperation({
    summary: 'Challenge a colleague',
    description:
      'Challenges a member of this organization by username (404 when they are not a member or the caller may not ' +
      'see them, 2.2). With `course_id` both must be enrolled (403 `not_enrolled` for the caller, 409 ' +
      '`opponent_not_enrolled`). 409 `opponent_unavailable` (the caller, or a minor without consent), ' +
      '`duel_pending_exists` (a pending challenge between the two), `duel_limit_reached` (20 pending sent), ' +
      '`not_enough_questions`. The duel is `pending` for 24 h; the opponent gets `duel:challenge`. ' +
      PLAY,
  })
  @ApiCreatedResponse({ type: DuelDto })
  @ApiErrors(
    404,
    422,
    429,
    [403, 'not_enrolled'],
    [
      409,
      'duel_pending_exists',
      'opponent_unavailable',
      'opponent_not_enrolled',
      'not_enough_questions',
      'duel_limit_reached',
    ],
  )
  create(@CurrentMembership() member: Membership, @Body() dto: CreateDuelDto): Promise<DuelDto> {
    return this.duels.challenge(member, dto);
  }

  @Get()
  @ApiOperation({ summary: 'My duels', description: 'The caller’s duels here, most recent first.' })
  @ApiPageResponse(DuelDto)
  @ApiErrors(404, 422)
  list(@CurrentMembership() member: Membership, @Query() q: DuelListQueryDto): Promise<Page<DuelDto>> {
    return this.duels.list(member, q);
  }

  @Get('stats')
  @ApiOperation({ summary: 'My duel statistics', description: 'Finished duels of the caller here.' })
  @ApiOkResponse({ type: DuelStatsDto })
  @ApiErrors(404)
  stats(@CurrentMembership() member: Membership): Promise<DuelStatsDto> {
    return this.duels.stats(member);
  }

  @Get(':duel_id')
  @ApiOperation({ summary: 'One duel', description: 'A player’s duel; anyone else gets 404.' })
  @ApiOkResponse({ type: DuelDto })
  @ApiErrors(404)
  get(@CurrentMembership() member: Membership, @Param('duel_id') duelId: string): Promise<DuelDto> {
    return this.duels.get(member, duelId);
  }

  @Post(':duel_id/accept')
  @HttpCode(200)
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Accept a challenge',
    description: 'The opponent accepts: the duel becomes `ready` for 5 minutes. ' + PLAY,
  })
  @ApiOkResponse({ type: DuelDto })
  @ApiErrors(403, 404, 422, [409, 'duel_not_pending', 'duel_in_progress'])
  accept(@CurrentMembership() member: Membership, @Param('duel_id') duelId: string): Promise<DuelDto> {
    return this.duels.accept(member, duelId);
  }

  @Post(':duel_id/decline')
  @HttpCode(200)
  @MinorAccess('with_consent')
  @ApiOperation({ summary: 'Decline a challenge', description: 'The opponent declines.' })
  @ApiOkResponse({ type: DuelDto })
  @ApiErrors(403, 404, 422, [409, 'duel_not_pending'])
  decline(@CurrentMembership() member: Membership, @Param('duel_id') duelId: string): Promise<DuelDto> {
    return this.duels.decline(member, duelId);
  }

  @Post(':duel_id/cancel')
  @HttpCode(200)
  @MinorAccess('with_consent')
  @ApiOperation({ summary: 'Cancel a challenge', description: 'The challenger withdraws a pending challenge.' })
  @ApiOkResponse({ type: DuelDto })
  @ApiErrors(403, 404, 422, [409, 'duel_not_pending'])
  cancel(@CurrentMembership() member: Membership, @Param('duel_id') duelId: string): Promise<DuelDto> {
    return this.duels.cancel(member, duelId);
  }
}
