import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { requestContext } from '@/core/logging/request-context';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { AiUsageRepository, type GroupRow, type MeteredCall, type OrganizationFilter } from './ai-usage.repository';
import type {
  AiProviderName,
  AiQuota,
  AiSettingsDto,
  MyAiUsageDto,
  OrganizationAiUsageDto,
  OrganizationUsageQueryDto,
  PlatformAiUsageDto,
  PlatformUsageQueryDto,
  UpdateAiSettingsDto,
  UsageGroupDto,
  UsagePeriodQueryDto,
} from './dto/ai-usage.dto';
import { datesOf, type Period, periodWindow, resolvePeriod, secondsUntil, utcDay, utcMonth } from './quota-windows';

/** The settings of an organization that has never changed them. */
const DEFAULT_SETTINGS = { tutor_enabled: true, minors_allowed: false, per_member_daily_tokens: null };

const QUOTA_MESSAGES: Record<AiQuota, string> = {
  member_daily_tokens: 'You have used your AI tokens for today in this organization.',
  organization_monthly_tokens: 'The organization has used its AI tokens for this month.',
  organization_monthly_requests: 'The organization has used its AI requests for this month.',
};

/** A metered call as callers describe it: the time, status and request id are filled in here when left out. */
export type CallToMeter = Omit<MeteredCall, 'occurredAt' | 'requestId'> & { occurredAt?: Date; requestId?: string };

/**
 * AI consumption and quotas (extensions-v2 24): every provider call is metered here in the caller's transaction;
 * quotas are checked before a call against the metered rows; the organization's AI settings; usage views for a
 * person, an organization and the platform.
 */
