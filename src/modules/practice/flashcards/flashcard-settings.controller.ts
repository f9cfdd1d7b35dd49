import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiExtension, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { describePolicy } from '@/core/rate-limit/rate-limit';
import { RESCHEDULE_ACCOUNT } from './flashcards.limits';
import { SettingsDto, SettingsUpdatedDto, UpdateSettingsDto } from './dto/flashcards.dto';
import { FlashcardsService } from './flashcards.service';

@ApiTags('flashcards')
@Controller('me/flashcards/settings')
export class FlashcardSettingsController {
  constructor(private readonly flashcards: FlashcardsService) {}

  @Get()
  @ApiOperation({
    summary: 'The caller’s study settings',
    description:
      'Scheduler (`sm2` default, or `fsrs`), desired retention under FSRS (0.90) and new cards per day (20); ' +
      '`rescheduling` while a change of scheduler is still being applied to the card states.',
  })
  @ApiOkResponse({ type: SettingsDto })
  get(@CurrentCredential() credential: Credential): Promise<SettingsDto> {
    return this.flashcards.settings(credential.userId);
  }

  @Put()
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Change the study settings',
    description:
      'A key left out keeps its value. Changing `scheduler`, or `desired_retention` under FSRS, recomputes every card ' +
      'state of the caller (all organizations) by replaying each card’s review log (same grades, same times) through ' +
      'the chosen scheduler from a new card; the history is kept. It runs in a background job, in batches: ' +
      '`rescheduling` is true until it is done (a review meanwhile replays its own card first), and ' +
      '`rescheduled_cards` counts the states it recomputes. Such a change is limited to 3 per day per person (429 ' +
      '`too_many_requests` with `Retry-After`); other changes are not. FSRS is ts-fsrs (FSRS-6, default parameters, ' +
      'whole days, no fuzz).',
  })
  @ApiOkResponse({ type: SettingsUpdatedDto })
  @ApiExtension('x-rate-limits', [`${describePolicy(RESCHEDULE_ACCOUNT)} (a change of scheduler only)`])
  @ApiErrors(422, 429)
  update(@CurrentCredential() credential: Credential, @Body() dto: UpdateSettingsDto): Promise<SettingsUpdatedDto> {
    return this.flashcards.updateSettings(credential.userId, dto);
  }
}
