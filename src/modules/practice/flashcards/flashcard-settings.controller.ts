import { Body, Controller, Get, Put } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentCredential, MinorAccess } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
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
      'Scheduler (`sm2` default, or `fsrs`), desired retention under FSRS (0.90) and new cards per day (20).',
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
      'state of the caller (all organizations) in this request by replaying each card’s review log (same grades, same ' +
      'times) through the chosen scheduler from a new card; the history is kept. `rescheduled_cards` counts them. ' +
      'FSRS is ts-fsrs (FSRS-6, default parameters, whole days, no fuzz).',
  })
  @ApiOkResponse({ type: SettingsUpdatedDto })
  @ApiErrors(422)
  update(@CurrentCredential() credential: Credential, @Body() dto: UpdateSettingsDto): Promise<SettingsUpdatedDto> {
    return this.flashcards.updateSettings(credential.userId, dto);
  }
}
