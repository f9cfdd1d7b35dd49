import { Controller, Get, Headers, HttpCode, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '@/core/auth/access.decorators';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit, type RateLimitPolicy } from '@/core/rate-limit/rate-limit';
import { UnsubscribeQueryDto } from './dto/notification.dto';
import { UnsubscribeService } from './unsubscribe.service';

/** 60 per minute per client address (13.5), for the page and the one-click POST each. */
export const UNSUBSCRIBE_PAGE_IP: RateLimitPolicy = {
  name: 'notifications.unsubscribe_page.ip',
  points: 60,
  durationSeconds: 60,
  key: 'ip',
};
export const UNSUBSCRIBE_POST_IP: RateLimitPolicy = {
  name: 'notifications.unsubscribe.ip',
  points: 60,
  durationSeconds: 60,
  key: 'ip',
};

function sendPage(res: Response, html: string): void {
  res
    .status(200)
    .setHeader('Content-Type', 'text/html; charset=utf-8')
    .setHeader('Cache-Control', 'no-store')
    .setHeader(
      'Content-Security-Policy',
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    )
    .setHeader('Referrer-Policy', 'no-referrer')
    .send(html);
}

@ApiTags('notifications')
@Controller('notifications/unsubscribe')
@Public()
export class UnsubscribeController {
  constructor(private readonly unsubscribe: UnsubscribeService) {}

  @Get()
  @RateLimit(UNSUBSCRIBE_PAGE_IP)
  @ApiOperation({
    summary: 'Unsubscribe confirmation page',
    description:
      'Changes nothing (link scanners open links). The HTML page in the person’s language (for a token that does ' +
      'not verify, in the browser’s: `es` or `en`, else `es`), naming the category, with a form that POSTs to this ' +
      'URL, a second form for `type=all` and a link to the notification settings. 200 always for a well-formed ' +
      'token and type; 422 (envelope) otherwise.',
  })
  @ApiResponse({
    status: 200,
    description: 'The confirmation page',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiErrors(422, 429)
  async page(
    @Query() query: UnsubscribeQueryDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.unsubscribe.confirmationPage(query.token, query.type, acceptLanguage));
  }

  @Post()
  @HttpCode(200)
  @RateLimit(UNSUBSCRIBE_POST_IP)
  @ApiOperation({
    summary: 'Unsubscribe in one click (RFC 8058)',
    description:
      'The `List-Unsubscribe-Post` target: body `List-Unsubscribe=One-Click` (form-urlencoded or multipart; not ' +
      'required). With a verifying token, sets `email: false` for the category, or for all five with `type=all` ' +
      '(which also withdraws the consent `product_updates_email`). A token that does not verify gets the same page ' +
      'and changes nothing. 200 always for a well-formed token and type; 422 otherwise.',
  })
  @ApiResponse({
    status: 200,
    description: 'The “done” page',
    content: { 'text/html': { schema: { type: 'string' } } },
  })
  @ApiErrors(422, 429)
  async oneClick(
    @Query() query: UnsubscribeQueryDto,
    @Headers('accept-language') acceptLanguage: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    sendPage(res, await this.unsubscribe.unsubscribe(query.token, query.type, acceptLanguage));
  }
}
