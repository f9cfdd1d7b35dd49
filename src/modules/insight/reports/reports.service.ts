import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Readable, Transform } from 'node:stream';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { FileNotFoundError, FileStore } from '@/core/files/file-store';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { MailService } from '@/core/mail/mail.service';
import { resolveLocale } from '@/core/mail/mail-template';
import { JobsService } from '@/core/queue/jobs.service';
import { endOfLocalDate, startOfLocalDate } from '@/core/time/local-time';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import type { CreateReportDto, ReportDto, ReportListQueryDto } from './dto/report.dto';
import { GENERATE_REPORT } from './reports.jobs';
import { REPORT_FAILED, REPORT_READY } from './reports.mails';
import { csvStream, xlsxStream } from './report-writers';
import { REPORT_COLUMNS, REPORT_LIFETIME_MS, REPORT_MAX_ROWS } from './report-types';
import { type ReportFilters, type ReportRecordRow, ReportsRepository } from './reports.repository';

/** Thrown by the row guard past the cap. */
export class ReportTooLarge extends Error {}

/** Passes rows through, counting them; errors with `ReportTooLarge` at the first row past `max`. */
function rowGuard(max: number): Transform & { count: number } {
  const guard = new Transform({
    objectMode: true,
    transform(row: unknown, _encoding, done) {
      guard.count++;
      if (guard.count > max) done(new ReportTooLarge(`More than ${max} rows`));
      else done(null, row);
    },
  }) as Transform & { count: number };
  guard.count = 0;
  return guard;
}

/** The row cap of 15.2, injectable so a test can lower it. */
export class ReportLimits {
  constructor(public maxRows: number = REPORT_MAX_ROWS) {}
}

export interface ReportDownload {
  filename: string;
  contentType: string;
  stream: Readable;
}

const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const;

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

/** Organization reports (extensions-v2 15): requests, the job that builds them, downloads and their lifetime. */
@Injectable()
export class ReportsService {
  private readonly logger = new Logger('Reports');

