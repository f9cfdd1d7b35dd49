import type { IncomingHttpHeaders } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import type { WebhookStatus } from './dto/email-webhooks.dto';
import { classifyEmailEvent, parseEmailEvent, storedType } from './email-events';
import { EmailSuppressionsService } from './email-suppressions.service';
import { EmailWebhooksRepository } from './email-webhooks.repository';
import { WebhookSignatures } from './webhook-signatures';

/** Event ids are kept this long: well past the 5-minute window in which a replay could still verify. */
export const EVENT_ID_RETENTION_DAYS = 7;
const PRUNE_BATCH = 5_000;

/**
 * Receives the email provider's signed events (extensions-v2 22): verify, parse, then in one transaction record
 * the event id (a replay is answered `duplicate` and applies nothing) and apply the event's suppressions.
 */
@Injectable()
export class EmailWebhooksService {
  private readonly logger = new Logger('EmailWebhooks');

  constructor(
    private readonly signatures: WebhookSignatures,
    private readonly suppressions: EmailSuppressionsService,
    private readonly repository: EmailWebhooksRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  async receive(headers: IncomingHttpHeaders, body: Buffer): Promise<WebhookStatus> {
    if (!this.signatures.enabled) {
      throw ApiError.notFound('Email-provider webhooks are not configured.', 'feature_disabled');
    }
    const { id } = this.signatures.verify(headers, body);
    const event = parseEmailEvent(body);
    if (event === 'not_json') throw ApiError.validation([{ field: 'body', message: 'body must be JSON' }]);
    if (event === 'no_type') {
      throw ApiError.validation([{ field: 'type', message: 'type must be a non-empty string in a JSON object' }]);
    }
    const effect = classifyEmailEvent(event);
    const type = storedType(event.type);
    const status = await this.transactions.run(async (tx): Promise<WebhookStatus> => {
      if (!(await this.repository.recordEvent(id, type, effect.outcome, this.clock.now(), tx))) return 'duplicate';
      if (effect.outcome === 'processed') {
        for (const address of effect.addresses) await this.suppressions.suppress(address, effect.reason, id, tx);
      }
      return effect.outcome;
    });
    this.logger.log(
      {
        webhook_id: id,
        type,
        status,
        ...(effect.outcome === 'processed'
          ? { reason: effect.reason, recipients: effect.addresses.length }
          : { why: effect.why }),
      },
      'Email webhook received',
    );
    return status;
  }

  /** Deletes event ids older than the retention, in bounded batches; the number deleted. */
  async pruneEventIds(): Promise<number> {
    const before = new Date(this.clock.nowMs() - EVENT_ID_RETENTION_DAYS * 86_400_000);
    let total = 0;
    for (;;) {
      const deleted = await this.repository.pruneEvents(before, PRUNE_BATCH);
      total += deleted;
      if (deleted < PRUNE_BATCH) return total;
    }
  }
}
