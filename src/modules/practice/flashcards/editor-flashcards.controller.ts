import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PlatformRoles } from '@/core/auth/access.decorators';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import { type Page, PageQueryDto } from '@/core/http/pagination';
import { CardDto, CreateEditorCardDto, UpdateEditorCardDto } from './dto/flashcards.dto';
import { FlashcardsService } from './flashcards.service';

const MARKDOWN =
  'Faces are Markdown (1..2 000 characters), rendered with markdown-it without raw HTML and sanitized into ' +
  '`front_html` and `back_html`; `lesson_id` must name a lesson of the course (422).';

@ApiTags('flashcards')
@Controller('editor/courses/:course_id/flashcards')
@PlatformRoles('editor')
export class EditorFlashcardsController {
  constructor(private readonly flashcards: FlashcardsService) {}

  @Get()
  @ApiOperation({
    summary: 'The course deck’s cards',
    description: 'By lesson position (cards without a lesson last), then position. `state` is always null here.',
  })
  @ApiPageResponse(CardDto)
  @ApiErrors(404, 422)
  list(@Param('course_id') courseId: string, @Query() query: PageQueryDto): Promise<Page<CardDto>> {
    return this.flashcards.editorList(courseId, query);
  }

  @Post()
  @ApiOperation({
    summary: 'Add a card to the course deck',
    description: `The deck is created with its first card; at most 2 000 cards (409 \`deck_full\`). ${MARKDOWN}`,
  })
  @ApiCreatedResponse({ type: CardDto })
  @ApiErrors(404, 422, [409, 'deck_full'])
  create(@Param('course_id') courseId: string, @Body() dto: CreateEditorCardDto): Promise<CardDto> {
    return this.flashcards.editorCreate(courseId, dto);
  }

  @Patch(':card_id')
  @ApiOperation({
    summary: 'Change a card of the course deck',
    description: `Only the fields sent change (\`lesson_id: null\` clears it); learners’ review states are kept. ${MARKDOWN}`,
  })
  @ApiOkResponse({ type: CardDto })
  @ApiErrors(404, 422)
  update(
    @Param('course_id') courseId: string,
    @Param('card_id') cardId: string,
    @Body() dto: UpdateEditorCardDto,
  ): Promise<CardDto> {
    return this.flashcards.editorUpdate(courseId, cardId, dto);
  }

  @Delete(':card_id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a card of the course deck',
    description: 'Everyone’s states and review logs of the card go with it.',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiErrors(404)
  async remove(@Param('course_id') courseId: string, @Param('card_id') cardId: string): Promise<void> {
    await this.flashcards.editorDelete(courseId, cardId);
  }
}
