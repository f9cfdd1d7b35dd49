import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  AnswerDto,
  AnswerResultDto,
  GameDto,
  GameListQueryDto,
  GameLeaderboardDto,
  GameLeaderboardQueryDto,
  StartGameDto,
} from './dto/games.dto';
import { ANSWER_ACCOUNT, START_ACCOUNT } from './games.limits';
import { GamesService } from './games.service';

const CLOCK =
  'The server’s clock decides: each question has `served_at` and `deadline_at` (speed: the end of the 60 s); an answer ' +
  'received after `deadline_at + 1000 ms` is late (wrong, `timed_out`). A request that finds the current question past ' +
  'that grace records the timeout first (survival: a life; risk: max(1, ceil(points / 10)); speed: the game ends), ' +
  'then serves the next question from that moment. A game untouched for 10 minutes is `abandoned` (no XP, not on ' +
  'the leaderboard). Times sent by the client are refused (422).';
const PLAYER_ONLY = 'The caller’s own game; another person’s is 404.';

@ApiTags('games')
@Controller('organizations/:org_id/games')
@OrgScoped()
export class GamesController {
  constructor(private readonly games: GamesService) {}

  @Get('leaderboard')
  @ApiOperation({
    summary: 'A mode’s leaderboard',
    description:
      'The best finished score of each member in the period (`week`: ISO week, `month`: calendar month, in the ' +
      'organization’s zone; `all`). `rank` = 1 + members with a strictly higher best; equal scores share the rank, ' +
      'ordered by user id. People appear by the visibility rules of colleagues (hidden: anonymous, without id). `me` is ' +
      'the caller’s rank and best score (null without a finished game in the period).',
  })
  @ApiOkResponse({ type: GameLeaderboardDto })
  @ApiErrors(422)
  leaderboard(
    @CurrentMembership() member: Membership,
    @Query() query: GameLeaderboardQueryDto,
  ): Promise<GameLeaderboardDto> {
    return this.games.leaderboard(member, query);
  }

  @Post()
  @RateLimit(START_ACCOUNT)
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Start a game',
    description:
      '`survival`: 20 s per question, +10 per right answer, 3 lives (a wrong or late answer costs one), ends at 0 ' +
      'lives, after 100 questions or when questions run out. `speed`: 60 s for the whole game, +10 right, -5 wrong ' +
      '(never below 0), ends when the 60 s are over or questions run out. `risk`: 30 s per question, starts with 100 ' +
      'points, each answer wagers 1..points, right +wager, wrong -wager, ends after 10 questions or at 0 points. ' +
      'Questions: the lesson quizzes of `course_id` (enrolled here, else 403 `not_enrolled`; unknown or not reachable: ' +
      '404) or of every course the caller is enrolled in here, drawn uniformly without replacement, options shuffled; ' +
      'fewer than 5 is 409 `not_enough_questions`. Starting abandons the caller’s game in progress here. ' +
      CLOCK,
  })
  @ApiCreatedResponse({ type: GameDto })
  @ApiErrors(404, 422, [403, 'not_enrolled'], [409, 'not_enough_questions'])
  start(@CurrentMembership() member: Membership, @Body() dto: StartGameDto): Promise<GameDto> {
    return this.games.start(member, dto);
  }

  @Get()
  @ApiOperation({ summary: 'The caller’s games', description: 'Most recent first; `mode` and `status` filter.' })
  @ApiPageResponse(GameDto)
  @ApiErrors(422)
  list(@CurrentMembership() member: Membership, @Query() query: GameListQueryDto): Promise<Page<GameDto>> {
    return this.games.list(member, query);
  }

  @Get(':game_id')
  @ApiOperation({ summary: 'A game', description: `Pending timeouts applied first. ${PLAYER_ONLY} ${CLOCK}` })
  @ApiOkResponse({ type: GameDto })
  @ApiErrors(404)
  get(@CurrentMembership() member: Membership, @Param('game_id') gameId: string): Promise<GameDto> {
    return this.games.read(member, gameId);
  }

  @Post(':game_id/answers')
  @HttpCode(200)
  @MinorAccess('with_consent')
  @RateLimit(ANSWER_ACCOUNT)
  @ApiOperation({
    summary: 'Answer the current question',
    description:
      'Right when the chosen options are exactly the correct ones. `wager` is required in risk (1..points) and ' +
      'refused otherwise (422); options of another question are 422. A finished or abandoned game is 409 ' +
      '`game_not_in_progress`; a question that is not the current one 409 `question_mismatch`. 120 per minute per ' +
      `account. ${PLAYER_ONLY} ${CLOCK}`,
  })
  @ApiOkResponse({ type: AnswerResultDto })
  @ApiErrors(404, 422, 429, [409, 'game_not_in_progress', 'question_mismatch'])
  answer(
    @CurrentMembership() member: Membership,
    @Param('game_id') gameId: string,
    @Body() dto: AnswerDto,
  ): Promise<AnswerResultDto> {
    return this.games.answer(member, gameId, dto);
  }

  @Post(':game_id/abandon')
  @HttpCode(200)
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Abandon a game',
    description: `No XP, not on the leaderboard. A game already over is 409 \`game_not_in_progress\`. ${PLAYER_ONLY}`,
  })
  @ApiOkResponse({ type: GameDto })
  @ApiErrors(404, [409, 'game_not_in_progress'])
  abandon(@CurrentMembership() member: Membership, @Param('game_id') gameId: string): Promise<GameDto> {
    return this.games.abandon(member, gameId);
  }
}
