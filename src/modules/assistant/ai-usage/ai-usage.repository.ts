import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import type { AiCallStatus, AiFeature, AiProviderName, OrgGroup, PlatformGroup } from './dto/ai-usage.dto';
import type { Window } from './quota-windows';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

/** One provider call as metered (extensions-v2 24.1). */
export interface MeteredCall {
  occurredAt: Date;
  /** Null for platform work (quiz proposals). */
  organizationId: string | null;
  userId: string | null;
  feature: AiFeature;
  provider: AiProviderName;
  model: string;
  inputTokens: number;
  outputTokens: number;
  status: AiCallStatus;
  requestId: string | null;
}

export interface SettingsRow {
  tutor_enabled: boolean;
  minors_allowed: boolean;
  per_member_daily_tokens: number | null;
}

export interface Totals {
  requests: number;
  input_tokens: number;
  output_tokens: number;
}

export interface GroupRow extends Totals {
  key: string | null;
}

/** Which rows a person's view counts: every organization (and platform work), or one organization only. */
export type OrganizationFilter = { kind: 'all' } | { kind: 'one'; organizationId: string };

const GROUP_EXPRESSIONS: Record<OrgGroup | PlatformGroup, string> = {
  day: `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  member: 'user_id::text',
  feature: 'feature',
  organization: 'organization_id::text',
  provider: 'provider',
};

const SUMS = `count(*)::int AS requests, coalesce(sum(input_tokens), 0)::bigint AS input_tokens,
  coalesce(sum(output_tokens), 0)::bigint AS output_tokens`;

/** Sums come back as strings (bigint); a platform's totals can pass 2^31. */
function totals(row: { requests: number; input_tokens: string | number; output_tokens: string | number }): Totals {
  return { requests: row.requests, input_tokens: Number(row.input_tokens), output_tokens: Number(row.output_tokens) };
}

/**
 * Metered AI calls and the organizations' AI settings. Every sum is over a `[start, end)` window served by an index
 * that leads with what the window is about: `ai_usage_org_time_idx` (organization quotas and views),
 * `ai_usage_user_time_idx` (a member's day, a person's own usage), `ai_usage_time_idx` (the platform).
 */
@Injectable()
export class AiUsageRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(call: MeteredCall, tx?: Tx): Promise<void> {
    await db(this.dataSource, tx).query(
      `INSERT INTO ai_usage (occurred_at, organization_id, user_id, feature, provider, model, input_tokens,
         output_tokens, status, request_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [
        call.occurredAt,
        call.organizationId,
        call.userId,
        call.feature,
        call.provider,
        call.model,
        call.inputTokens,
        call.outputTokens,
        call.status,
        call.requestId,
      ],
    );
  }

  async memberTokens(organizationId: string, userId: string, window: Window, tx?: Tx): Promise<number> {
    const [row] = await db(this.dataSource, tx).query<{ tokens: string }[]>(
      `SELECT coalesce(sum(input_tokens + output_tokens), 0)::bigint AS tokens FROM ai_usage
       WHERE user_id = $2 AND occurred_at >= $3 AND occurred_at < $4 AND ${orgEq(1)}`,
      [organizationId, userId, window.start, window.end],
    );
    return Number(row.tokens);
  }

  async organizationTotals(organizationId: string, window: Window, tx?: Tx): Promise<Totals> {
    const [row] = await db(this.dataSource, tx).query<Parameters<typeof totals>[0][]>(
      `SELECT ${SUMS} FROM ai_usage WHERE ${orgEq(1)} AND occurred_at >= $2 AND occurred_at < $3`,
      [organizationId, window.start, window.end],
    );
    return totals(row);
  }

  async settings(organizationId: string, tx?: Tx): Promise<SettingsRow | null> {
    const rows = await db(this.dataSource, tx).query<SettingsRow[]>(
      `SELECT tutor_enabled, minors_allowed, per_member_daily_tokens FROM organization_ai_settings
       WHERE ${orgEq(1)}`,
      [organizationId],
    );
    return rows[0] ?? null;
  }

  /** The settings row, locked (created with the defaults when missing) so concurrent updates apply one by one. */
  async lockSettings(organizationId: string, now: Date, tx: Tx): Promise<SettingsRow> {
    await tx.manager.query(
      `INSERT INTO organization_ai_settings (organization_id, updated_at) VALUES ($1, $2)
       ON CONFLICT (organization_id) DO NOTHING`,
      [organizationId, now],
    );
    const [row] = await tx.manager.query<SettingsRow[]>(
      `SELECT tutor_enabled, minors_allowed, per_member_daily_tokens FROM organization_ai_settings
       WHERE ${orgEq(1)} FOR UPDATE`,
      [organizationId],
    );
    return row;
  }

  async saveSettings(organizationId: string, values: SettingsRow, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE organization_ai_settings SET tutor_enabled = $2, minors_allowed = $3, per_member_daily_tokens = $4,
         updated_at = $5 WHERE ${orgEq(1)}`,
      [organizationId, values.tutor_enabled, values.minors_allowed, values.per_member_daily_tokens, now],
    );
  }

  // A person's own usage.

  private personWhere(userId: string, organizations: OrganizationFilter, window: Window): [string, unknown[]] {
    const params: unknown[] = [userId, window.start, window.end];
    let where = 'user_id = $1 AND occurred_at >= $2 AND occurred_at < $3';
    if (organizations.kind === 'one') {
      params.push(organizations.organizationId);
      where += ` AND ${orgEq(4)}`;
    } else {
      where = `${tenancyExempt('person-across-organizations')} ${where}`;
    }
    return [where, params];
  }

  async personTotals(userId: string, organizations: OrganizationFilter, window: Window): Promise<Totals> {
    const [where, params] = this.personWhere(userId, organizations, window);
    const [row] = await this.dataSource.query<Parameters<typeof totals>[0][]>(
      `SELECT ${SUMS} FROM ai_usage WHERE ${where}`,
      params,
    );
    return totals(row);
  }

  async personGroups(
    userId: string,
    organizations: OrganizationFilter,
    window: Window,
    by: 'day' | 'organization',
  ): Promise<GroupRow[]> {
    const [where, params] = this.personWhere(userId, organizations, window);
    const rows = await this.dataSource.query<(Parameters<typeof totals>[0] & { key: string | null })[]>(
      `SELECT ${GROUP_EXPRESSIONS[by]} AS key, ${SUMS} FROM ai_usage WHERE ${where} GROUP BY 1`,
      params,
    );
    return rows.map((r) => ({ key: r.key, ...totals(r) }));
  }

  // An organization's and the platform's views.

  async organizationGroups(organizationId: string, window: Window, by: OrgGroup): Promise<GroupRow[]> {
    const rows = await this.dataSource.query<(Parameters<typeof totals>[0] & { key: string | null })[]>(
      `SELECT ${GROUP_EXPRESSIONS[by]} AS key, ${SUMS} FROM ai_usage
       WHERE ${orgEq(1)} AND occurred_at >= $2 AND occurred_at < $3 GROUP BY 1`,
      [organizationId, window.start, window.end],
    );
    return rows.map((r) => ({ key: r.key, ...totals(r) }));
  }

  async platformTotals(window: Window): Promise<Totals> {
    const [row] = await this.dataSource.query<Parameters<typeof totals>[0][]>(
      `${tenancyExempt('platform-admin')} SELECT ${SUMS} FROM ai_usage WHERE occurred_at >= $1 AND occurred_at < $2`,
      [window.start, window.end],
    );
    return totals(row);
  }

  async platformGroups(window: Window, by: PlatformGroup): Promise<GroupRow[]> {
    const rows = await this.dataSource.query<(Parameters<typeof totals>[0] & { key: string | null })[]>(
      `${tenancyExempt('platform-admin')} SELECT ${GROUP_EXPRESSIONS[by]} AS key, ${SUMS} FROM ai_usage
       WHERE occurred_at >= $1 AND occurred_at < $2 GROUP BY 1`,
      [window.start, window.end],
    );
    return rows.map((r) => ({ key: r.key, ...totals(r) }));
  }

  // Personal data (extensions-v2 17.4: kept with user_id null, so organization totals stay right).

  personRows(userId: string, db: EntityManager): Promise<Record<string, unknown>[]> {
    return db.query(
      `${tenancyExempt('person-across-organizations')} SELECT id, occurred_at, organization_id, feature, provider, model, input_tokens, output_tokens, status
       FROM ai_usage WHERE user_id = $1 ORDER BY occurred_at, id`,
      [userId],
    );
  }

  async forgetPerson(userId: string, tx: Tx): Promise<void> {
    await tx.manager.query(
      `${tenancyExempt('person-across-organizations')} UPDATE ai_usage SET user_id = NULL WHERE user_id = $1`,
      [userId],
    );
  }

  /** Serializes the organization's quota decisions until the transaction ends. */
  async lockQuotas(organizationId: string, tx: Tx): Promise<void> {
    await tx.manager.query(`SELECT pg_advisory_xact_lock(hashtextextended('ai-quota:' || $1, 0))`, [organizationId]);
  }
}
