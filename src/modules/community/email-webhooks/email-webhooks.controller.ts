import { Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public } from '@/core/auth/access.decorators';
import { ApiErrors } from '@/core/http/openapi';
import { RateLimit } from '@/core/rate-limit/rate-limit';
import { EMAIL_EVENT_SCHEMA, WebhookReceiptDto } from './dto/email-webhooks.dto';
import { EmailWebhooksService } from './email-webhooks.service';
import { EMAIL_WEBHOOK_IP } from './email-webhooks.limits';

@ApiTags('webhooks')
@Controller('webhooks')
export class EmailWebhooksController {
  constructor(private readonly webhooks: EmailWebhooksService) {}

  @Post('email')
  @Public()
  @HttpCode(200)
  @RateLimit(EMAIL_WEBHOOK_IP)
  @ApiOperation({
    summary: 'Signed events from the email-delivery provider',
    description:
      'Standard Webhooks, checked in this order: the headers `webhook-id` (1..256), `webhook-timestamp` (integer ' +
      'seconds) and `webhook-signature` present; the timestamp within 300 seconds of the server time; one ' +
      '`v1,<base64>` entry of the signature equal to the HMAC-SHA256 of `<id>.<timestamp>.<raw body>` under one ' +
      'secret of `EMAIL_WEBHOOK_SECRET` (several during a rotation). Any failure is 401 `invalid_signature`. The raw ' +
      'body (at most 256 KiB, any content type) must then be a JSON object with a string `type`, else 422 (the id ' +
      'is not recorded). The `webhook-id` is recorded in the transaction that applies the event and kept 7 days: a ' +
      'second delivery answers `duplicate` and applies nothing. `email.bounced` with `bounce.type` absent, ' +
      '`Permanent` or `hard` (any case) and `email.complained` put each `data.to` address on the suppression list ' +
      '(`processed`); soft bounces (`Transient`, `soft`, `Undetermined`), unknown bounce types, events without a ' +
      'valid recipient and every other type change nothing (`ignored`, recorded too). Without a configured secret ' +
      'the route answers 404 `feature_disabled`. No credential: only the signature authenticates.',
  })
  @ApiHeader({
    name: 'webhook-id',
    required: true,
    description: 'The message id (1..256 characters)',
    schema: { type: 'string', minLength: 1, maxLength: 256 },
  })
  @ApiHeader({
    name: 'webhook-timestamp',
    required: true,
    description: 'Signing time, integer seconds since 1970',
    schema: { type: 'string', pattern: '^[0-9]{1,12}$' },
  })
  @ApiHeader({
    name: 'webhook-signature',
    required: true,
    description: 'Space-separated `v1,<base64 HMAC-SHA256>` entries (bounded by the 16 KiB limit on request headers)',
    schema: { type: 'string', maxLength: 16_384 },
  })
  @ApiBody({ schema: EMAIL_EVENT_SCHEMA as object, description: 'The Resend event, verified as raw bytes' })
  @ApiOkResponse({ type: WebhookReceiptDto })
  @ApiErrors([401, 'invalid_signature'], [404, 'feature_disabled'], 413, 422)
  async receive(@Req() req: Request): Promise<WebhookReceiptDto> {
    // The raw-body parser of core/http leaves the bytes as sent; no body at all is an empty one.
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    return { status: await this.webhooks.receive(req.headers, body) };
  }
}