@Injectable()
export class AiUsageService {
  constructor(
    private readonly usage: AiUsageRepository,
    private readonly organizations: OrganizationsService,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The provider this deployment uses: remote when `AI_BASE_URL` is set. */
  get provider(): AiProviderName {
    return this.config.ai.remote ? 'openai_compatible' : 'local';
  }

  /** Writes one metered call (in `tx` when given, so it commits or rolls back with what it paid for). */
  async record(call: CallToMeter, tx?: Tx): Promise<void> {
    await this.usage.insert(
      {
        ...call,
        occurredAt: call.occurredAt ?? this.clock.now(),
        requestId: call.requestId ?? requestContext.getStore()?.requestId ?? null,
      },
      tx,
    );
  }

  /**
   * Refuses a call once a quota is reached (used >= limit), in the order of extensions-v2 24.3: the member's tokens
   * today, the organization's tokens this month, its requests this month. 429 `ai_quota_exceeded` with `Retry-After`
   * (seconds until that window ends) and `X-AI-Quota` (which one). A call that starts under every quota is not cut.
   *
   * With `reservation` (extensions-v3 6.8, inside the caller's transaction after `lockQuotas`): what answers in
   * progress reserved counts as used, and when any is in progress this call's own reservation (its maximum output
   * plus its prompt estimate, and one request) must fit too, so concurrent calls cannot pass a quota together; a
   * lone call keeps the rule above.
   */
  async checkQuota(organizationId: string, userId: string): Promise<QuotaLimits> {
    const [settings, limits] = await Promise.all([
      this.settingsRow(organizationId),
      this.organizations.aiLimits(organizationId),
    ]);
    const quota = { perMemberDailyTokens: settings.per_member_daily_tokens, ...limits };
    await this.decide(organizationId, userId, quota);
    return quota;
  }

  /**
   * The check again with this call's reservation, inside the caller's transaction after `lockQuotas` (every read on
   * that transaction's connection: a second connection could wait for a pool held by calls waiting on the lock).
   */
  async checkReservation(
    organizationId: string,
    userId: string,
    limits: QuotaLimits,
    reservation: { tokens: number; inFlight: { memberTokens: number; tokens: number; requests: number } },
    tx: Tx,
  ): Promise<void> {
    await this.decide(organizationId, userId, limits, reservation, tx);
  }

  private async decide(
    organizationId: string,
    userId: string,
    limits: QuotaLimits,
    reservation?: { tokens: number; inFlight: { memberTokens: number; tokens: number; requests: number } },
    tx?: Tx,
  ): Promise<void> {
    const now = this.clock.now();
    const day = utcDay(now);
    const month = utcMonth(now);
    const inFlight = reservation?.inFlight ?? { memberTokens: 0, tokens: 0, requests: 0 };
    const mine = reservation?.tokens ?? 0;
    const over = (used: number, held: number, limit: number): boolean =>
      used + held >= limit || (held > 0 && used + held + mine > limit);
    if (limits.perMemberDailyTokens !== null) {
      const used = await this.usage.memberTokens(organizationId, userId, day, tx);
      if (over(used, inFlight.memberTokens, limits.perMemberDailyTokens)) {
        throw quotaReached('member_daily_tokens', day.end, now);
      }
    }
    if (limits.monthlyTokens === null && limits.monthlyRequests === null) return;
    const spent = await this.usage.organizationTotals(organizationId, month, tx);
    if (
      limits.monthlyTokens !== null &&
      over(spent.input_tokens + spent.output_tokens, inFlight.tokens, limits.monthlyTokens)
    ) {
      throw quotaReached('organization_monthly_tokens', month.end, now);
    }
    if (limits.monthlyRequests !== null && spent.requests + inFlight.requests >= limits.monthlyRequests) {
      throw quotaReached('organization_monthly_requests', month.end, now);
    }
  }

  /**
   * Serializes quota decisions of one organization until the caller's transaction ends (extensions-v3 6.8): the
   * in-flight sums, the check and the reservation are one step for concurrent messages.
   */
  async lockQuotas(organizationId: string, tx: Tx): Promise<void> {
    await this.usage.lockQuotas(organizationId, tx);
  }

  /** The organization's AI use this UTC month and when the month ends. */
  async organizationMonth(organizationId: string): Promise<{ requests: number; tokens: number; resetsAt: Date }> {
    const month = utcMonth(this.clock.now());
    const spent = await this.usage.organizationTotals(organizationId, month);
    return { requests: spent.requests, tokens: spent.input_tokens + spent.output_tokens, resetsAt: month.end };
  }

  // Settings (extensions-v2 24.2).

  async settings(organizationId: string): Promise<AiSettingsDto> {
    const [row, limits] = await Promise.all([
      this.settingsRow(organizationId),
      this.organizations.aiLimits(organizationId),
    ]);
    return {
      ...row,
      monthly_tokens_limit: limits.monthlyTokens,
      monthly_requests_limit: limits.monthlyRequests,
      provider: this.provider,
    };
  }

  /** Keys left out keep their value; a change is audited (`ai_settings.updated`) with the fields and their values. */
  async updateSettings(
    organizationId: string,
    dto: UpdateAiSettingsDto,
    actorId: string,
    ip: string | undefined,
  ): Promise<AiSettingsDto> {
    await this.transactions.run(async (tx) => {
      const now = this.clock.now();
      const current = await this.usage.lockSettings(organizationId, now, tx);
      const next = {
        tutor_enabled: dto.tutor_enabled ?? current.tutor_enabled,
        minors_allowed: dto.minors_allowed ?? current.minors_allowed,
        per_member_daily_tokens:
          dto.per_member_daily_tokens === undefined ? current.per_member_daily_tokens : dto.per_member_daily_tokens,
      };
      const changed = (Object.keys(next) as (keyof typeof next)[]).filter((k) => next[k] !== current[k]);
      if (changed.length === 0) return;
      await this.usage.saveSettings(organizationId, next, now, tx);
      await this.audit.record(
        {
          action: 'ai_settings.updated',
          actorId,
          organizationId,
          targetType: 'organization',
          targetId: organizationId,
          ip,
          metadata: Object.fromEntries([
            ['fields', changed],
            ...changed.flatMap((k) => [
              [`${k}_before`, current[k]],
              [`${k}_after`, next[k]],
            ]),
          ]) as Record<string, string[] | boolean | number | null>,
        },
        tx,
      );
    });
    return this.settings(organizationId);
  }

  /** The tutor's switches for one organization. */
  async tutorSwitches(organizationId: string): Promise<{ tutorEnabled: boolean; minorsAllowed: boolean }> {
    const row = await this.settingsRow(organizationId);
    return { tutorEnabled: row.tutor_enabled, minorsAllowed: row.minors_allowed };
  }

  // Usage views.

  /**
   * The caller's own usage over the period. A bearer token counts its organization only; `today` is about the
   * token's organization, else the session's active one (with that organization's daily limit); without an active
   * organization it counts every organization and has no limit.
   */
  async mine(credential: Credential, query: UsagePeriodQueryDto): Promise<MyAiUsageDto> {
    const period = this.period(query);
    const window = periodWindow(period);
    const scope: OrganizationFilter = credential.organizationId
      ? { kind: 'one', organizationId: credential.organizationId }
      : { kind: 'all' };
    const todayOrg =
      credential.organizationId ??
      (await this.organizations.requestOrganization(credential).then(
        ({ organization }) => organization.id,
        () => null,
      ));
    const today = utcDay(this.clock.now());
    const [totals, days, orgs, todayTotals, todaySettings] = await Promise.all([
      this.usage.personTotals(credential.userId, scope, window),
      this.usage.personGroups(credential.userId, scope, window, 'day'),
      this.usage.personGroups(credential.userId, scope, window, 'organization'),
      this.usage.personTotals(
        credential.userId,
        todayOrg ? { kind: 'one', organizationId: todayOrg } : { kind: 'all' },
        today,
      ),
      todayOrg ? this.settingsRow(todayOrg) : Promise.resolve(null),
    ]);
    const byDate = new Map(days.map((d) => [d.key, d]));
    const names = await this.organizationNames(orgs.map((o) => o.key));
    return {
      period,
      totals,
      by_day: datesOf(period).map((date) => {
        const d = byDate.get(date);
        return { date, requests: d?.requests ?? 0, tokens: d ? d.input_tokens + d.output_tokens : 0 };
      }),
      by_organization: orgs
        .map((o) => ({
          organization_id: o.key,
          name: o.key ? (names.get(o.key) ?? null) : null,
          requests: o.requests,
          tokens: o.input_tokens + o.output_tokens,
        }))
        .sort((a, b) => b.tokens - a.tokens || (a.organization_id ?? '').localeCompare(b.organization_id ?? '')),
      today: {
        tokens: todayTotals.input_tokens + todayTotals.output_tokens,
        limit: todaySettings?.per_member_daily_tokens ?? null,
      },
    };
  }

  async organizationUsage(organizationId: string, query: OrganizationUsageQueryDto): Promise<OrganizationAiUsageDto> {
    const period = this.period(query);
    const window = periodWindow(period);
    const [totals, groups, month, limits] = await Promise.all([
      this.usage.organizationTotals(organizationId, window),
      this.usage.organizationGroups(organizationId, window, query.group_by),
      this.organizationMonth(organizationId),
      this.organizations.aiLimits(organizationId),
    ]);
    const labels =
      query.group_by === 'member' ? await this.memberNames(groups.map((g) => g.key)) : new Map<string, string>();
    return {
      period,
      totals,
      groups: sortGroups(
        groups.map((g) => toGroup(g, labels)),
        query.group_by === 'day',
      ),
      quota: {
        monthly_tokens_limit: limits.monthlyTokens,
        monthly_tokens_used: month.tokens,
        monthly_requests_limit: limits.monthlyRequests,
        monthly_requests_used: month.requests,
        resets_at: month.resetsAt.toISOString(),
      },
    };
  }

  async platformUsage(query: PlatformUsageQueryDto): Promise<PlatformAiUsageDto> {
    const period = this.period(query);
    const window = periodWindow(period);
    const [totals, groups] = await Promise.all([
      this.usage.platformTotals(window),
      this.usage.platformGroups(window, query.group_by),
    ]);
    const labels =
      query.group_by === 'organization'
        ? await this.organizationNames(groups.map((g) => g.key))
        : new Map<string, string>();
    return {
      period,
      totals,
      groups: sortGroups(
        groups.map((g) => toGroup(g, labels)),
        query.group_by === 'day',
      ),
    };
  }

  private async settingsRow(
    organizationId: string,
  ): Promise<{ tutor_enabled: boolean; minors_allowed: boolean; per_member_daily_tokens: number | null }> {
    return (await this.usage.settings(organizationId)) ?? DEFAULT_SETTINGS;
  }

  private period(query: UsagePeriodQueryDto): Period {
    const period = resolvePeriod(query, this.clock.now());
    if (!period) {
      throw ApiError.validation([
        { field: 'to', message: 'to must not be before from, and the period at most 366 days' },
      ]);
    }
    return period;
  }

  private async organizationNames(ids: (string | null)[]): Promise<Map<string, string>> {
    const known = ids.filter((id): id is string => id !== null);
    const orgs = await Promise.all(known.map((id) => this.organizations.findById(id)));
    return new Map(orgs.flatMap((o) => (o ? [[o.id, o.name] as [string, string]] : [])));
  }

  private async memberNames(ids: (string | null)[]): Promise<Map<string, string>> {
    const users = await this.users.findByIds(ids.filter((id): id is string => id !== null));
    return new Map(users.map((u) => [u.id, u.name ?? u.username]));
  }
}

/** The limits a quota decision compares with (null: no limit). */
export interface QuotaLimits {
  perMemberDailyTokens: number | null;
  monthlyTokens: number | null;
  monthlyRequests: number | null;
}

function quotaReached(quota: AiQuota, end: Date, now: Date): ApiError {
  return new ApiError('ai_quota_exceeded', QUOTA_MESSAGES[quota], undefined, {
    'Retry-After': String(secondsUntil(end, now)),
    'X-AI-Quota': quota,
  });
}

function toGroup(g: GroupRow, labels: Map<string, string>): UsageGroupDto {
  return {
    key: g.key,
    label: g.key === null ? null : (labels.get(g.key) ?? g.key),
    requests: g.requests,
    input_tokens: g.input_tokens,
    output_tokens: g.output_tokens,
  };
}

/** Days in date order; any other grouping by tokens, most first (ties by key). */
function sortGroups(groups: UsageGroupDto[], byDate: boolean): UsageGroupDto[] {
  return groups.sort((a, b) =>
    byDate
      ? (a.key ?? '').localeCompare(b.key ?? '')
      : b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens) ||
        (a.key ?? '').localeCompare(b.key ?? ''),
  );
}
