import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { isUniqueViolation } from '@/core/database/constraint-violation';
import { TransactionRunner, type Tx } from '@/core/database/transaction';
import { FileNotFoundError, FileStore } from '@/core/files/file-store';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { MailService } from '@/core/mail/mail.service';
import { PersonalDataRegistry } from '@/core/privacy/personal-data';
import { JobsService } from '@/core/queue/jobs.service';
import { UsersService } from '@/modules/identity/users';
import type { ExportDto } from './dto/privacy.dto';
import { type ExportArea, exportArchive, type Manifest } from './export-archive';
import { BUILD_EXPORT } from './privacy.jobs';
import { EXPORT_READY } from './privacy.mails';
import { type ExportRow, PrivacyRepository } from './privacy.repository';

/** A ready export is kept 7 days (extensions-v2 17.3). */
export const EXPORT_LIFETIME_MS = 7 * 24 * 3600 * 1000;

const exportDto = (r: ExportRow): ExportDto => ({
  id: r.id,
  status: r.status,
  size_bytes: r.size_bytes === null ? null : Number(r.size_bytes),
  created_at: r.created_at.toISOString(),
  ready_at: r.ready_at ? r.ready_at.toISOString() : null,
  expires_at: r.expires_at ? r.expires_at.toISOString() : null,
});

/**
 * Data exports (extensions-v2 17.3): a job calls every exporter of the personal-data registry inside one
 * read-only snapshot and streams a ZIP into the FileStore, encrypted at rest; an email says it is ready; the
 * download needs a step-up; 7 days after it is ready the file is deleted (schedule, and on read).
 */
@Injectable()
export class PrivacyExportsService {
  private readonly logger = new Logger('PrivacyExports');

  constructor(
    private readonly repo: PrivacyRepository,
    private readonly registry: PersonalDataRegistry,
    private readonly files: FileStore,
    private readonly jobs: JobsService,
    private readonly mail: MailService,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async request(userId: string): Promise<ExportDto> {
    try {
      return await this.transactions.run(async (tx) => {
        const row = await this.repo.insertExport(userId, this.clock.now(), tx);
        await this.jobs.enqueue(
          BUILD_EXPORT,
          { export_id: row.id, user_id: userId },
          { organizationId: null, tx, dedupeKey: `privacy.export:${row.id}` },
        );
        return exportDto(row);
      });
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw ApiError.conflict('export_in_progress', 'An export is already being prepared.');
      }
      throw err;
    }
  }

  async list(userId: string, limit = 10): Promise<{ items: ExportDto[] }> {
    const rows = await this.repo.listExports(userId, limit);
    const items: ExportDto[] = [];
    for (const row of rows) items.push(exportDto(await this.applyExpiry(row)));
    return { items };
  }

  async get(userId: string, exportId: string): Promise<ExportDto> {
    return exportDto(await this.applyExpiry(await this.find(userId, exportId)));
  }

  private async find(userId: string, exportId: string): Promise<ExportRow> {
    const row = isUuid(exportId) ? await this.repo.findExport(userId, exportId.toLowerCase()) : null;
    if (!row) throw ApiError.notFound('No such export.');
    return row;
  }

  /** A ready export past its expiry is expired on read (its file deleted) before anything else. */
  private async applyExpiry(row: ExportRow): Promise<ExportRow> {
    if (row.status !== 'ready' || !row.expires_at || row.expires_at.getTime() > this.clock.nowMs()) return row;
    await this.expire(row);
    return { ...row, status: 'expired', file_key: null };
  }

  private async expire(row: ExportRow): Promise<void> {
    if (row.file_key) await this.files.delete(row.file_key);
    await this.repo.markExpired(row.id);
  }

