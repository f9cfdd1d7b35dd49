import { Inject, Injectable, Logger } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, ORG_ROLES, type OrgRole } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner, withSavepoint } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { JobsService } from '@/core/queue/jobs.service';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { InvitationsService } from '@/modules/tenancy/invitations';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import type { ImportStatusDto } from './dto/member-import.dto';
import type { ImportRow } from './import-file';
import { IMPORT_MEMBERS } from './member-import.jobs';
import {
  type ImportRecord,
  MemberImportRepository,
  type PendingRow,
  type RowOutcome,
} from './member-import.repository';

/**
 * Rows handled per transaction, set-based: a batch's effects and its rows' outcomes commit together. Bounds the
 * worker's memory (the batch's rows, rendered invitation emails) and the advisory locks one transaction holds.
 */
export const IMPORT_BATCH = 1_000;

const REASONS = {
  invalidEmail: 'The email address is not valid.',
  onlyOwner: 'Only an owner can grant the owner or admin role.',
  repeated: 'The address appears earlier in the file.',
  alreadyMember: 'Already a member.',
  notApplied: 'The row could not be applied.',
} as const;

type Outcome = [RowOutcome, string | null];

/** A row that passed the checks that need no database (its address normalized, its role known and allowed). */
interface ValidRow {
  row: PendingRow;
  email: string;
  role: OrgRole;
}

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
      const batch = await this.imports.pendingBatch(orgId, record.id, IMPORT_BATCH);
      if (batch.length === 0) break;
      await this.applyBatch(ctx, batch);
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

  /**
   * One batch in one transaction, set-based. When the database refuses the batch for a row's data (a data or
   * integrity error: SQLSTATE classes 22 and 23), the batch is applied again row by row, each under its own
   * savepoint, so one bad row still fails alone. Any other error (a lost connection, a crash) propagates: the
   * job's retry resumes with the rows that have no outcome.
   */
  private async applyBatch(ctx: RunContext, batch: PendingRow[]): Promise<void> {
    let handled: string[];
    try {
      handled = await this.transactions.run((tx) => this.decideBatch(ctx, batch, tx));
    } catch (err) {
      const code = (err as { driverError?: { code?: unknown } } | null)?.driverError?.code;
      if (typeof code !== 'string' || !/^2[23]/.test(code)) throw err;
      this.logger.warn({ err, import_id: ctx.record.id }, 'Import batch refused; applying its rows one by one');
      const seen = new Set<string>();
      await this.transactions.run(async (tx) => {
        for (const row of batch) await this.applyRow(ctx, row, seen, tx);
      });
      handled = [...seen];
    }
    // Only once committed: a rolled-back batch must not count its addresses as handled.
    for (const email of handled) ctx.handled.add(email);
  }

  /**
   * What each row of the batch does, decided as the rows would be one by one in file order, with one query per
   * kind of look-up and one statement per kind of write. Answers the addresses invited or added.
   */
  private async decideBatch(ctx: RunContext, batch: PendingRow[], tx: Tx): Promise<string[]> {
    const organizationId = ctx.record.organization_id;
    const outcomes = new Map<number, Outcome>();
    // 1. In memory: the address, the role, who may grant it.
    const valid: ValidRow[] = [];
    for (const row of batch) {
      const checked = this.check(ctx, row);
      if (Array.isArray(checked)) outcomes.set(row.row, checked);
      else valid.push(checked);
    }
    // 2. The cohorts named, one query.
    const cohortNames = valid.flatMap((v) => (v.row.cohort ? [v.row.cohort] : []));
    const cohorts = await this.cohorts.findByNames(organizationId, cohortNames, tx);
    // 3. Repeated addresses: an address handled by an earlier batch is skipped; within the batch, the first row of
    //    an address leads, and the later ones follow its outcome.
    const leaders = new Map<string, ValidRow>();
    const followers: ValidRow[] = [];
    for (const v of valid) {
      if (v.row.cohort && !cohorts.has(v.row.cohort)) {
        outcomes.set(v.row.row, ['failed', `No cohort named "${v.row.cohort}" in this organization.`]);
      } else if (ctx.handled.has(v.email)) {
        outcomes.set(v.row.row, ['skipped', REASONS.repeated]);
      } else if (leaders.has(v.email)) {
        followers.push(v);
      } else {
        leaders.set(v.email, v);
      }
    }
    // 4. Accounts by address, one query; existing accounts join, the other addresses are invited.
    const accounts = await this.users.findByEmails([...leaders.keys()], tx);
    const joining = [...leaders.values()].filter((v) => accounts.has(v.email));
    const inviting = [...leaders.values()].filter((v) => !accounts.has(v.email));
    const byEmail = new Map<string, Outcome>();

    const results = await this.orgs.addMembers(
      organizationId,
      joining.map((v) => ({ userId: accounts.get(v.email)!.id, role: v.role })),
      ctx.record.created_by,
      tx,
    );
    const cohortPlaces: { cohortId: string; userId: string; role: 'teacher' | 'student' }[] = [];
    joining.forEach((v, i) => {
      const result = results[i];
      if (result.status === 'added') {
        byEmail.set(v.email, ['added', null]);
        if (v.row.cohort) {
          cohortPlaces.push({
            cohortId: cohorts.get(v.row.cohort)!.id,
            userId: accounts.get(v.email)!.id,
            role: v.role === 'teacher' ? 'teacher' : 'student',
          });
        }
      } else if (result.status === 'already_member') byEmail.set(v.email, ['skipped', REASONS.alreadyMember]);
      else byEmail.set(v.email, ['failed', result.error.message]);
    });
    await this.cohorts.addMembers(organizationId, cohortPlaces, tx);

    if (inviting.length > 0) {
      try {
        await withSavepoint(tx, () =>
          this.invitations.inviteMany(
            organizationId,
            inviting.map((v) => ({
              email: v.email,
              role: v.role,
              cohortId: cohorts.get(v.row.cohort ?? '')?.id ?? null,
            })),
            { userId: ctx.record.created_by },
            { tx, importId: ctx.record.id },
          ),
        );
        for (const v of inviting) byEmail.set(v.email, ['invited', null]);
      } catch (err) {
        // A refusal of the invitations (the organization suspended, the importer no longer an owner or admin
        // meanwhile) is each row's reason, as it would be row by row; anything else fails the batch.
        if (!(err instanceof ApiError)) throw err;
        for (const v of inviting) byEmail.set(v.email, ['failed', err.message]);
      }
    }
    for (const v of leaders.values()) outcomes.set(v.row.row, byEmail.get(v.email)!);
    for (const v of followers) {
      const first = byEmail.get(v.email)!;
      const done = first[0] === 'added' || first[0] === 'invited';
      outcomes.set(v.row.row, done ? ['skipped', REASONS.repeated] : first);
    }

    await this.imports.setOutcomes(
      organizationId,
      ctx.record.id,
      batch.map((row) => {
        const [outcome, reason] = outcomes.get(row.row)!;
        return { row: row.row, outcome, reason };
      }),
      tx,
    );
    return [...byEmail].filter(([, [o]]) => o === 'added' || o === 'invited').map(([email]) => email);
  }

  /** The checks of a row that need no database: its failure, or the row with its address and role. */
  private check(ctx: RunContext, row: PendingRow): Outcome | ValidRow {
    const email = row.email?.trim().toLowerCase() ?? '';
    if (!isEmail(email) || email.length > 254) return ['failed', REASONS.invalidEmail];
    const role = (row.role?.trim().toLowerCase() || 'student') as OrgRole;
    if (!ORG_ROLES.includes(role))
      return ['failed', `Unknown role "${row.role}": use owner, admin, teacher or student.`];
    if (isAdmin(role) && ctx.creatorRole !== 'owner') return ['failed', REASONS.onlyOwner];
    return { row, email, role };
  }

  /**
   * The row-by-row path (a refused batch): one row under its own savepoint. `seen` collects the addresses this
   * transaction invited or added.
   */
  private async applyRow(ctx: RunContext, row: PendingRow, seen: Set<string>, tx: Tx): Promise<void> {
    let outcome: Outcome;
    try {
      outcome = await withSavepoint(tx, () => this.decide(ctx, row, seen, tx));
    } catch (err) {
      outcome = ['failed', err instanceof ApiError ? err.message : REASONS.notApplied];
      if (!(err instanceof ApiError))
        this.logger.warn({ err, import_id: row.import_id, row: row.row }, 'Import row failed');
    }
    await this.imports.setOutcome(ctx.record.organization_id, row, { outcome: outcome[0], reason: outcome[1] }, tx);
  }

  /** What one row does on the row-by-row path: invite, add, skip, or fail with a reason. */
  private async decide(ctx: RunContext, row: PendingRow, seen: Set<string>, tx: Tx): Promise<Outcome> {
    const organizationId = ctx.record.organization_id;
    const checked = this.check(ctx, row);
    if (Array.isArray(checked)) return checked;
    const { email, role } = checked;
    const cohort = row.cohort ? await this.cohorts.findByName(organizationId, row.cohort, tx) : null;
    if (row.cohort && !cohort) return ['failed', `No cohort named "${row.cohort}" in this organization.`];
    if (ctx.handled.has(email) || seen.has(email)) return ['skipped', REASONS.repeated];
    const user = await this.users.findByEmail(email, tx);
    if (user) {
      const added = await this.orgs.addMember(organizationId, user.id, role, ctx.record.created_by, tx);
      if (!added) return ['skipped', REASONS.alreadyMember];
      if (cohort)
        await this.cohorts.addMember(
          organizationId,
          cohort.id,
          user.id,
          role === 'teacher' ? 'teacher' : 'student',
          tx,
        );
      seen.add(email);
      return ['added', null];
    }
    await this.invitations.invite(
      organizationId,
      { email, role, cohortId: cohort?.id ?? null },
      { userId: ctx.record.created_by },
      { tx, importId: ctx.record.id },
    );
    seen.add(email);
    return ['invited', null];
  }
}
