import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { type Membership, type OrgRole, TenancyResolver } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { isUniqueViolation } from '@/core/database/constraint-violation';
import { DEFAULT_TIME_ZONE } from '@/core/time/local-time';
import { UsersService } from '@/modules/identity/users';
import { type Page, toPage } from '@/core/http/pagination';
import type {
  AdminOrganizationDto,
  AdminOrganizationListQueryDto,
  ChangePlanDto,
  CreateOrganizationDto,
  MyOrganizationsDto,
  OrganizationDto,
  OrganizationWithRoleDto,
  UpdateOrganizationDto,
  UsageDto,
} from './dto/organization.dto';
import type { OrganizationEntity } from './entities/organization.entity';
import type { Organization } from './organizations.types';
import { AiUsageFigures } from './ai-usage-figures.port';
import { EnrollmentCount } from './enrollment-count.port';
import { OrganizationsRepository } from './organizations.repository';

/** The AI limits of an organization's plan per UTC month (null: unlimited). */
export interface AiPlanLimits {
  monthlyTokens: number | null;
  monthlyRequests: number | null;
}

/** UPDATE fields of the organization and the column each one sets. */
const UPDATABLE: Record<keyof UpdateOrganizationDto, keyof OrganizationEntity> = {
  name: 'name',
  logo_url: 'logoUrl',
  brand_color: 'brandColor',
  locale: 'locale',
  time_zone: 'timeZone',
  issuer_name: 'certIssuerName',
  signature_name: 'certSignatureName',
  signature_title: 'certSignatureTitle',
  cert_logo_url: 'certLogoUrl',
  footer_text: 'certFooterText',
  accent_color: 'certAccentColor',
};

@Injectable()
export class OrganizationsService extends TenancyResolver {
  constructor(
    private readonly orgs: OrganizationsRepository,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    private readonly crypto: CryptoService,
    private readonly transactions: TransactionRunner,
    private readonly events: DomainEvents,
    private readonly enrollments: EnrollmentCount,
    private readonly aiUsage: AiUsageFigures,
  ) {
    super();
  }

  // TenancyResolver: the org-scope guard's questions.
  membership(organizationId: string, userId: string, tx?: Tx): Promise<Membership | null> {
    return this.orgs.membership(organizationId, userId, tx);
  }

  async isSuspended(organizationId: string): Promise<boolean> {
    return (await this.orgs.findById(organizationId))?.status === 'suspended';
  }

  /** The person's memberships in organizations that are not suspended (where they can read anything). */
  async activeMembershipsOf(userId: string): Promise<Membership[]> {
    return (await this.orgs.activeMembershipsOf(userId)).map((m) => ({
      organizationId: m.organization_id,
      userId: m.user_id,
      role: m.role,
    }));
  }

  /** Which of these ids are organizations. */
  existingIds(ids: readonly string[]): Promise<string[]> {
    return this.orgs.existingIds(ids);
  }

  /**
   * One batch of member ids (distinct, in id order, after `afterUserId`) of active organizations, optionally of
   * some organizations and roles: fan-outs to an audience go through here.
   */
  memberIdsAfter(
    filter: { organizationIds: readonly string[] | null; roles: readonly OrgRole[] | null },
    afterUserId: string | null,
    limit: number,
  ): Promise<string[]> {
    return this.orgs.memberIdsAfter(filter, afterUserId, limit);
  }

  /** The AI limits of the organization's plan (404 when it does not exist). */
  async aiLimits(organizationId: string): Promise<AiPlanLimits> {
    const org = await this.getById(organizationId);
    return { monthlyTokens: org.aiMonthlyTokens, monthlyRequests: org.aiMonthlyRequests };
  }

  findById(id: string): Promise<Organization | null> {
    return this.orgs.findById(id);
  }

  async getById(id: string): Promise<Organization> {
    const org = await this.orgs.findById(id);
    if (!org) throw ApiError.notFound();
    return org;
  }

