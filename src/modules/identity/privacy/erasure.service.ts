import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { isUniqueViolation } from '@/core/database/constraint-violation';
import { TransactionRunner, type Tx } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { resolveLocale } from '@/core/mail/mail-template';
import { MailService } from '@/core/mail/mail.service';
import { PersonalDataRegistry } from '@/core/privacy/personal-data';
import { JobsService } from '@/core/queue/jobs.service';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import type { ErasureScheduledDto, ErasureStateDto } from './dto/privacy.dto';
import { ERASE_ACCOUNT } from './privacy.jobs';
import { ERASURE_CANCELLED, ERASURE_COMPLETED, ERASURE_REMINDER, ERASURE_SCHEDULED } from './privacy.mails';
import { type ErasureRow, PrivacyRepository } from './privacy.repository';

const HOUR_MS = 3600 * 1000;
/** Erasure happens 14 days after the request; a reminder goes 24 h before (extensions-v2 17.3). */
export const ERASURE_GRACE_MS = 14 * 24 * HOUR_MS;
export const REMINDER_BEFORE_MS = 24 * HOUR_MS;
/** How long a run holds the erasure before another worker may take it over (renewed at every step). */
export const ERASURE_LEASE_MS = 10 * 60 * 1000;

/** Step names recorded in `steps_done`: the owners step, one per registered eraser, and the final one. */
export const STEP_OWNERS = 'owners';
export const STEP_FINISH = 'finish';
export const eraserStep = (area: string, key: string): string => `erase:${area}.${key}`;

/**
 * Erasure (extensions-v2 17.3, 17.4): scheduled 14 days ahead and cancellable until then; at `scheduled_for` a
 * resumable, idempotent run hands organizations the person alone owns to a successor (or suspends them), runs every
 * registered eraser in `eraseOrder` (the account tombstone last), then tells the former address. Each step commits
 * together with its mark in `steps_done`, so a crash loses at most the step in flight, which is redone whole.
 */
@Injectable()
export class ErasureService {
  private readonly logger = new Logger('Erasure');

  constructor(
    private readonly repo: PrivacyRepository,
    private readonly registry: PersonalDataRegistry,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly transactions: TransactionRunner,
    private readonly jobs: JobsService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get settingsUrl(): string {
    return `${this.config.webUrl}/settings/privacy`;
  }

  async state(userId: string): Promise<ErasureStateDto> {
    const row = await this.repo.activeErasure(userId);
    if (!row || row.status !== 'scheduled') {
      return { status: 'none', requested_at: null, scheduled_for: null, keep_certificate_names: null };
    }
    return {
      status: 'scheduled',
      requested_at: row.requested_at.toISOString(),
      scheduled_for: row.scheduled_for.toISOString(),
      keep_certificate_names: row.keep_certificate_names,
    };
  }

  async schedule(userId: string, keepCertificateNames: boolean, ip: string | undefined): Promise<ErasureScheduledDto> {
    if (await this.repo.activeErasure(userId)) {
      throw ApiError.conflict('erasure_already_scheduled', 'An erasure is already scheduled.');
    }
    if ((await this.repo.soleOwnerships(userId)).some((o) => o.others > 0)) {
      throw ApiError.conflict(
        'sole_owner',
        'You are the only owner of an organization with other members: transfer its ownership first.',
      );
    }
    const user = await this.users.getById(userId);
    const now = this.clock.now();
    const scheduledFor = new Date(now.getTime() + ERASURE_GRACE_MS);
    try {
      const row = await this.transactions.run(async (tx) => {
        const inserted = await this.repo.insertErasure(
          { userId, keepCertificateNames, requestedAt: now, scheduledFor },
          tx,
        );
        await this.jobs.enqueue(
          ERASE_ACCOUNT,
          { erasure_id: inserted.id },
          { organizationId: null, tx, delayMs: ERASURE_GRACE_MS, dedupeKey: `privacy.erase:${inserted.id}` },
        );
        await this.mail.send(
          ERASURE_SCHEDULED,
          { url: this.settingsUrl, scheduledFor },
          { to: user.email, locale: this.users.emailLocale(user), organizationId: null, tx },
        );
        await this.audit.record(
          {
            action: 'account.erasure_scheduled',
            actorId: userId,
            organizationId: null,
            targetType: 'user',
            targetId: userId,
            ip,
            metadata: { erasure_id: inserted.id, keep_certificate_names: keepCertificateNames },
          },
          tx,
        );
        return inserted;
      });
      return {
        status: 'scheduled',
        requested_at: row.requested_at.toISOString(),
        scheduled_for: row.scheduled_for.toISOString(),
        keep_certificate_names: row.keep_certificate_names,
      };
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw ApiError.conflict('erasure_already_scheduled', 'An erasure is already scheduled.');
      }
      throw err;
    }
  }

  async cancel(userId: string, ip: string | undefined): Promise<void> {
    const user = await this.users.getById(userId);
    await this.transactions.run(async (tx) => {
      const row = await this.repo.cancelErasure(userId, this.clock.now(), tx);
      if (!row) throw ApiError.notFound('No erasure is scheduled.');
      await this.mail.send(
        ERASURE_CANCELLED,
        {},
        { to: user.email, locale: this.users.emailLocale(user), organizationId: null, tx },
      );
      await this.audit.record(
        {
          action: 'account.erasure_cancelled',
          actorId: userId,
          organizationId: null,
          targetType: 'user',
          targetId: userId,
          ip,
          metadata: { erasure_id: row.id },
        },
        tx,
      );
    });
  }