  constructor(
    private readonly repository: ReportsRepository,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditService,
    private readonly events: DomainEvents,
    private readonly jobs: JobsService,
    private readonly mail: MailService,
    private readonly files: FileStore,
    private readonly clock: Clock,
    private readonly organizations: OrganizationsService,
    private readonly users: UsersService,
    private readonly limits: ReportLimits,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async request(member: Membership, dto: CreateReportDto, ip?: string): Promise<ReportDto> {
    const filters: ReportFilters = {};
    const f = dto.filters ?? {};
    if (f.from && f.to && f.from > f.to)
      throw ApiError.unprocessable('validation_error', '`from` is after `to`.', 'filters.from');
    if (f.cohort_id) {
      const cohort = await this.repository.cohort(member.organizationId, f.cohort_id.toLowerCase(), member.userId);
      if (!cohort) throw ApiError.notFound('Cohort not found.');
      if (!isAdmin(member.role) && !cohort.teaches) throw ApiError.forbidden('Only cohorts you teach.');
      filters.cohort_id = f.cohort_id.toLowerCase();
    } else if (!isAdmin(member.role)) {
      throw ApiError.forbidden('A teacher reports on a cohort they teach (`filters.cohort_id`).');
    }
    if (f.course_id) {
      if (!(await this.repository.courseExists(member.organizationId, f.course_id.toLowerCase())))
        throw ApiError.notFound('Course not found.');
      filters.course_id = f.course_id.toLowerCase();
    }
    if (f.from) filters.from = f.from;
    if (f.to) filters.to = f.to;
    const lang = dto.lang ?? (await this.users.getById(member.userId)).locale;
    const now = this.clock.now();
    const report = await this.transactions.run(async (tx) => {
      const reportId = await this.repository.insert(
        {
          organizationId: member.organizationId,
          type: dto.type,
          format: dto.format,
          lang,
          separator: dto.separator ?? 'comma',
          filters,
          requestedBy: member.userId,
          now,
        },
        tx,
      );
      await this.audit.record(
        {
          action: 'report.requested',
          actorId: member.userId,
          organizationId: member.organizationId,
          targetType: 'report',
          targetId: reportId,
          ip,
          metadata: { type: dto.type, format: dto.format },
        },
        tx,
      );
      await this.jobs.enqueue(
        GENERATE_REPORT,
        { report_id: reportId },
        { organizationId: member.organizationId, tx, dedupeKey: `reports.generate:${reportId}` },
      );
      // Read inside the transaction: the job may start the moment it commits, and the answer is the request's
      // own state (`queued`), not whatever the worker has made of it by then.
      return (await this.repository.find(member.organizationId, reportId, tx))!;
    });
    return this.toDto(report);
  }

  async list(member: Membership, query: ReportListQueryDto): Promise<Page<ReportDto>> {
    const { rows, total } = await this.repository.list(member.organizationId, {
      requestedBy: isAdmin(member.role) ? null : member.userId,
      type: query.type,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    const now = this.clock.now();
    return toPage(
      rows.map((r) => this.toDto(this.applyExpiryView(r, now))),
      total,
      query,
    );
  }

  async get(member: Membership, id: string): Promise<ReportDto> {
    return this.toDto(await this.visible(member, id));
  }

  async download(member: Membership, id: string, ip?: string): Promise<ReportDownload> {
    const report = await this.visible(member, id);
    if (report.status === 'expired') throw ApiError.gone('report_expired', 'The report expired.');
    if (report.status !== 'completed' || !report.file_key)
      throw ApiError.conflict('report_not_ready', 'The report is not ready.');
    const org = await this.organizations.getById(member.organizationId);
    // The object can be gone although the row says completed (deleted by an operator, a lifecycle rule, a restore
    // without files): that is an expired report, never a 500.
    const stream = await this.files.read(report.file_key).catch((err: unknown) => {
      if (err instanceof FileNotFoundError) throw ApiError.gone('report_expired', 'The report expired.');
      throw err;
    });
    await this.audit.record({
      action: 'report.downloaded',
      actorId: member.userId,
      organizationId: member.organizationId,
      targetType: 'report',
      targetId: report.id,
      ip,
      metadata: { type: report.type, format: report.format },
    });
    const day = new Date(report.created_at).toISOString().slice(0, 10).replace(/-/g, '');
    return {
      filename: `${report.type}-${org.slug}-${day}.${report.format}`,
      contentType: CONTENT_TYPES[report.format],
      stream,
    };
  }

  async delete(member: Membership, id: string): Promise<void> {
    await this.visible(member, id);
    const deleted = await this.repository.delete(member.organizationId, id.toLowerCase());
    if (!deleted) throw ApiError.notFound();
    if (deleted.file_key) await this.files.delete(deleted.file_key);
  }

  /** The job: builds the file from one snapshot, stores it, and tells the requester. */
  async generate(organizationId: string, reportId: string, attempt: number): Promise<void> {
    const report = await this.repository.start(organizationId, reportId, this.clock.now());
    if (!report) return; // gone, or already finished by an earlier run
    try {
      await this.build(report);
    } catch (err) {
      if (attempt < GENERATE_REPORT.attempts) throw err;
      this.logger.error({ err, reportId }, 'Report failed');
      await this.finishFailed(report, 'internal_error');
    }
  }

  /** The schedule, and the read path: completed reports past `expires_at` become `expired`; files go. */
  async expireDue(): Promise<number> {
    let n = 0;
    for (;;) {
      const due = await this.repository.dueForExpiry(this.clock.now(), 200);
      for (const r of due) {
        const key = await this.repository.expire(r.organization_id, r.id);
        if (key) await this.files.delete(key);
        n++;
      }
      if (due.length < 200) return n;
    }
  }

  private async build(report: ReportRecordRow): Promise<void> {
    const org = await this.organizations.getById(report.organization_id);
    const zone = org.timeZone;
    const filters = report.filters ?? {};
    const cursor = await this.repository.open(
      report.type,
      {
        organizationId: report.organization_id,
        cohortId: filters.cohort_id ?? null,
        courseId: filters.course_id ?? null,
        fromAt: filters.from ? startOfLocalDate(filters.from, zone) : null,
        toAt: filters.to ? endOfLocalDate(filters.to, zone) : null,
      },
      zone,
      this.clock.now(),
    );
    let stored: { sizeBytes: number };
    const key = `reports/${report.organization_id}/${report.id}.${report.format}`;
    // Rows are counted as they stream (one pass over the query, not a count first): past the cap the write
    // fails, the partial file is removed by the store, and the report fails with `report_too_large`.
    const guard = rowGuard(this.limits.maxRows);
    let source: Readable | null = null;
    try {
      source = await cursor.rows();
      source.on('error', (err) => guard.destroy(err));
      source.pipe(guard);
      const columns = REPORT_COLUMNS[report.type];
      if (report.format === 'csv') {
        stored = await this.files.write(key, csvStream(guard, columns, report.separator));
      } else {
        const xlsx = xlsxStream(guard, columns, report.type);
        [stored] = await Promise.all([this.files.write(key, xlsx.stream), xlsx.done]);
      }
    } catch (err) {
      // The cursor's stream must end before its transaction can (the connection serves one statement at a time).
      source?.destroy();
      await cursor.close();
      if (!(err instanceof ReportTooLarge)) throw err;
      await this.finishFailed(report, 'report_too_large');
      return;
    }
    await cursor.close();
    const rows = guard.count;
    const finishedAt = this.clock.now();
    const requester = report.requested_by ? await this.users.getById(report.requested_by).catch(() => null) : null;
    const completed = await this.transactions.run(async (tx) => {
      const done = await this.repository.complete(
        report.organization_id,
        report.id,
        {
          rows,
          sizeBytes: stored.sizeBytes,
          fileKey: key,
          finishedAt,
          expiresAt: new Date(finishedAt.getTime() + REPORT_LIFETIME_MS),
        },
        tx,
      );
      if (!done) return false;
      await this.notify(tx, report, 'completed', requester, org.name);
      return true;
    });
    // Deleted while it was being built: nothing points at the file any more.
    if (!completed) await this.files.delete(key);
  }

  private async finishFailed(report: ReportRecordRow, errorCode: string): Promise<void> {
    const org = await this.organizations.getById(report.organization_id);
    const requester = report.requested_by ? await this.users.getById(report.requested_by).catch(() => null) : null;
    await this.transactions.run(async (tx) => {
      if (!(await this.repository.fail(report.organization_id, report.id, errorCode, this.clock.now(), tx))) return;
      await this.notify(tx, report, 'failed', requester, org.name, errorCode);
    });
  }

  private async notify(
    tx: Parameters<Parameters<TransactionRunner['run']>[0]>[0],
    report: ReportRecordRow,
    status: 'completed' | 'failed',
    requester: { id: string; email: string; locale: 'es' | 'en' } | null,
    organizationName: string,
    errorCode?: string,
  ): Promise<void> {
    if (!requester) return;
    await this.events.publish(
      tx,
      'report.finished',
      { report_id: report.id, status, requested_by: requester.id },
      { organizationId: report.organization_id, actorId: null },
    );
    const params = {
      type: report.type,
      url: `${this.config.webUrl}/org/reports/${report.id}`,
      organization: organizationName,
    };
    const options = {
      to: requester.email,
      locale: resolveLocale(requester.locale, report.lang),
      organizationId: report.organization_id,
      tx,
      dedupeKey: `reports.${status}:${report.id}`,
    };
    if (status === 'completed') await this.mail.send(REPORT_READY, params, options);
    else await this.mail.send(REPORT_FAILED, { ...params, tooLarge: errorCode === 'report_too_large' }, options);
  }

  /** The report if the member may see it (owner/admin: all; teacher: own), applying its expiry first (2.3). */
  private async visible(member: Membership, id: string): Promise<ReportRecordRow> {
    let report = await this.repository.find(member.organizationId, id.toLowerCase());
    if (!report || (!isAdmin(member.role) && report.requested_by !== member.userId)) throw ApiError.notFound();
    if (report.status === 'completed' && report.expires_at && new Date(report.expires_at) <= this.clock.now()) {
      const key = await this.repository.expire(member.organizationId, report.id);
      if (key) await this.files.delete(key);
      report = { ...report, status: 'expired', file_key: null };
    }
    return report;
  }

  private applyExpiryView(r: ReportRecordRow, now: Date): ReportRecordRow {
    return r.status === 'completed' && r.expires_at && new Date(r.expires_at) <= now ? { ...r, status: 'expired' } : r;
  }

  private toDto(r: ReportRecordRow): ReportDto {
    return {
      id: r.id,
      type: r.type,
      format: r.format,
      lang: r.lang,
      separator: r.separator,
      filters: r.filters ?? {},
      status: r.status,
      rows: r.rows,
      size_bytes: r.size_bytes === null ? null : Number(r.size_bytes),
      error_code: r.error_code,
      requested_by: { user_id: r.requested_by, name: r.requester_name },
      created_at: iso(r.created_at)!,
      started_at: iso(r.started_at),
      finished_at: iso(r.finished_at),
      expires_at: iso(r.expires_at),
    };
  }
}
