import { Injectable, Logger } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import type { MailKind } from '@/core/mail/mail.jobs';
import { MailSuppression } from '@/core/mail/mail.processor';
import type { SuppressionDto, SuppressionListQueryDto } from './dto/email-suppressions.dto';
import type { SuppressionReason } from './email-events';
import { EmailWebhooksRepository, type SuppressionRow } from './email-webhooks.repository';
import { maskAddress, normalizeAddress, SUPPRESSION_HASH_PURPOSE } from './suppression-address';

/**
 * What each reason stops (extensions-v2 22.3): a hard bounce or a manual entry every message; a complaint the
 * messages a person can do without (notifications, announcements), never the transactional ones (a person asking
 * for a sign-in code must get it).
 */
export function stops(reason: SuppressionReason, kind: MailKind): boolean {
  return reason !== 'complaint' || kind !== 'transactional';
}

/** A reason that stops more replaces one that stops less; a complaint never weakens an entry. */
function strength(reason: SuppressionReason): number {
  return reason === 'complaint' ? 1 : 2;
}

/**
 * The suppression list: addresses are kept only as a keyed hash of the lower-cased address (so the list cannot be
 * read back into addresses) and a masked form for admins. It answers the mail handler's question (the core
 * `MailSuppression` port) and the platform admin routes.
 */
@Injectable()
export class EmailSuppressionsService extends MailSuppression {
  private readonly logger = new Logger('EmailSuppressions');

  constructor(
    private readonly repository: EmailWebhooksRepository,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditService,
  ) {
    super();
  }

  hashOf(address: string): string {
    return this.crypto.keyedHash(SUPPRESSION_HASH_PURPOSE, normalizeAddress(address));
  }

  async isSuppressed(address: string, kind: MailKind): Promise<boolean> {
    const reason = await this.repository.reasonOf(this.hashOf(address));
    return reason !== null && stops(reason, kind);
  }

  /**
   * Puts an address on the list (or strengthens its entry: a complaint becomes a hard bounce or a manual stop,
   * never the reverse). Idempotent: the same address again changes nothing.
   */
  async suppress(
    address: string,
    reason: SuppressionReason,
    sourceEventId: string | null,
    tx: Tx,
  ): Promise<{ row: SuppressionRow; created: boolean }> {
    const now = this.clock.now();
    const { row, created } = await this.repository.insertOrLock(
      { addressHash: this.hashOf(address), masked: maskAddress(address), reason, sourceEventId },
      now,
      tx,
    );
    if (created || strength(reason) <= strength(row.reason)) return { row, created };
    this.logger.log({ suppression_id: row.id, from: row.reason, to: reason }, 'Suppression strengthened');
    return { row: await this.repository.updateReason(row.id, reason, sourceEventId, now, tx), created: false };
  }

  // The admin routes.

  async list(query: SuppressionListQueryDto): Promise<Page<SuppressionDto>> {
    const { rows, total } = await this.repository.list(
      { addressHash: query.email === undefined ? undefined : this.hashOf(query.email), reason: query.reason },
      query,
    );
    return toPage(rows.map(toDto), total, query);
  }

  /** A manual entry: `created` false when the address was already on the list (a complaint becomes manual). */
  async addManual(email: string): Promise<{ entry: SuppressionDto; created: boolean }> {
    const { row, created } = await this.transactions.run((tx) => this.suppress(email, 'manual', null, tx));
    return { entry: toDto(row), created };
  }

  async remove(id: string, actorId: string, ip?: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const removed = await this.repository.delete(id, tx);
      if (!removed) throw ApiError.notFound();
      await this.audit.record(
        {
          action: 'email_suppression.removed',
          actorId,
          organizationId: null,
          targetType: 'email_suppression',
          targetId: id,
          ip,
          metadata: { reason: removed.reason },
        },
        tx,
      );
    });
  }
}

function toDto(row: SuppressionRow): SuppressionDto {
  return {
    id: row.id,
    email_masked: row.email_masked,
    reason: row.reason,
    source_event_id: row.source_event_id,
    created_at: row.created_at.toISOString(),
  };
}
