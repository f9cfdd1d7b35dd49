import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { MinorAccess } from '@/core/auth/access.decorators';
import { CurrentMembership, type Membership, OrgScoped } from '@/core/auth/tenancy';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  CardDto,
  CreateCardDto,
  CreateDeckDto,
  DeckDto,
  DeckListQueryDto,
  DueDto,
  DueQueryDto,
  FlashcardReviewDto,
  FlashcardReviewInputDto,
  UpdateCardDto,
  UpdateDeckDto,
} from './dto/flashcards.dto';
import { FlashcardsService } from './flashcards.service';
import { REVIEW_ACCOUNT } from './flashcards.limits';

const DECK_ACCESS =
  'A personal deck is its owner’s only (anyone else: 404, also from another organization); a course deck is studied ' +
  'by members enrolled in its course here (a course of the organization’s catalog without enrollment: 403 ' +
  '`not_enrolled`).';
const OWNER_ONLY =
  'Only the owner of a personal deck; a course deck is written by the course’s editors (403 `forbidden`).';
const MARKDOWN =
  'Faces are Markdown (1..2 000 characters), rendered with markdown-it without raw HTML and sanitized into ' +
  '`front_html` and `back_html`.';

@ApiTags('flashcards')
@Controller('organizations/:org_id/flashcards')
@OrgScoped()
export class FlashcardsController {
  constructor(private readonly flashcards: FlashcardsService) {}

  @Get('due')
  @ApiOperation({
    summary: 'The caller’s study queue',
    description:
      'Due cards first (`due_at <= now`, by `due_at` then card id), then new cards in deck order (course decks by ' +
      'course title, personal decks by creation, then card position), up to the new cards left today: ' +
      '`new_cards_per_day` minus the cards first reviewed today (the caller’s zone) in this organization. Over the ' +
      `decks the caller may study here, or \`deck_id\` only. ${DECK_ACCESS}`,
  })
  @ApiOkResponse({ type: DueDto })
  @ApiErrors(404, 422, [403, 'not_enrolled'])
  due(@CurrentMembership() member: Membership, @Query() query: DueQueryDto): Promise<DueDto> {
    return this.flashcards.due(member, query);
  }