  toDto(org: Organization): OrganizationDto {
    return {
      id: org.id,
      name: org.name,
      slug: org.slug,
      locale: org.locale,
      time_zone: org.timeZone,
      logo_url: org.logoUrl,
      brand_color: org.brandColor,
      status: org.status,
      plan: org.plan,
      limits: {
        member_limit: org.memberLimit,
        ai_monthly_tokens: org.aiMonthlyTokens,
        ai_monthly_requests: org.aiMonthlyRequests,
      },
      certificate_template: {
        issuer_name: org.certIssuerName,
        signature_name: org.certSignatureName,
        signature_title: org.certSignatureTitle,
        logo_url: org.certLogoUrl,
        footer_text: org.certFooterText,
        accent_color: org.certAccentColor,
      },
      created_at: org.createdAt.toISOString(),
    };
  }

  /** The caller becomes owner, and the new organization their active one. */
  async create(
    credential: Credential,
    dto: CreateOrganizationDto,
    ip: string | undefined,
  ): Promise<OrganizationWithRoleDto> {
    const user = await this.users.getById(credential.userId);
    if (user.ageBracket === 'under_18') throw ApiError.forbidden('Underage learners cannot create organizations.');
    const slug = dto.slug ?? (await this.freeSlug(dto.name));
    if (dto.slug && (await this.orgs.slugTaken(dto.slug)))
      throw ApiError.conflict('slug_taken', 'That slug is already in use.');
    const now = this.clock.now();
    const org = await this.transactions
      .run(async (tx) => {
        const created = await this.orgs.insert(
          {
            name: dto.name,
            slug,
            locale: dto.locale ?? user.locale,
            // Stated here, not left to the column default: the saved entity is the record answered.
            timeZone: DEFAULT_TIME_ZONE,
            status: 'active',
            plan: 'free',
            createdBy: user.id,
            createdAt: now,
            updatedAt: now,
          },
          tx,
        );
        await this.orgs.addMember(created.id, user.id, 'owner', now, tx);
        await this.events.publish(
          tx,
          'member.joined',
          { user_id: user.id, role: 'owner' },
          { organizationId: created.id, actorId: user.id },
        );
        await this.users.setLastOrganization(user.id, created.id, tx);
        await this.audit.record(
          {
            action: 'organization.created',
            actorId: user.id,
            organizationId: created.id,
            targetType: 'organization',
            targetId: created.id,
            ip,
          },
          tx,
        );
        return created;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, 'organizations_slug_uq')) {
          throw ApiError.conflict('slug_taken', 'That slug is already in use.');
        }
        throw err;
      });
    return { organization: this.toDto(org), role: 'owner' };
  }

  async update(
    organizationId: string,
    dto: UpdateOrganizationDto,
    actorId: string,
    ip: string | undefined,
  ): Promise<OrganizationDto> {
    const changes: Partial<OrganizationEntity> = {};
    const changed: string[] = [];
    for (const [field, column] of Object.entries(UPDATABLE) as [
      keyof UpdateOrganizationDto,
      keyof OrganizationEntity,
    ][]) {
      if (dto[field] === undefined) continue;
      (changes as Record<string, unknown>)[column] = dto[field];
      changed.push(field);
    }
    if (changed.length > 0) {
      await this.transactions.run(async (tx) => {
        await this.orgs.update(organizationId, changes, this.clock.now(), tx);
        await this.audit.record(
          {
            action: 'organization.updated',
            actorId,
            organizationId,
            targetType: 'organization',
            targetId: organizationId,
            ip,
            metadata: { fields: changed },
          },
          tx,
        );
      });
    }
    return this.toDto(await this.getById(organizationId));
  }

  async myOrganizations(userId: string): Promise<MyOrganizationsDto> {
    const [user, memberships] = await Promise.all([this.users.getById(userId), this.orgs.membershipsOf(userId)]);
    const orgs = new Map((await this.orgs.findByIds(memberships.map((m) => m.organization_id))).map((o) => [o.id, o]));
    const items = memberships
      .filter((m) => orgs.has(m.organization_id))
      .map((m) => ({ organization: this.toDto(orgs.get(m.organization_id)!), role: m.role }));
    const active = memberships.some((m) => m.organization_id === user.lastOrganizationId)
      ? user.lastOrganizationId
      : null;
    return { organizations: items, active_organization_id: active };
  }

  async setActive(userId: string, organizationId: string): Promise<MyOrganizationsDto> {
    const membership = await this.orgs.membership(organizationId, userId);
    if (!membership) throw ApiError.notFound();
    if (await this.isSuspended(organizationId))
      throw ApiError.forbidden('This organization is suspended.', 'organization_suspended');
    await this.users.setLastOrganization(userId, organizationId);
    return this.myOrganizations(userId);
  }

  /** The organization a request acts in: the token's, else the session's active one (must still be a member). */
  async requestOrganization(credential: Credential): Promise<{ organization: Organization; membership: Membership }> {
    const organizationId =
      credential.organizationId ?? (await this.users.getById(credential.userId)).lastOrganizationId;
    const membership = organizationId ? await this.orgs.membership(organizationId, credential.userId) : null;
    if (!organizationId || !membership) throw ApiError.notFound('No active organization: choose one first.');
    const organization = await this.getById(organizationId);
    if (organization.status === 'suspended')
      throw ApiError.forbidden('This organization is suspended.', 'organization_suspended');
    return { organization, membership };
  }

  async usage(organizationId: string): Promise<UsageDto> {
    const org = await this.getById(organizationId);
    const [members, enrolled, ai] = await Promise.all([
      this.orgs.countMembers(organizationId),
      this.enrollments.countEnrollments(organizationId),
      this.aiUsage.month(organizationId),
    ]);
    const now = this.clock.now();
    return {
      plan: org.plan,
      members: { used: members, limit: org.memberLimit },
      courses_enrolled: enrolled,
      ai: {
        requests_used: ai.requests,
        requests_limit: org.aiMonthlyRequests,
        tokens_used: ai.tokens,
        tokens_limit: org.aiMonthlyTokens,
        // AI quota windows are UTC months (extensions-v2 2.3).
        resets_at: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      },
    };
  }

  /** The platform list of organizations with their member counts (16.1). */
  async adminList(query: AdminOrganizationListQueryDto): Promise<Page<AdminOrganizationDto>> {
    const { rows, total } = await this.orgs.adminPage(query, query);
    const orgs = new Map((await this.orgs.findByIds(rows.map((r) => r.id))).map((o) => [o.id, o]));
    return toPage(
      rows.map((r) => ({ ...this.toDto(orgs.get(r.id)!), members_count: r.members_count })),
      total,
      query,
    );
  }

  /**
   * Changes the plan and its limits (16.1). A limit below the current count refuses only new joins and new AI
   * calls (the checks read the limits). Audited with the old and new values.
   */
  async changePlan(organizationId: string, dto: ChangePlanDto, actorId: string, ip?: string): Promise<OrganizationDto> {
    const before = await this.getById(organizationId);
    await this.transactions.run(async (tx) => {
      await this.orgs.update(
        organizationId,
        {
          plan: dto.plan,
          memberLimit: dto.member_limit,
          aiMonthlyTokens: dto.ai_monthly_tokens,
          aiMonthlyRequests: dto.ai_monthly_requests,
        },
        this.clock.now(),
        tx,
      );
      await this.audit.record(
        {
          action: 'organization.plan_changed',
          actorId,
          organizationId,
          targetType: 'organization',
          targetId: organizationId,
          ip,
          metadata: {
            old_plan: before.plan,
            new_plan: dto.plan,
            old_member_limit: before.memberLimit,
            new_member_limit: dto.member_limit,
            old_ai_monthly_tokens: before.aiMonthlyTokens === null ? null : Number(before.aiMonthlyTokens),
            new_ai_monthly_tokens: dto.ai_monthly_tokens,
            old_ai_monthly_requests: before.aiMonthlyRequests,
            new_ai_monthly_requests: dto.ai_monthly_requests,
          },
        },
        tx,
      );
    });
    return this.toDto(await this.getById(organizationId));
  }

  async setSuspended(
    organizationId: string,
    suspended: boolean,
    reason: string,
    actorId: string,
    ip: string | undefined,
  ): Promise<OrganizationDto> {
    await this.getById(organizationId);
    await this.transactions.run(async (tx) => {
      const now = this.clock.now();
      await this.orgs.update(
        organizationId,
        suspended
          ? { status: 'suspended', suspendedAt: now, suspendedReason: reason }
          : { status: 'active', suspendedAt: null, suspendedReason: null },
        now,
        tx,
      );
      await this.audit.record(
        {
          action: suspended ? 'organization.suspended' : 'organization.unsuspended',
          actorId,
          organizationId,
          targetType: 'organization',
          targetId: organizationId,
          ip,
          metadata: { reason },
        },
        tx,
      );
    });
    return this.toDto(await this.getById(organizationId));
  }

  /**
   * Suspends an organization inside the caller's transaction, by the service itself (actor null): an
   * organization whose only member was erased (extensions-v2 17.3, reason `owner_erased`). Its certificates keep
   * verifying. Idempotent: an organization already suspended is left as it is.
   */
  async suspendByService(organizationId: string, reason: string, tx: Tx): Promise<void> {
    const org = await this.orgs.findById(organizationId, tx);
    if (!org || org.status === 'suspended') return;
    const now = this.clock.now();
    await this.orgs.update(organizationId, { status: 'suspended', suspendedAt: now, suspendedReason: reason }, now, tx);
    await this.audit.record(
      {
        action: 'organization.suspended',
        actorId: null,
        organizationId,
        targetType: 'organization',
        targetId: organizationId,
        metadata: { reason },
      },
      tx,
    );
  }

  // Membership operations used by the members, invitations, member-import and SSO areas. This area owns the
  // membership facts, so it publishes `member.joined`, `member.left` and `member.role_changed` in the caller's
  // transaction (or its own when there is none).
  /**
   * Adds a member (false when already one). Every way in (invitation, import, SSO, fixtures) passes here, so the
   * plan's member limit is enforced once: 409 `member_limit_reached` when it is full. `actorId` is who caused it
   * (the joining person, the importing admin; null for the service itself).
   */
  async addMember(
    organizationId: string,
    userId: string,
    role: OrgRole,
    actorId: string | null,
    tx?: Tx,
  ): Promise<boolean> {
    if (!tx) return this.transactions.run((own) => this.addMember(organizationId, userId, role, actorId, own));
    // Without a member limit (most organizations) one statement reads that, adds the member and publishes
    // `member.joined` (written only when the member was added).
    let joined: ReturnType<DomainEvents['publishCte']> | undefined;
    const fast = await this.orgs.addMemberUnlimited(
      organizationId,
      userId,
      role,
      this.clock.now(),
      tx,
      (firstParam, when) =>
        (joined = this.events.publishCte(
          'member.joined',
          { user_id: userId, role },
          { organizationId, actorId },
          firstParam,
          when,
        )),
    );
    if (fast === 'member') return false;
    if (fast === 'added') {
      joined?.published(tx);
      return true;
    }
    const org = await this.orgs.findById(organizationId, tx);
    if (org && org.memberLimit !== null && (await this.orgs.membership(organizationId, userId, tx)) === null) {
      // Under the organization's lock, two joins cannot both take the last place.
      await this.orgs.lockMembers(organizationId, tx);
      if ((await this.orgs.countMembers(organizationId, tx)) >= org.memberLimit) throw memberLimitReached();
    }
    const added = await this.orgs.addMember(organizationId, userId, role, this.clock.now(), tx);
    if (added) {
      await this.events.publish(tx, 'member.joined', { user_id: userId, role }, { organizationId, actorId });
    }
    return added;
  }

  /**
   * `addMember` for many people at once, with the same decisions as calling it once per candidate in this order:
   * a member already is answered `already_member`; under the organization's lock (taken once), each newcomer
   * takes a place while the plan's member limit allows, the rest are `refused` with `member_limit_reached`.
   * One statement adds them, one publishes their `member.joined` events. Candidates must be distinct people.
   */
  async addMembers(
    organizationId: string,
    candidates: readonly { userId: string; role: OrgRole }[],
    actorId: string | null,
    tx: Tx,
  ): Promise<AddMemberResult[]> {
    if (new Set(candidates.map((c) => c.userId)).size !== candidates.length)
      throw new Error('addMembers takes each person once');
    if (candidates.length === 0) return [];
    const org = await this.orgs.findById(organizationId, tx);
    const members = await this.orgs.membersAmong(
      organizationId,
      candidates.map((c) => c.userId),
      tx,
    );
    let free = Infinity;
    if (org && org.memberLimit !== null && candidates.some((c) => !members.has(c.userId))) {
      // Under the organization's lock, two joins cannot both take the last place.
      await this.orgs.lockMembers(organizationId, tx);
      free = org.memberLimit - (await this.orgs.countMembers(organizationId, tx));
    }
    const results: AddMemberResult[] = [];
    const toAdd: { userId: string; role: OrgRole }[] = [];
    for (const c of candidates) {
      if (members.has(c.userId)) results.push({ status: 'already_member' });
      else if (free <= 0) results.push({ status: 'refused', error: memberLimitReached() });
      else {
        free--;
        toAdd.push(c);
        results.push({ status: 'added' });
      }
    }
    const added = await this.orgs.addMembers(organizationId, toAdd, this.clock.now(), tx);
    // One that joined in the meantime (another transaction) was a member after all, as `addMember` would say.
    candidates.forEach((c, i) => {
      if (results[i].status === 'added' && !added.has(c.userId)) results[i] = { status: 'already_member' };
    });
    await this.events.publishMany(
      tx,
      'member.joined',
      toAdd
        .filter((c) => added.has(c.userId))
        .map((c) => ({ payload: { user_id: c.userId, role: c.role }, meta: { organizationId, actorId } })),
    );
    return results;
  }

  /** Changes a member's role; `member.role_changed` when it really changed. */
  async setRole(organizationId: string, userId: string, role: OrgRole, actorId: string | null, tx: Tx): Promise<void> {
    const previous = await this.orgs.setRole(organizationId, userId, role, tx);
    if (previous !== null && previous !== role) {
      await this.events.publish(
        tx,
        'member.role_changed',
        { user_id: userId, from: previous, to: role },
        { organizationId, actorId },
      );
    }
  }

  /** Ends a membership (removal or leaving); `member.left` when there was one. */
  async removeMember(organizationId: string, userId: string, actorId: string | null, tx?: Tx): Promise<boolean> {
    if (!tx) return this.transactions.run((own) => this.removeMember(organizationId, userId, actorId, own));
    const removed = await this.orgs.removeMember(organizationId, userId, tx);
    if (removed) await this.events.publish(tx, 'member.left', { user_id: userId }, { organizationId, actorId });
    return removed;
  }

  /**
   * Suspends or restores a membership (the directory's `active`); `member.suspended` / `member.reactivated` when it
   * changed. A suspended member keeps the membership, but it opens nothing until restored.
   */
  async setMemberSuspended(
    organizationId: string,
    userId: string,
    suspended: boolean,
    actorId: string | null,
    tx: Tx,
  ): Promise<boolean> {
    const changed = await this.orgs.setSuspended(organizationId, userId, suspended ? this.clock.now() : null, tx);
    if (changed) {
      await this.events.publish(
        tx,
        suspended ? 'member.suspended' : 'member.reactivated',
        { user_id: userId },
        { organizationId, actorId },
      );
    }
    return changed;
  }

  /** Of these people, those who are members of the organization (one query, in the transaction when given). */
  membersAmong(organizationId: string, userIds: readonly string[], tx?: Tx): Promise<Set<string>> {
    return this.orgs.membersAmong(organizationId, userIds, tx);
  }

  lockMembers(organizationId: string, tx: Tx): Promise<void> {
    return this.orgs.lockMembers(organizationId, tx);
  }

  countByRole(organizationId: string, role: OrgRole, tx?: Tx): Promise<number> {
    return this.orgs.countByRole(organizationId, role, tx);
  }

  shareAnOrganization(a: string, b: string): Promise<boolean> {
    return this.orgs.shareAnOrganization(a, b);
  }

  private async freeSlug(name: string): Promise<string> {
    const base =
      name
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, '')
        .slice(0, 50) || 'org';
    let slug = base.length >= 3 ? base : `${base}-org`;
    while (await this.orgs.slugTaken(slug))
      slug = `${base.slice(0, 50)}-${this.crypto.randomFromAlphabet('abcdefghjkmnpqrstuvwxyz23456789', 5)}`;
    return slug;
  }
}

/** What `addMembers` did with one candidate. */
export type AddMemberResult =
  { status: 'added' } | { status: 'already_member' } | { status: 'refused'; error: ApiError };

function memberLimitReached(): ApiError {
  return ApiError.conflict('member_limit_reached', 'The organization has reached the member limit of its plan.');
}
