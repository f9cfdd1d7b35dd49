import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface AuditRow {
  id: string;
  action: string;
  actor_id: string | null;
  target_type: string | null;
  target_id: string | null;
  ip_fingerprint: string | null;
  metadata: Record<string, unknown>;
  created_at: Date;
}

export interface AuditFilter {
  action?: string;
  since?: Date;
  until?: Date;
}

export interface PlatformAuditFilter extends AuditFilter {
  /** An organization, `none` for platform-level entries, or undefined for all. */
  organizationId?: string;
  actorId?: string;
}

export interface PlatformAuditRow extends AuditRow {
  organization_id: string | null;
}

/**
 * Reads the audit log of one organization (the writer is the core AuditService). Every query takes the
 * organization id; with `action` it is served by `audit_log_org_action_time_idx`, without by
 * `audit_log_org_created_idx`, both in the list's order (created_at DESC, id DESC).
 */
@Injectable()
export class AuditLogRepository {
  constructor(private readonly dataSource: DataSource) {}

  async list(
    organizationId: string,
    filter: AuditFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: AuditRow[]; total: number }> {
    const params: unknown[] = [organizationId];
    const where = [orgEq(1)];
    if (filter.action !== undefined) {
      params.push(filter.action);
      where.push(`action = $${params.length}`);
    }
    if (filter.since) {
      params.push(filter.since);
      where.push(`created_at >= $${params.length}`);
    }
    if (filter.until) {
      params.push(filter.until);
      where.push(`created_at <= $${params.length}`);
    }
    const condition = where.join(' AND ');
    const [rows, count] = await Promise.all([
      this.dataSource.query<AuditRow[]>(
        `SELECT id, action, actor_id, target_type, target_id, ip_fingerprint, metadata, created_at
         FROM audit_log_read WHERE ${condition}
         ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM audit_log_read WHERE ${condition}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }

  /** The platform audit (16.3): every organization's entries and the platform-level ones. */
  async listAll(
    filter: PlatformAuditFilter,
    page: { limit: number; offset: number },
  ): Promise<{ rows: PlatformAuditRow[]; total: number }> {
    const params: unknown[] = [];
    // The platform's view over every organization; the organization filter, when given, is built as usual.
    const where: string[] = [`${tenancyExempt('platform-admin')} true`];
    if (filter.organizationId === 'none') where.push('organization_id IS NULL');
    else if (filter.organizationId) {
      params.push(filter.organizationId);
      where.push(orgEq(params.length));
    }
    if (filter.actorId) {
      params.push(filter.actorId);
      where.push(`actor_id = $${params.length}`);
    }
    if (filter.action !== undefined) {
      params.push(filter.action);
      where.push(`action = $${params.length}`);
    }
    if (filter.since) {
      params.push(filter.since);
      where.push(`created_at >= $${params.length}`);
    }
    if (filter.until) {
      params.push(filter.until);
      where.push(`created_at <= $${params.length}`);
    }
    const condition = where.join(' AND ');
    const [rows, count] = await Promise.all([
      this.dataSource.query<PlatformAuditRow[]>(
        `SELECT id, action, actor_id, organization_id, target_type, target_id, ip_fingerprint, metadata, created_at
         FROM audit_log_read WHERE ${condition}
         ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM audit_log_read WHERE ${condition}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }
}
