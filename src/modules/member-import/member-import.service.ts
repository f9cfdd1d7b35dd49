import { Inject, Injectable, Logger } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, ORG_ROLES, type OrgRole } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner, withSavepoint } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { JobsService } from '@/core/queue/jobs.service';
import { CohortsService } from '@/modules/cohorts/cohorts.service';
import { InvitationsService } from '@/modules/invitations/invitations.service';
import { OrganizationsService } from '@/modules/organizations/organizations.service';
import { UsersService } from '@/modules/users/users.service';
import type { ImportStatusDto } from './dto/member-import.dto';
import type { ImportRow } from './import-file';
import { IMPORT_MEMBERS } from './member-import.jobs';
import {
  type ImportRecord,
  MemberImportRepository,
  type PendingRow,
  type RowOutcome,
} from './member-import.repository';

/** Rows handled per transaction; each row has its own savepoint, so a bad row rolls back alone. */
const BATCH = 200;

interface RunContext {
  record: ImportRecord;
  creatorRole: OrgRole;
  /** Addresses invited or added so far in this import: a repeated address is skipped. */
  handled: Set<string>;
}

@Injectable()
export class MemberImportService {
  private readonly logger = new Logger('MemberImport');

  constructor(
    private readonly imports: MemberImportRepository,
    private readonly orgs: OrganizationsService,
    private readonly users: UsersService,
    private readonly cohorts: CohortsService,
    private readonly invitations: InvitationsService,
    private readonly jobs: JobsService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(organizationId: string, actorId: string, rows: ImportRow[]): Promise<{ id: string; status: 'queued' }> {
    const record = await this.transactions.run(async (tx) => {
      const created = await this.imports.create(organizationId, actorId, rows, this.clock.now(), tx);
      await this.jobs.enqueue(
        IMPORT_MEMBERS,
        { importId: created.id },
        { organizationId, tx, dedupeKey: `members.import:${created.id}` },
      );
      return created;
    });
    return { id: record.id, status: 'queued' };
  }

  async status(organizationId: string, importId: string): Promise<ImportStatusDto> {
    const record = await this.imports.find(organizationId, importId);
    if (!record) throw ApiError.notFound();
    const counts = await this.imports.counts(organizationId, record.id);
    const finished = record.status === 'completed' || record.status === 'failed';
    return {
      id: record.id,
      status: record.status,
      total: record.total,
      ...counts,
      report_url: finished
        ? `${this.config.baseUrl}/api/v1/organizations/${organizationId}/members/import/${record.id}/report`
        : null,
      created_at: record.created_at.toISOString(),
      finished_at: record.finished_at?.toISOString() ?? null,
    };
  }

  async reportSource(
    organizationId: string,
    importId: string,
  ): Promise<AsyncGenerator<{ row: number; email: string | null; outcome: string | null; reason: string | null }>> {
    const record = await this.imports.find(organizationId, importId);
    if (!record) throw ApiError.notFound();
    if (record.status !== 'completed' && record.status !== 'failed') {
      throw ApiError.conflict('import_not_finished', 'The import has not finished yet.');
    }
    return this.imports.reportRows(organizationId, importId);
  }

  /**
   * The job: re-checks tenancy as a request would (the organization, the import's owner still owner/admin),
   * then applies the pending rows batch by batch. Safe to run again after a crash: only rows without an
   * outcome are taken, and a row's effect and its outcome commit together.
   */
  async run(importId: string, organizationId: string | null): Promise<void> {
    // The job's organization scopes every read: a job naming another organization finds nothing.
    const record = organizationId ? await this.imports.find(organizationId, importId) : null;
    if (!record || record.status === 'completed' || record.status === 'failed') return;
    const orgId = record.organization_id;
    const refusal = await this.refusal(record);
    if (refusal) {
      await this.imports.finish(orgId, record.id, { status: 'failed', error: refusal }, this.clock.now());
      return;
    }
    const creator = await this.orgs.membership(record.organization_id, record.created_by!);
    const ctx: RunContext = {
      record,
      creatorRole: creator!.role,
      handled: await this.imports.handledEmails(orgId, record.id),
    };
    await this.imports.markRunning(orgId, record.id, this.clock.now());
    for (;;) {
      const batch = await this.imports.pendingBatch(orgId, record.id, BATCH);
      if (batch.length === 0) break;
      await this.transactions.run(async (tx) => {
        for (const row of batch) await this.applyRow(ctx, row, tx);
      });
    }
    const counts = await this.imports.counts(orgId, record.id);
    await this.transactions.run(async (tx) => {
      await this.imports.finish(orgId, record.id, { status: 'completed', error: null }, this.clock.now(), tx);
      await this.audit.record(
        {
          action: 'members.imported',
          actorId: record.created_by,
          organizationId: record.organization_id,
          targetType: 'member_import',
          targetId: record.id,
          metadata: {
            total: record.total,
            invited: counts.invited,
            added: counts.added,
            skipped: counts.skipped,
            failed: counts.failed,
          },
        },
        tx,
      );
    });
    this.logger.log({ import_id: record.id, ...counts }, 'Member import completed');
  }

  async markFailed(organizationId: string, importId: string, error: string): Promise<void> {
    await this.imports.finish(
      organizationId,
      importId,
      { status: 'failed', error: error.slice(0, 500) },
      this.clock.now(),
    );
  }

  private async refusal(record: ImportRecord): Promise<string | null> {
    if (await this.orgs.isSuspended(record.organization_id)) return 'The organization is suspended.';
    const creator = record.created_by ? await this.orgs.membership(record.organization_id, record.created_by) : null;
    if (!creator || !isAdmin(creator.role)) return 'The person who started the import is no longer an owner or admin.';
    return null;
  }

  private async applyRow(ctx: RunContext, row: PendingRow, tx: Tx): Promise<void> {
    let outcome: [RowOutcome, string | null];
    try {
      outcome = await withSavepoint(tx, () => this.decide(ctx, row, tx));
    } catch (err) {
      outcome = ['failed', err instanceof ApiError ? err.message : 'The row could not be applied.'];
      if (!(err instanceof ApiError))
        this.logger.warn({ err, import_id: row.import_id, row: row.row }, 'Import row failed');
    }
    await this.imports.setOutcome(ctx.record.organization_id, row, { outcome: outcome[0], reason: outcome[1] }, tx);
  }

  /** What one row does, in the batch transaction: invite, add, skip, or fail with a reason. */
  private async decide(ctx: RunContext, row: PendingRow, tx: Tx): Promise<[RowOutcome, string | null]> {
    const organizationId = ctx.record.organization_id;
    const email = row.email?.trim().toLowerCase() ?? '';
    if (!isEmail(email) || email.length > 254) return ['failed', 'The email address is not valid.'];
    const role = (row.role?.trim().toLowerCase() || 'student') as OrgRole;
    if (!ORG_ROLES.includes(role))
      return ['failed', `Unknown role "${row.role}": use owner, admin, teacher or student.`];
    if (isAdmin(role) && ctx.creatorRole !== 'owner')
      return ['failed', 'Only an owner can grant the owner or admin role.'];
    const cohort = row.cohort ? await this.cohorts.findByName(organizationId, row.cohort, tx) : null;
    if (row.cohort && !cohort) return ['failed', `No cohort named "${row.cohort}" in this organization.`];
    if (ctx.handled.has(email)) return ['skipped', 'The address appears earlier in the file.'];
    const user = await this.users.findByEmail(email, tx);
    if (user) {
      const added = await this.orgs.addMember(organizationId, user.id, role, ctx.record.created_by, tx);
      if (!added) return ['skipped', 'Already a member.'];
      if (cohort)
        await this.cohorts.addMember(
          organizationId,
          cohort.id,
          user.id,
          role === 'teacher' ? 'teacher' : 'student',
          tx,
        );
      ctx.handled.add(email);
      return ['added', null];
    }
    await this.invitations.invite(
      organizationId,
      { email, role, cohortId: cohort?.id ?? null },
      { userId: ctx.record.created_by },
      { tx, importId: ctx.record.id },
    );
    ctx.handled.add(email);
    return ['invited', null];
  }
}
