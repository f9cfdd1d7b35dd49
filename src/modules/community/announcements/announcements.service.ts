import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError, type ErrorDetail } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { AnnouncementEmails } from './announcement-email';
import { toAdminRecord } from './announcement-record';
import {
  type AnnouncementRow,
  AnnouncementsRepository,
  type AnnouncementValues,
  type ScopeId,
  type Translations,
} from './announcements.repository';
import type {
  AnnouncementDto,
  AnnouncementListQueryDto,
  AudienceDto,
  CreateAnnouncementDto,
  TranslationDto,
  UpdateAnnouncementDto,
} from './dto/announcement.dto';

/** Emailed announcements per organization and UTC day (extensions-v3 6.9). */
export const EMAILS_PER_DAY = 3;

const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

const UPDATABLE = ['translations', 'severity', 'audience', 'starts_at', 'ends_at', 'dismissible', 'email'] as const;

interface Actor {
  userId: string;
  ip?: string;
}

function translation(t: TranslationDto): { title: string; body_md: string } {
  return { title: t.title, body_md: t.body_md };
}

/**
 * Administration of announcements (extensions-v2 18) for both scopes: the platform (`scope` null, platform admins)
 * and one organization (its owner/admin). Every query is limited to the scope, so an organization never reaches
 * another's announcements nor the platform's.
 */
@Injectable()
export class AnnouncementsService {
  constructor(
    private readonly repository: AnnouncementsRepository,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly organizations: OrganizationsService,
    private readonly cohorts: CohortsService,
    private readonly emails: AnnouncementEmails,
  ) {}

  async list(scope: ScopeId, query: AnnouncementListQueryDto): Promise<Page<AnnouncementDto>> {
    const { rows, total } = await this.repository.list(scope, query.status, this.clock.now(), query);
    return toPage(rows.map(toAdminRecord), total, query);
  }

  async get(scope: ScopeId, id: string): Promise<AnnouncementDto> {
    const row = await this.repository.find(scope, id);
    if (!row) throw ApiError.notFound();
    return toAdminRecord(row);
  }

  async create(scope: ScopeId, dto: CreateAnnouncementDto, actor: Actor): Promise<AnnouncementDto> {
    const severity = dto.severity ?? 'info';
    if (severity === 'critical' && dto.dismissible === true) throw criticalDismissible();
    const translations: Translations = {};
    if (dto.translations.es) translations.es = translation(dto.translations.es);
    if (dto.translations.en) translations.en = translation(dto.translations.en);
    const values: AnnouncementValues = {
      translations,
      severity,
      audience_roles: dto.audience?.roles ?? [],
      audience_organization_ids: lower(dto.audience?.organization_ids),
      audience_cohort_ids: lower(dto.audience?.cohort_ids),
      starts_at: dto.starts_at ? new Date(dto.starts_at) : this.clock.now(),
      ends_at: dto.ends_at ? new Date(dto.ends_at) : null,
      dismissible: severity === 'critical' ? false : (dto.dismissible ?? true),
      email: dto.email ?? false,
    };
    this.checkValues(values);
    await this.checkAudience(scope, dto.audience);
    const row = await this.transactions.run(async (tx) => {
      if (values.email) await this.checkEmailLimit(scope, values.starts_at, null, tx);
      const created = await this.repository.insert(scope, values, actor.userId, this.clock.now(), tx);
      if (created.email) await this.emails.schedule(created, tx);
      await this.record('announcement.created', created, actor, tx, {
        scope: scopeName(scope),
        severity: created.severity,
        by_email: created.email,
      });
      return created;
    });
    return toAdminRecord(row);
  }

  async update(scope: ScopeId, id: string, dto: UpdateAnnouncementDto, actor: Actor): Promise<AnnouncementDto> {
    const fields = UPDATABLE.filter((field) => dto[field] !== undefined);
    if (dto.audience !== undefined) await this.checkAudience(scope, dto.audience);
    const row = await this.transactions.run(async (tx) => {
      const current = await this.repository.findForUpdate(scope, id, tx);
      if (!current) throw ApiError.notFound();
      if (fields.length === 0) return current;
      if (dto.email !== undefined && dto.email !== current.email && current.emailed_at !== null) {
        throw ApiError.conflict('announcement_already_emailed', 'The announcement was already emailed.');
      }
      const values = this.merge(current, dto);
      this.checkValues(values);
      const sameDay = utcDay(values.starts_at) === utcDay(current.starts_at);
      if (values.email && current.emailed_at === null && (!current.email || !sameDay)) {
        await this.checkEmailLimit(scope, values.starts_at, current.id, tx);
      }
      const updated = await this.repository.update(scope, id, values, this.clock.now(), tx);
      const startMoved = updated.starts_at.getTime() !== current.starts_at.getTime();
      if (updated.email && !updated.emailed_at && (!current.email || startMoved)) {
        await this.emails.schedule(updated, tx);
      }
      await this.record('announcement.updated', updated, actor, tx, { fields: [...fields] });
      return updated;
    });
    return toAdminRecord(row);
  }