  async download(
    userId: string,
    exportId: string,
    ip: string | undefined,
  ): Promise<{ filename: string; stream: Readable; sizeBytes: number | null }> {
    const row = await this.applyExpiry(await this.find(userId, exportId));
    if (row.status === 'expired') throw ApiError.gone('export_expired', 'This export has expired.');
    if (row.status !== 'ready' || !row.file_key || !row.ready_at) {
      throw ApiError.conflict('export_not_ready', 'This export is not ready.');
    }
    // A missing object (deleted outside the application) is an expired export, never a 500.
    const stream = await this.files.read(row.file_key).catch((err: unknown) => {
      if (err instanceof FileNotFoundError) throw ApiError.gone('export_expired', 'This export has expired.');
      throw err;
    });
    await this.audit.record({
      action: 'privacy.export_downloaded',
      actorId: userId,
      organizationId: null,
      targetType: 'privacy_export',
      targetId: row.id,
      ip,
    });
    const day = row.ready_at.toISOString().slice(0, 10).replace(/-/g, '');
    return {
      filename: `export-${day}.zip`,
      stream,
      sizeBytes: row.size_bytes === null ? null : Number(row.size_bytes),
    };
  }

  /**
   * The job: builds the ZIP from every registered exporter in one REPEATABLE READ, read-only snapshot (the files
   * agree with each other), streams it encrypted into the FileStore, then marks the export ready and queues the
   * email in one transaction. A retry starts over (the file is replaced); the last failed try marks it failed.
   */
  async build(exportId: string, userId: string, attempt: number): Promise<Manifest | null> {
    const row = await this.repo.startExport(exportId, userId);
    if (!row) return null;
    try {
      const user = await this.users.findById(userId);
      if (!user || user.erasedAt) {
        await this.repo.failExport(exportId);
        return null;
      }
      const locale = this.users.emailLocale(user);
      const key = `privacy-exports/${userId}/${exportId}.zip`;
      const generatedAt = this.clock.now();
      // One snapshot for every exporter (the files agree with each other); exporters may page with a cursor in it.
      const { manifest, sizeBytes } = await this.transactions.snapshot(async (manager) => {
        const areas: ExportArea[] = [...this.registry.byArea()].map(([area, handlers]) => ({
          area,
          sections: handlers.map((h) => ({ key: h.key, rows: () => h.handler.export(userId, manager) })),
        }));
        const archive = exportArchive(areas, { userId, generatedAt, locale });
        const [stored] = await Promise.all([
          this.files.write(key, archive.stream, { encrypt: true }),
          archive.finalize(),
        ]);
        return { manifest: archive.manifest, sizeBytes: stored.sizeBytes };
      });
      const readyAt = this.clock.now();
      const expiresAt = new Date(readyAt.getTime() + EXPORT_LIFETIME_MS);
      await this.transactions.run(async (tx) => {
        if (!(await this.repo.finishExport(exportId, { fileKey: key, sizeBytes, readyAt, expiresAt }, tx))) return;
        await this.mail.send(
          EXPORT_READY,
          { url: `${this.config.webUrl}/settings/privacy`, expiresAt },
          { to: user.email, locale, organizationId: null, tx, dedupeKey: `privacy.export_ready:${exportId}` },
        );
      });
      return manifest;
    } catch (err) {
      if (attempt >= BUILD_EXPORT.attempts) {
        this.logger.error({ err, exportId }, 'Data export failed on its last try');
        await this.repo.failExport(exportId);
      }
      throw err;
    }
  }

  /** The schedule: ready exports past their expiry lose their file and become `expired`. */
  async expireDue(): Promise<number> {
    let count = 0;
    for (;;) {
      const due = await this.repo.dueExpiries(this.clock.now(), 100);
      for (const row of due) await this.expire(row);
      count += due.length;
      if (due.length < 100) return count;
    }
  }

  /** Erasure of the person's exports: files, then rows. */
  async eraseAll(userId: string, tx: Tx): Promise<void> {
    for (const row of await this.repo.exportsOf(userId, tx)) {
      if (row.file_key) await this.files.delete(row.file_key);
    }
    await this.repo.deleteExportsOf(userId, tx);
  }
}
