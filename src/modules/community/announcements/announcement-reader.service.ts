import { Injectable } from '@nestjs/common';
import type { Credential } from '@/core/auth/credential';
import { Clock } from '@/core/clock/clock';
import { ApiError } from '@/core/http/api-error';
import { resolveLocale } from '@/core/mail/mail-template';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { toReaderRecord } from './announcement-record';
import { AnnouncementsRepository, type ReaderContext } from './announcements.repository';
import type { CurrentAnnouncementsDto } from './dto/announcement.dto';

/** At most this many current announcements are answered (the most important first). */
export const CURRENT_MAX = 50;

/**
 * What people read: their current announcements, and dismissals. The organization a reader is in decides which
 * platform announcements reach them (by organization and role) and which organization announcements they see.
 */
@Injectable()
export class AnnouncementReaderService {
  constructor(
    private readonly repository: AnnouncementsRepository,
    private readonly clock: Clock,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly cohorts: CohortsService,
  ) {}

  async current(credential: Credential, organizationId: string | undefined): Promise<CurrentAnnouncementsDto> {
    const [reader, user] = await Promise.all([
      this.readerContext(credential, organizationId?.toLowerCase()),
      this.users.getById(credential.userId),
    ]);
    const rows = await this.repository.current(reader, this.clock.now(), CURRENT_MAX);
    const locale = resolveLocale(user.locale);
    return { items: rows.map((row) => toReaderRecord(row, locale)) };
  }

  /**
   * Dismisses an announcement shown to the caller (idempotent). Not shown (another tenant's, outside its window,
   * not for the caller's role, cohorts or organizations) is 404; critical or not dismissible is 409.
   */
  async dismiss(credential: Credential, announcementId: string): Promise<void> {
    const row = await this.repository.findAnyScope(announcementId);
    if (!row || !(await this.shownTo(credential, row.id, row.organization_id))) throw ApiError.notFound();
    if (!row.dismissible) {
      throw ApiError.conflict('announcement_not_dismissible', 'This announcement cannot be dismissed.');
    }
    await this.repository.dismiss(credential.userId, row.id, row.organization_id, this.clock.now());
  }

  private async shownTo(credential: Credential, id: string, organizationId: string | null): Promise<boolean> {
    const now = this.clock.now();
    if (organizationId !== null) {
      // A bearer token sees only its own organization's announcements.
      if (credential.organizationId !== null && credential.organizationId !== organizationId) return false;
      const membership = await this.organizations.membership(organizationId, credential.userId);
      if (!membership || (await this.organizations.isSuspended(organizationId))) return false;
      const cohortIds = await this.cohorts.cohortIdsOf(organizationId, credential.userId);
      return this.repository.organizationShownTo(
        id,
        { userId: credential.userId, organizationId, role: membership.role, cohortIds },
        now,
      );
    }
    const memberships = (await this.organizations.activeMembershipsOf(credential.userId)).filter(
      (m) => credential.organizationId === null || m.organizationId === credential.organizationId,
    );
    return this.repository.platformShownTo(id, memberships, now);
  }

  /**
   * The organization the reader is in: the one asked for (a member, and the token's when a token is used; 404
   * otherwise; 403 `organization_suspended` when suspended), else the token's, else the session's active one (left
   * out, without error, when no longer a member or suspended: the reader then sees only what is for everyone).
   */
  private async readerContext(credential: Credential, requested: string | undefined): Promise<ReaderContext> {
    const none: ReaderContext = { userId: credential.userId, organizationId: null, role: null, cohortIds: [] };
    let organizationId: string | null;
    if (requested !== undefined) {
      if (credential.organizationId !== null && credential.organizationId !== requested) throw ApiError.notFound();
      organizationId = requested;
    } else {
      organizationId =
        credential.organizationId ?? (await this.users.getById(credential.userId)).lastOrganizationId ?? null;
      if (organizationId === null) return none;
    }
    const membership = await this.organizations.membership(organizationId, credential.userId);
    if (!membership) {
      if (requested !== undefined) throw ApiError.notFound();
      return none;
    }
    if (await this.organizations.isSuspended(organizationId)) {
      if (requested !== undefined)
        throw ApiError.forbidden('This organization is suspended.', 'organization_suspended');
      return none;
    }
    const cohortIds = await this.cohorts.cohortIdsOf(organizationId, credential.userId);
    return { userId: credential.userId, organizationId, role: membership.role, cohortIds };
  }
}
