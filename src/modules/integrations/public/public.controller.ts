import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { PlatformRoles, Public } from '@/core/auth/access.decorators';
import { ApiErrors, ApiPageResponse } from '@/core/http/openapi';
import type { Page } from '@/core/http/pagination';
import { UuidPipe } from '@/core/http/uuid';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import {
  ContactDto,
  ContactRequestDto,
  ContactRequestQueryDto,
  DemoRequestDto,
  PublicCatalogQueryDto,
  PublicCourseDto,
  PublicCourseCardDto,
  ReceivedDto,
  UpdateContactRequestDto,
} from './dto/public.dto';
import { CATALOG_IP, FORM_EMAIL, FORM_IP } from './public.limits';
import { etagOf, PublicService } from './public.service';

const FORMS =
  'Public: no credential needed, any sent is ignored, no cookie set. `website` is a honeypot: when present and not ' +
  'empty the answer is the same 202 and nothing is stored. Stored in `contact_requests` and, when `CONTACT_INBOX` ' +
  'is set, sent there (`public.contact_request`); never a confirmation to the sender.';
const CACHE =
  'Public, cacheable: `Cache-Control: public, max-age=300` and a strong `ETag` (SHA-256 of the body); ' +
  '`If-None-Match` with the current tag answers 304 without a body.';

const RECEIVED: ReceivedDto = { status: 'received' };

/** RFC 9110 weak comparison, as If-None-Match requires. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

function sendCached(req: Request, res: Response, body: unknown): void {
  const json = JSON.stringify(body);
  const etag = etagOf(json);
  res.setHeader('Cache-Control', 'public, max-age=300');
  res.setHeader('ETag', etag);
  if (matches(req.headers['if-none-match'], etag)) {
    res.status(304).end();
    return;
  }
  res.status(200).type('application/json').send(json);
}

@ApiTags('public')
@Controller('public')
@Public()
export class PublicController {
  constructor(private readonly publicSite: PublicService) {}

  @Post('contact')
  @HttpCode(202)
  @RateLimit(FORM_IP, FORM_EMAIL)
  @ApiOperation({ summary: 'Contact form', description: FORMS })
  @ApiAcceptedResponse({ type: ReceivedDto })
  @ApiErrors(422)
  async contact(@Body() dto: ContactDto): Promise<ReceivedDto> {
    await this.publicSite.contact(dto);
    return RECEIVED;
  }

  @Post('demo-requests')
  @HttpCode(202)
  @RateLimit(FORM_IP, FORM_EMAIL)
  @ApiOperation({ summary: 'Demo request form', description: FORMS })
  @ApiAcceptedResponse({ type: ReceivedDto })
  @ApiErrors(422)
  async demo(@Body() dto: DemoRequestDto): Promise<ReceivedDto> {
    await this.publicSite.demo(dto);
    return RECEIVED;
  }

  @Get('catalog')
  @RateLimit(CATALOG_IP)
  @ApiOperation({
    summary: 'The public catalog',
    description: `Published courses with visibility \`public\` only, filtered and ordered as the built catalog (newest published first). ${CACHE}`,
  })
  @ApiPageResponse(PublicCourseCardDto)
  @ApiResponse({ status: 304, description: 'Not modified' })
  @ApiErrors(422)
  async catalog(@Query() query: PublicCatalogQueryDto, @Req() req: Request, @Res() res: Response): Promise<void> {
    const page: Page<PublicCourseCardDto> = await this.publicSite.catalog(query);
    sendCached(req, res, page);
  }

  @Get('catalog/:slug')
  @RateLimit(CATALOG_IP)
  @ApiParam({ name: 'slug', schema: { type: 'string', pattern: '^[a-z0-9-]{3,80}$', maxLength: 80 } })
  @ApiOperation({
    summary: 'A public course page',
    description: `The card, \`description_md\` and the lesson outline (never lesson content). Restricted and unpublished courses are 404. ${CACHE}`,
  })
  @ApiOkResponse({ type: PublicCourseDto })
  @ApiResponse({ status: 304, description: 'Not modified' })
  @ApiErrors(404)
  async course(@Param('slug') slug: string, @Req() req: Request, @Res() res: Response): Promise<void> {
    sendCached(req, res, await this.publicSite.course(slug));
  }
}

@ApiTags('public')
@Controller('admin/contact-requests')
@PlatformRoles('platform_admin')
export class AdminContactRequestsController {
  constructor(private readonly publicSite: PublicService) {}

  @Get()
  @ApiOperation({ summary: 'Contact and demo requests (platform admin)', description: 'Most recent first.' })
  @ApiPageResponse(ContactRequestDto)
  @ApiErrors(422)
  list(@Query() query: ContactRequestQueryDto): Promise<Page<ContactRequestDto>> {
    return this.publicSite.listRequests(query);
  }

  @Patch(':request_id')
  @ApiOperation({
    summary: 'Mark a request (platform admin)',
    description:
      '`handled` or `spam` records when (kept 180 days after, then deleted; any request goes 365 days after arrival); `new` clears it.',
  })
  @ApiOkResponse({ type: ContactRequestDto })
  @ApiErrors(404, 422)
  update(@Param('request_id', UuidPipe) id: string, @Body() dto: UpdateContactRequestDto): Promise<ContactRequestDto> {
    return this.publicSite.setStatus(id, dto.status);
  }
}
