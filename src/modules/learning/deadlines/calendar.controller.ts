import { Controller, Delete, Get, Headers, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { BrowserSessionOnly, CurrentCredential, MinorAccess, Public } from '@/core/auth/access.decorators';
import type { Credential } from '@/core/auth/credential';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { CalendarFeedService } from './calendar-feed.service';
import { FEED_IP, FEED_TOKEN } from './deadlines.limits';
import { CalendarFeedCreatedDto, CalendarFeedStatusDto } from './dto/deadline.dto';

@ApiTags('integrations')
@Controller('me/calendar-feed')
@BrowserSessionOnly()
export class MyCalendarFeedController {
  constructor(private readonly feeds: CalendarFeedService) {}

  @Get()
  @ApiOperation({
    summary: 'My calendar feed',
    description: 'Whether the caller has a calendar address, when it was made and last read. Never the address.',
  })
  @ApiOkResponse({ type: CalendarFeedStatusDto })
  status(@CurrentCredential() credential: Credential): Promise<CalendarFeedStatusDto> {
    return this.feeds.status(credential.userId);
  }

  @Post()
  @MinorAccess('always')
  @ApiOperation({
    summary: 'Make a new calendar address',
    description:
      'A private address that calendar applications subscribe to (they cannot send headers, so it carries a ' +
      'secret): exam windows, cohort deadlines, from every organization of the caller. Shown only in this answer; ' +
      'the previous address stops working.',
  })
  @ApiCreatedResponse({ type: CalendarFeedCreatedDto })
  create(@CurrentCredential() credential: Credential): Promise<CalendarFeedCreatedDto> {
    return this.feeds.create(credential.userId);
  }

  @Delete()
  @HttpCode(204)
  @MinorAccess('always')
  @ApiOperation({ summary: 'Stop my calendar address', description: 'Idempotent: 204 when there is none.' })
  @ApiNoContentResponse({ description: 'The address no longer works' })
  async remove(@CurrentCredential() credential: Credential): Promise<void> {
    await this.feeds.remove(credential.userId);
  }
}

@ApiTags('integrations')
@Controller('calendar')
@Public()
export class CalendarFeedController {
  constructor(private readonly feeds: CalendarFeedService) {}

  @Get(':feed_token.ics')
  @RateLimit(FEED_TOKEN, FEED_IP)
  @ApiParam({
    name: 'feed_token',
    description: 'The feed’s token (32 random bytes, base64url)',
    schema: { type: 'string', minLength: 43, maxLength: 43, pattern: '^[A-Za-z0-9_-]{43}$' },
  })
  @ApiOperation({
    summary: 'A calendar feed (iCalendar)',
    description:
      'RFC 5545 (`text/calendar; charset=utf-8`), for calendar applications: the token in the path is the only ' +
      'credential (the access log writes it as `[token]`). Exam windows with a closing time and cohort deadlines ' +
      '(with a one-day alarm) of every organization of the person, 30 days back to 180 days ahead, in UTC. ' +
      'Strong `ETag`, `Cache-Control: private, max-age=900`, 304 on a matching `If-None-Match`. Unknown or ' +
      'revoked token: 404.',
  })
  @ApiOkResponse({
    description: 'The calendar',
    content: { 'text/calendar': { schema: { type: 'string', example: 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\n...' } } },
  })
  @ApiErrors(404)
  async feed(
    @Param('feed_token') token: string,
    @Headers('if-none-match') ifNoneMatch: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const { body, etag } = await this.feeds.render(token);
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', 'private, max-age=900');
    const candidates = (ifNoneMatch ?? '').split(',').map((v) => v.trim());
    if (candidates.includes(etag) || candidates.includes('*')) {
      res.status(304).end();
      return;
    }
    res.status(200).type('text/calendar; charset=utf-8').send(body);
  }
}