  async remove(scope: ScopeId, id: string, actor: Actor): Promise<void> {
    await this.transactions.run(async (tx) => {
      const removed = await this.repository.delete(scope, id, tx);
      if (!removed) throw ApiError.notFound();
      await this.record('announcement.deleted', removed, actor, tx, {
        scope: scopeName(scope),
        severity: removed.severity,
        emailed: removed.emailed_at !== null,
      });
    });
  }

  /**
   * extensions-v3 6.9: an organization emails at most EMAILS_PER_DAY announcements per (UTC) day, counted by the day
   * each one goes out. Platform announcements are not limited.
   */
  private async checkEmailLimit(scope: ScopeId, startsAt: Date, exceptId: string | null, tx: Tx): Promise<void> {
    if (scope === null) return;
    if ((await this.repository.emailedOnDay(scope, startsAt, exceptId, tx)) >= EMAILS_PER_DAY) {
      throw ApiError.conflict(
        'announcement_email_limit_reached',
        `An organization may email at most ${EMAILS_PER_DAY} announcements per day; this day has no place left.`,
      );
    }
  }

  private merge(current: AnnouncementRow, dto: UpdateAnnouncementDto): AnnouncementValues {
    const translations: Translations = { ...current.translations };
    for (const locale of ['es', 'en'] as const) {
      const given = dto.translations?.[locale];
      if (given === null) delete translations[locale];
      else if (given !== undefined) translations[locale] = translation(given);
    }
    const severity = dto.severity ?? current.severity;
    if (severity === 'critical' && dto.dismissible === true) throw criticalDismissible();
    return {
      translations,
      severity,
      audience_roles: dto.audience?.roles ?? current.audience_roles,
      audience_organization_ids:
        dto.audience?.organization_ids === undefined
          ? current.audience_organization_ids
          : lower(dto.audience.organization_ids),
      audience_cohort_ids:
        dto.audience?.cohort_ids === undefined ? current.audience_cohort_ids : lower(dto.audience.cohort_ids),
      starts_at: dto.starts_at === undefined ? current.starts_at : new Date(dto.starts_at),
      ends_at: dto.ends_at === undefined ? current.ends_at : dto.ends_at === null ? null : new Date(dto.ends_at),
      dismissible: severity === 'critical' ? false : (dto.dismissible ?? current.dismissible),
      email: dto.email ?? current.email,
    };
  }

  /** Rules of the resulting record, whether created or patched. */
  private checkValues(values: AnnouncementValues): void {
    const details: ErrorDetail[] = [];
    if (!values.translations.es && !values.translations.en) {
      details.push({ field: 'translations', message: 'translations must have at least one of es and en' });
    }
    if (values.ends_at && values.ends_at.getTime() <= values.starts_at.getTime()) {
      details.push({ field: 'ends_at', message: 'ends_at must be later than starts_at' });
    }
    if (details.length) throw ApiError.validation(details);
  }

  /**
   * Organization lists are for platform announcements and must name organizations (422); cohort lists are for
   * organization announcements and must name cohorts of that organization (404, as any id of another tenant).
   */
  private async checkAudience(scope: ScopeId, audience: AudienceDto | undefined): Promise<void> {
    const organizationIds = lower(audience?.organization_ids);
    const cohortIds = lower(audience?.cohort_ids);
    if (scope === null) {
      if (cohortIds.length) {
        throw ApiError.validation([
          { field: 'audience.cohort_ids', message: 'cohort_ids is for organization announcements' },
        ]);
      }
      const known = new Set(await this.organizations.existingIds(organizationIds));
      const unknown = organizationIds.filter((id) => !known.has(id));
      if (unknown.length) {
        throw ApiError.validation([
          { field: 'audience.organization_ids', message: `unknown organizations: ${unknown.join(', ')}` },
        ]);
      }
      return;
    }
    if (organizationIds.length) {
      throw ApiError.validation([
        { field: 'audience.organization_ids', message: 'organization_ids is for platform announcements' },
      ]);
    }
    for (const cohortId of cohortIds) {
      if (!(await this.cohorts.findInOrganization(scope, cohortId))) {
        throw ApiError.notFound('A cohort of the audience is not a cohort of this organization.');
      }
    }
  }

  private record(
    action: 'announcement.created' | 'announcement.updated' | 'announcement.deleted',
    row: AnnouncementRow,
    actor: Actor,
    tx: Tx,
    metadata: Record<string, string | boolean | string[]>,
  ): Promise<void> {
    return this.audit.record(
      {
        action,
        actorId: actor.userId,
        organizationId: row.organization_id,
        targetType: 'announcement',
        targetId: row.id,
        ip: actor.ip,
        metadata,
      },
      tx,
    );
  }
}

function lower(ids: readonly string[] | undefined): string[] {
  return (ids ?? []).map((id) => id.toLowerCase());
}

function scopeName(scope: ScopeId): 'platform' | 'organization' {
  return scope === null ? 'platform' : 'organization';
}

function criticalDismissible(): ApiError {
  return ApiError.validation([{ field: 'dismissible', message: 'a critical announcement cannot be dismissible' }]);
}
