import { Injectable } from '@nestjs/common';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { AuditLogRepository } from './audit-log.repository';
import type { AuditEntryDto, AuditQueryDto, PlatformAuditEntryDto, PlatformAuditQueryDto } from './dto/audit-entry.dto';

/** The audit log of an organization, for its owner and admins. */
@Injectable()
export class AuditLogService {
  constructor(private readonly entries: AuditLogRepository) {}

  async list(organizationId: string, query: AuditQueryDto): Promise<Page<AuditEntryDto>> {
    const since = query.since ? new Date(query.since) : undefined;
    const until = query.until ? new Date(query.until) : undefined;
    if (since && until && since.getTime() > until.getTime()) {
      throw ApiError.validation([{ field: 'until', message: 'until must not be before since' }]);
    }
    const { rows, total } = await this.entries.list(organizationId, { action: query.action, since, until }, query);
    return toPage(
      rows.map((row) => ({
        id: row.id,
        action: row.action,
        actor_id: row.actor_id,
        target_type: row.target_type,
        target_id: row.target_id,
        ip_fingerprint: row.ip_fingerprint,
        metadata: row.metadata,
        created_at: row.created_at.toISOString(),
      })),
      total,
      query,
    );
  }

  async listAll(query: PlatformAuditQueryDto): Promise<Page<PlatformAuditEntryDto>> {
    const since = query.since ? new Date(query.since) : undefined;
    const until = query.until ? new Date(query.until) : undefined;
    if (since && until && since.getTime() > until.getTime()) {
      throw ApiError.validation([{ field: 'until', message: 'until must not be before since' }]);
    }
    const { rows, total } = await this.entries.listAll(
      {
        action: query.action,
        since,
        until,
        organizationId: query.organization_id?.toLowerCase(),
        actorId: query.actor_id?.toLowerCase(),
      },
      query,
    );
    return toPage(
      rows.map((row) => ({
        id: row.id,
        action: row.action,
        actor_id: row.actor_id,
        organization_id: row.organization_id,
        target_type: row.target_type,
        target_id: row.target_id,
        ip_fingerprint: row.ip_fingerprint,
        metadata: row.metadata,
        created_at: row.created_at.toISOString(),
      })),
      total,
      query,
    );
  }
}