  /** The schedule `privacy.run_due_erasures`: one job per due erasure (a run per erasure and tick at most). */
  async enqueueDue(tick: Date): Promise<number> {
    const ids = await this.repo.dueErasures(this.clock.now(), 500);
    for (const id of ids) {
      await this.jobs.enqueue(
        ERASE_ACCOUNT,
        { erasure_id: id },
        { organizationId: null, dedupeKey: `privacy.erase:${id}:${tick.toISOString()}` },
      );
    }
    return ids.length;
  }

  /** The schedule `privacy.erasure_reminders`: erasures due within 24 h, reminded once. */
  async sendReminders(): Promise<number> {
    const until = new Date(this.clock.nowMs() + REMINDER_BEFORE_MS);
    return this.transactions.run(async (tx) => {
      const due = await this.repo.takeDueReminders(until, 500, tx);
      for (const row of due) {
        const user = await this.users.findById(row.user_id, tx.manager);
        if (!user || user.erasedAt) continue;
        await this.mail.send(
          ERASURE_REMINDER,
          { url: this.settingsUrl, scheduledFor: row.scheduled_for },
          { to: user.email, locale: this.users.emailLocale(user), organizationId: null, tx },
        );
      }
      return due.length;
    });
  }

  private lease(): Date {
    return new Date(this.clock.nowMs() + ERASURE_LEASE_MS);
  }

  /**
   * Runs (or resumes) one erasure. Nothing happens when it is not due by the Clock, was cancelled, is finished, or
   * another worker holds its lease. On a failure the lease is released, so the job's retry resumes at once.
   */
  async run(erasureId: string): Promise<'done' | 'skipped'> {
    const claimed = await this.repo.claimErasure(erasureId, this.clock.now(), this.lease());
    if (!claimed) return 'skipped';
    try {
      await this.steps(claimed);
      return 'done';
    } catch (err) {
      this.logger.warn({ err, erasureId }, 'Erasure step failed; it resumes there');
      await this.releaseLease(erasureId);
      throw err;
    }
  }

  private async releaseLease(erasureId: string): Promise<void> {
    await this.repo.releaseLease(erasureId).catch(() => undefined);
  }

  private async steps(erasure: ErasureRow): Promise<void> {
    const userId = erasure.user_id;
    const done = new Set(erasure.steps_done);
    // The address is captured (sealed) before anything changes, for the last email.
    if (!erasure.former_email) {
      const user = await this.users.findById(userId);
      if (user && !user.erasedAt) {
        await this.transactions.run((tx) =>
          this.repo.captureFormerAddress(erasure.id, this.crypto.encrypt(user.email), user.locale, tx),
        );
      }
    }
    const step = async (name: string, work: (tx: Tx) => Promise<void>): Promise<void> => {
      if (done.has(name)) return;
      await this.transactions.run(async (tx) => {
        await work(tx);
        await this.repo.markStep(erasure.id, name, this.lease(), tx);
      });
      done.add(name);
    };

    await step(STEP_OWNERS, (tx) => this.handOverOrganizations(userId, tx));
    for (const h of this.registry.handlers()) {
      await step(eraserStep(h.area, h.key), (tx) =>
        h.handler.erase({ userId, tx, now: this.clock.now(), keepCertificateNames: erasure.keep_certificate_names }),
      );
    }
    await step(STEP_FINISH, async (tx) => {
      const current = await this.repo.findErasure(erasure.id, tx);
      if (current?.former_email) {
        await this.mail.send(
          ERASURE_COMPLETED,
          {},
          {
            to: this.crypto.decrypt(current.former_email),
            locale: resolveLocale(current.former_locale),
            organizationId: null,
            tx,
            dedupeKey: `privacy.erasure_completed:${erasure.id}`,
          },
        );
      }
      await this.repo.completeErasure(erasure.id, this.clock.now(), tx);
      await this.audit.record(
        {
          action: 'account.erased',
          actorId: null,
          organizationId: null,
          targetType: 'user',
          targetId: userId,
          metadata: { erasure_id: erasure.id, keep_certificate_names: erasure.keep_certificate_names },
        },
        tx,
      );
    });
  }

  /**
   * Step 1: each organization the person alone owns gets a new owner (the longest-standing admin, else teacher,
   * else student), audited `member.role_changed` with reason `owner_erased` and actor null; one whose only member
   * is the person is suspended with reason `owner_erased`.
   */
  private async handOverOrganizations(userId: string, tx: Tx): Promise<void> {
    for (const { organization_id: organizationId } of await this.repo.soleOwnerships(userId, tx)) {
      await this.organizations.lockMembers(organizationId, tx);
      const successor = await this.repo.successor(organizationId, userId, tx);
      if (!successor) {
        await this.organizations.suspendByService(organizationId, 'owner_erased', tx);
        continue;
      }
      await this.organizations.setRole(organizationId, successor.user_id, 'owner', null, tx);
      await this.audit.record(
        {
          action: 'member.role_changed',
          actorId: null,
          organizationId,
          targetType: 'user',
          targetId: successor.user_id,
          metadata: { from: successor.role, to: 'owner', reason: 'owner_erased' },
        },
        tx,
      );
    }
  }
}