  @Post('cards/:card_id/reviews')
  @MinorAccess('with_consent')
  @RateLimit(REVIEW_ACCOUNT)
  @ApiOperation({
    summary: 'Review a card',
    description:
      'Grades 0..5. Locks the caller’s state of the card, computes the next one with the caller’s scheduler (SM-2 or ' +
      'FSRS, see the settings), writes it and a review log row (grade, scheduler, time, duration, state before and ' +
      'after) and publishes `flashcard.reviewed`, in one transaction. `due_on` is the local date of the review plus ' +
      'the interval (the caller’s zone); `due_at` the start of that date. A repeated `client_review_id` answers 200 ' +
      `with the first review and changes nothing. ${DECK_ACCESS}`,
  })
  @ApiCreatedResponse({ type: FlashcardReviewDto, description: 'Reviewed' })
  @ApiOkResponse({ type: FlashcardReviewDto, description: 'The review of this `client_review_id`, already recorded' })
  @ApiErrors(404, 422, [403, 'not_enrolled'])
  async review(
    @CurrentMembership() member: Membership,
    @Param('card_id') cardId: string,
    @Body() dto: FlashcardReviewInputDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<FlashcardReviewDto> {
    const { review, created } = await this.flashcards.review(member, cardId, dto);
    res.status(created ? 201 : 200);
    return review;
  }

  @Get('decks')
  @ApiOperation({
    summary: 'The caller’s decks',
    description:
      'Course decks of the courses the caller is enrolled in here that have cards (by course title), then the caller’s ' +
      'personal decks here (by creation). Counts are the caller’s.',
  })
  @ApiPageResponse(DeckDto)
  @ApiErrors(422)
  listDecks(@CurrentMembership() member: Membership, @Query() query: DeckListQueryDto): Promise<Page<DeckDto>> {
    return this.flashcards.listDecks(member, query);
  }

  @Post('decks')
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Create a personal deck',
    description: 'At most 100 personal decks per person and organization (409 `deck_limit_reached`).',
  })
  @ApiCreatedResponse({ type: DeckDto })
  @ApiErrors(422, [409, 'deck_limit_reached'])
  createDeck(@CurrentMembership() member: Membership, @Body() dto: CreateDeckDto): Promise<DeckDto> {
    return this.flashcards.createDeck(member, dto);
  }

  @Get('decks/:deck_id')
  @ApiOperation({ summary: 'A deck', description: DECK_ACCESS })
  @ApiOkResponse({ type: DeckDto })
  @ApiErrors(404, [403, 'not_enrolled'])
  getDeck(@CurrentMembership() member: Membership, @Param('deck_id') deckId: string): Promise<DeckDto> {
    return this.flashcards.getDeck(member, deckId);
  }

  @Patch('decks/:deck_id')
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Rename or describe a personal deck',
    description: `\`description: null\` clears it. ${OWNER_ONLY}`,
  })
  @ApiOkResponse({ type: DeckDto })
  @ApiErrors(403, 404, 422)
  updateDeck(
    @CurrentMembership() member: Membership,
    @Param('deck_id') deckId: string,
    @Body() dto: UpdateDeckDto,
  ): Promise<DeckDto> {
    return this.flashcards.updateDeck(member, deckId, dto);
  }

  @Delete('decks/:deck_id')
  @HttpCode(204)
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Delete a personal deck',
    description: `With its cards, states and review logs. ${OWNER_ONLY}`,
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(403, 404)
  async deleteDeck(@CurrentMembership() member: Membership, @Param('deck_id') deckId: string): Promise<void> {
    await this.flashcards.deleteDeck(member, deckId);
  }

  @Get('decks/:deck_id/cards')
  @ApiOperation({ summary: 'A deck’s cards', description: `By position, each with the caller’s state. ${DECK_ACCESS}` })
  @ApiPageResponse(CardDto)
  @ApiErrors(404, 422, [403, 'not_enrolled'])
  cards(
    @CurrentMembership() member: Membership,
    @Param('deck_id') deckId: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<CardDto>> {
    return this.flashcards.deckCards(member, deckId, query);
  }

  @Post('decks/:deck_id/cards')
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Add a card to a personal deck',
    description: `At most 5 000 cards per deck (409 \`deck_full\`). ${MARKDOWN} ${OWNER_ONLY}`,
  })
  @ApiCreatedResponse({ type: CardDto })
  @ApiErrors(403, 404, 422, [409, 'deck_full'])
  addCard(
    @CurrentMembership() member: Membership,
    @Param('deck_id') deckId: string,
    @Body() dto: CreateCardDto,
  ): Promise<CardDto> {
    return this.flashcards.addCard(member, deckId, dto);
  }

  @Patch('decks/:deck_id/cards/:card_id')
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Change a card of a personal deck',
    description: `Review states are kept. ${MARKDOWN} ${OWNER_ONLY}`,
  })
  @ApiOkResponse({ type: CardDto })
  @ApiErrors(403, 404, 422)
  updateCard(
    @CurrentMembership() member: Membership,
    @Param('deck_id') deckId: string,
    @Param('card_id') cardId: string,
    @Body() dto: UpdateCardDto,
  ): Promise<CardDto> {
    return this.flashcards.updateCard(member, deckId, cardId, dto);
  }

  @Delete('decks/:deck_id/cards/:card_id')
  @HttpCode(204)
  @MinorAccess('with_consent')
  @ApiOperation({
    summary: 'Delete a card of a personal deck',
    description: `With its states and review logs. ${OWNER_ONLY}`,
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(403, 404)
  async deleteCard(
    @CurrentMembership() member: Membership,
    @Param('deck_id') deckId: string,
    @Param('card_id') cardId: string,
  ): Promise<void> {
    await this.flashcards.deleteCard(member, deckId, cardId);
  }
}
