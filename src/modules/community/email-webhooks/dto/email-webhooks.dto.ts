import { ApiProperty } from '@nestjs/swagger';

export const WEBHOOK_STATUSES = ['processed', 'ignored', 'duplicate'] as const;
export type WebhookStatus = (typeof WEBHOOK_STATUSES)[number];

export class WebhookReceiptDto {
  @ApiProperty({
    enum: WEBHOOK_STATUSES,
    description:
      '`processed`: the event suppressed its recipients; `ignored`: nothing to do (delivered, opened, a soft bounce, ' +
      'an unknown type); `duplicate`: this `webhook-id` was already received, nothing applied',
  })
  status!: WebhookStatus;
}

/** The Resend event shape, for the OpenAPI description (the route reads the raw bytes). */
export const EMAIL_EVENT_SCHEMA = {
  type: 'object',
  required: ['type'],
  properties: {
    type: {
      type: 'string',
      maxLength: 100,
      example: 'email.bounced',
      description: '`email.bounced` and `email.complained` act; every other type is acknowledged as `ignored`',
    },
    created_at: { type: 'string', format: 'date-time', maxLength: 40 },
    data: {
      type: 'object',
      properties: {
        email_id: { type: 'string', maxLength: 256 },
        to: {
          oneOf: [
            { type: 'string', maxLength: 508 },
            { type: 'array', maxItems: 50, items: { type: 'string', maxLength: 508 } },
          ],
        },
        bounce: {
          type: 'object',
          properties: {
            type: { type: 'string', maxLength: 100, example: 'Permanent' },
            subType: { type: 'string', maxLength: 100 },
            message: { type: 'string', maxLength: 2000 },
          },
        },
      },
    },
  },
} as const;
