import { Injectable, Optional } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { MINOR_AGE_BRACKET } from '@/core/auth/credential';
import { isAdmin, type Membership, type OrgRole } from '@/core/auth/tenancy';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { ApiKeysService } from '@/modules/identity/api-keys';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { TokenService } from '@/modules/identity/oauth';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import type { MemberDto, MemberListQueryDto } from './dto/member.dto';
import type { ColleagueProfileDto } from './dto/profile.dto';
import { ProfileGamification } from './profile-gamification.port';
import { leavesNoOwner, mayChangeRole, mayRemove } from './member-rules';
import { type MemberRow, MembersRepository } from './members.repository';

const LAST_OWNER = (): ApiError =>
  ApiError.conflict('last_owner', 'The organization must keep at least one owner: make someone else owner first.');

/**
 * The members of an organization: the list (owners and admins see everyone, a teacher the students of their
 * cohorts), role changes and removals (serialized per organization, so it never ends up without an owner),
 * and colleagues' public profiles.
 */
@Injectable()
export class MembersService {
  constructor(
    private readonly members: MembersRepository,
    private readonly orgs: OrganizationsService,
    private readonly users: UsersService,
    private readonly cohorts: CohortsService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly apiKeys: ApiKeysService,
    private readonly oauthTokens: TokenService,
    @Optional() private readonly gamification?: ProfileGamification,
  ) {}

  async list(caller: Membership, query: MemberListQueryDto): Promise<Page<MemberDto>> {
    const organizationId = caller.organizationId;
    const cohortId = query.cohort_id?.toLowerCase();
    if (cohortId && !(await this.cohorts.findInOrganization(organizationId, cohortId)))
      throw ApiError.notFound('No such cohort.');
    const userIds =
      caller.role === 'teacher' ? await this.cohorts.studentIdsTaughtBy(organizationId, caller.userId) : null;
    const { rows, total } = await this.members.list(organizationId, {
      role: query.role,
      q: query.q,
      cohortId,
      userIds,
      limit: query.limit,
      offset: query.offset,
    });
    const directory = isAdmin(caller.role);
    return toPage(
      rows.map((row) => toDto(row, directory)),
      total,
      query,
    );
  }

  /** 404 unknown member, 403 not permitted (see `mayChangeRole`), 409 `last_owner`. Audited with `{from, to}`. */
  async changeRole(caller: Membership, userId: string, role: OrgRole, ip: string | undefined): Promise<MemberDto> {
    const organizationId = caller.organizationId;
    return this.transactions.run(async (tx) => {
      await this.orgs.lockMembers(organizationId, tx);
      // Both roles as they are now, under the lock: not what the request's guard saw a moment ago.
      const actor = await this.members.find(organizationId, caller.userId, tx);
      const target = actor ? await this.members.find(organizationId, userId, tx) : null;
      if (!actor || !target) throw ApiError.notFound('No such member.');
      if (!mayChangeRole(actor.role, target.role, role)) {
        throw ApiError.forbidden('Only an owner grants or removes the roles owner and admin.');
      }
      if (target.role === role) return toDto(target, true);
      if (leavesNoOwner(target.role, role, await this.orgs.countByRole(organizationId, 'owner', tx)))
        throw LAST_OWNER();
      await this.orgs.setRole(organizationId, userId, role, caller.userId, tx);
      await this.audit.record(
        {
          action: 'member.role_changed',
          actorId: caller.userId,
          organizationId,
          targetType: 'user',
          targetId: userId,
          ip,
          metadata: { from: target.role, to: role },
        },
        tx,
      );
      return toDto({ ...target, role }, true);
    });
  }

  /**
   * Anyone may leave; owners remove anyone, admins teachers and students (403 otherwise); 409 `last_owner`.
   * Cohort places go with the membership; the organization stops being the person's active one. Audited.
   */
  async remove(caller: Membership, userId: string, ip: string | undefined): Promise<void> {
    const organizationId = caller.organizationId;
    const self = userId === caller.userId;
    // Teachers and students learn nothing about other members from this operation.
    if (!self && !isAdmin(caller.role)) throw ApiError.forbidden();
    await this.transactions.run(async (tx) => {
      await this.orgs.lockMembers(organizationId, tx);
      const actor = await this.members.find(organizationId, caller.userId, tx);
      const target = actor && !self ? await this.members.find(organizationId, userId, tx) : actor;
      if (!actor || !target) throw ApiError.notFound('No such member.');
      if (!mayRemove(actor.role, target.role, self)) {
        throw ApiError.forbidden('Only an owner removes owners and admins.');
      }
      if (leavesNoOwner(target.role, null, await this.orgs.countByRole(organizationId, 'owner', tx)))
        throw LAST_OWNER();
      await this.orgs.removeMember(organizationId, userId, caller.userId, tx);
      await this.apiKeys.revokeAllFor(organizationId, userId, tx);
      await this.oauthTokens.revokeAllFor(organizationId, userId, tx);
      const person = await this.users.findById(userId, tx);
      if (person?.lastOrganizationId === organizationId) await this.users.setLastOrganization(userId, null, tx);
      await this.audit.record(
        {
          action: 'member.removed',
          actorId: caller.userId,
          organizationId,
          targetType: 'user',
          targetId: userId,
          ip,
          metadata: { role: target.role, self },
        },
        tx,
      );
    });
  }

  /**
   * A colleague's public profile: only a member of this organization who turned `public_profile` on (one's own
   * profile is always visible). Anything else is 404, so the answer never tells who is a member.
   */
  async profile(caller: Membership, username: string): Promise<ColleagueProfileDto> {
    const id = await this.members.memberIdByUsername(caller.organizationId, username.toLowerCase());
    const user = id ? await this.users.findById(id) : null;
    // Minors never have a public profile (17.6), whatever the flag says.
    const visible =
      user && (user.id === caller.userId || (user.publicProfile && user.ageBracket !== MINOR_AGE_BRACKET));
    if (!user || !visible) throw ApiError.notFound();
    const dto = this.users.toDto(user);
    const viewer = user.id === caller.userId ? user : await this.users.findById(caller.userId);
    return {
      username: dto.username,
      name: dto.name,
      headline: dto.headline,
      bio: dto.bio,
      location: dto.location,
      avatar_url: dto.avatar_url,
      avatar_svg_url: dto.avatar_svg_url,
      gamification: this.gamification
        ? await this.gamification.of(caller.organizationId, user.id, viewer?.locale ?? 'es')
        : null,
    };
  }
}

/** `directory` (the SCIM directory's attributes) is shown to owners and admins only. */
function toDto(row: MemberRow, showDirectory: boolean): MemberDto {
  return {
    user_id: row.user_id,
    name: row.name,
    email: row.email,
    role: row.role,
    minor: row.minor === true,
    cohort_ids: row.cohort_ids,
    joined_at: row.joined_at.toISOString(),
    directory: showDirectory ? row.directory : null,
  };
}
