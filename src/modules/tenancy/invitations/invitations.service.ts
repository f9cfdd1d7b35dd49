import { Inject, Injectable } from '@nestjs/common';
import { isEmail } from 'class-validator';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { isAdmin, ORG_ROLES, type OrgRole } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { isUuid } from '@/core/http/uuid';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import type { ClientInfo } from '@/core/http/client-info';
import type { CookieChange } from '@/core/http/cookies';
import { type Page, toPage } from '@/core/http/pagination';
import { maskEmail } from '@/core/mail/addresses';
import { type Locale, resolveLocale } from '@/core/mail/mail-template';
import { MailService } from '@/core/mail/mail.service';
import { EmailCodeService, SignInService } from '@/modules/identity/auth';
import { CohortsService } from '@/modules/tenancy/cohorts';

import { OrganizationsService, type Organization } from '@/modules/tenancy/organizations';
import { type User, normalizeEmail, UsersService } from '@/modules/identity/users';
import type {
  AcceptInvitationDto,
  InvitationDto,
  InvitationListItemDto,
  InvitationListQueryDto,
  InvitationPreviewDto,
  InvitationCodeVerifyDto,
  JoinedOrganizationDto,
  MyInvitationsDto,
} from './dto/invitation.dto';
import { assertUsable, cohortRoleFor, INVITATION_TTL_MS, invitationStatus, mayInvite } from './invitation-rules';
import { INVITATION, INVITATION_CODE } from './invitations.mails';
import { type InvitationRow, InvitationsRepository } from './invitations.repository';

export interface InviteInput {
  email: string;
  role: OrgRole;
  cohortId: string | null;
}

/** Who invites: a member of the organization, or null for the system. */
export interface InviteActor {
  userId: string | null;
  ip?: string;
}

export interface InviteOptions {
  /** Do everything in this transaction (the CSV import's per-row transaction); else in a new one. */
  tx?: Tx;
  /** The member import that created the invitation. */
  importId?: string;
}

interface Usable {
  invitation: InvitationRow;
  organization: Organization;
}

/**
 * Email invitations to an organization: sending (one pending invitation per address and organization), the
 * link holder's preview / code / verify, acceptance by a signed-in invitee, revocation and the lists. The link
 * carries 32 random bytes; only their SHA-256 is stored.
 */
@Injectable()
export class InvitationsService {
  constructor(
    private readonly invitations: InvitationsRepository,
    private readonly orgs: OrganizationsService,
    private readonly users: UsersService,
    private readonly cohorts: CohortsService,
    private readonly codes: EmailCodeService,
    private readonly signIn: SignInService,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly transactions: TransactionRunner,
    private readonly events: DomainEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Invites a person. Refusals are ApiErrors: 403 `forbidden` (only an owner invites owners and admins),
   * 403 `organization_suspended`, 422 `validation_error` (email, role, or a cohort that is not the
   * organization's), 409 `already_member`. A pending invitation to the same address in the organization is
   * revoked (its link stops working). Insert, audit entry and email (through the outbox) share one
   * transaction: `options.tx` when given, so a caller's rollback undoes all of it.
   */
  async invite(
    organizationId: string,
    input: InviteInput,
    actor: InviteActor,
    options: InviteOptions = {},
  ): Promise<InvitationDto> {
    const email = normalizeEmail(input.email);
    if (email.length > 254 || !isEmail(email))
      throw ApiError.validation([{ field: 'email', message: 'email must be an email' }]);
    if (!ORG_ROLES.includes(input.role))
      throw ApiError.validation([{ field: 'role', message: `role must be one of ${ORG_ROLES.join(', ')}` }]);
    if (input.cohortId !== null && !isUuid(input.cohortId))
      throw ApiError.validation([{ field: 'cohort_id', message: 'cohort_id must be a UUID' }]);
    const organization = await this.orgs.getById(organizationId);
    if (organization.status === 'suspended')
      throw ApiError.forbidden('This organization is suspended.', 'organization_suspended');
    if (actor.userId !== null) {
      const membership = await this.orgs.membership(organizationId, actor.userId);
      if (!mayInvite(membership?.role ?? null, input.role)) {
        throw ApiError.forbidden(
          isAdmin(input.role) ? 'Only an owner can invite owners and admins.' : 'Only owners and admins invite.',
        );
      }
    }
    const cohortId = input.cohortId?.toLowerCase() ?? null;

    return this.within(options.tx, async (tx) => {
      if (cohortId !== null && !(await this.cohorts.findInOrganization(organizationId, cohortId, tx))) {
        throw ApiError.validation([{ field: 'cohort_id', message: 'cohort_id must be a cohort of this organization' }]);
      }
      const account = await this.users.findByEmail(email, tx);
      if (account && (await this.orgs.membership(organizationId, account.id, tx))) {
        throw ApiError.conflict('already_member', 'This person is already a member of the organization.');
      }
      await this.invitations.lockAddress(organizationId, email, tx);
      const now = this.clock.now();
      const replaced = await this.invitations.revokePendingTo(organizationId, email, now, tx);
      const token = this.crypto.randomToken(32);
      const row = await this.invitations.insert(
        {
          organizationId,
          email,
          role: input.role,
          cohortId,
          tokenHash: this.crypto.sha256(token),
          expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
          invitedBy: actor.userId,
          importId: options.importId ?? null,
          now,
        },
        tx,
      );
      await this.audit.record(
        {
          action: 'invitation.sent',
          actorId: actor.userId,
          organizationId,
          targetType: 'invitation',
          targetId: row.id,
          ip: actor.ip,
          metadata: {
            invitation_id: row.id,
            role: row.role,
            cohort_id: row.cohort_id,
            replaced_invitation_ids: replaced,
            import_id: row.import_id,
          },
        },
        tx,
      );
      const inviter = actor.userId ? await this.users.findById(actor.userId, tx) : null;
      await this.mail.send(
        INVITATION,
        {
          organizationName: organization.name,
          role: row.role,
          url: `${this.config.webUrl}/invitations/${token}`,
          inviterName: inviter?.name ?? null,
          expiresAt: row.expires_at,
        },
        { to: email, locale: this.locale(account, organization), organizationId, tx },
      );
      return this.toDto(row, now);
    });
  }

  /**
   * `invite` for many distinct addresses at once (the CSV import's batch), with the same checks, rows, audit
   * entries and emails as one `invite` per input, written with one statement each: the organization, the actor
   * and the cohorts are checked once, the addresses locked together (in a fixed order), their pending invitations
   * revoked with one update. A refusal refuses them all (the caller runs it under a savepoint to go on).
   */
  async inviteMany(
    organizationId: string,
    inputs: readonly InviteInput[],
    actor: InviteActor,
    options: InviteOptions & { tx: Tx },
  ): Promise<InvitationDto[]> {
    if (inputs.length === 0) return [];
    const items = inputs.map((input) => ({ ...input, email: normalizeEmail(input.email) }));
    for (const input of items) {
      if (input.email.length > 254 || !isEmail(input.email))
        throw ApiError.validation([{ field: 'email', message: 'email must be an email' }]);
      if (!ORG_ROLES.includes(input.role))
        throw ApiError.validation([{ field: 'role', message: `role must be one of ${ORG_ROLES.join(', ')}` }]);
      if (input.cohortId !== null && !isUuid(input.cohortId))
        throw ApiError.validation([{ field: 'cohort_id', message: 'cohort_id must be a UUID' }]);
    }
    if (new Set(items.map((i) => i.email)).size !== items.length) throw new Error('inviteMany takes each address once');
    const organization = await this.orgs.getById(organizationId);
    if (organization.status === 'suspended')
      throw ApiError.forbidden('This organization is suspended.', 'organization_suspended');
    if (actor.userId !== null) {
      const membership = await this.orgs.membership(organizationId, actor.userId);
      for (const role of new Set(items.map((i) => i.role))) {
        if (!mayInvite(membership?.role ?? null, role)) {
          throw ApiError.forbidden(
            isAdmin(role) ? 'Only an owner can invite owners and admins.' : 'Only owners and admins invite.',
          );
        }
      }
    }
    const tx = options.tx;
    const withCohort = items.map((i) => ({ ...i, cohortId: i.cohortId?.toLowerCase() ?? null }));
    for (const cohortId of new Set(withCohort.flatMap((i) => (i.cohortId ? [i.cohortId] : [])))) {
      if (!(await this.cohorts.findInOrganization(organizationId, cohortId, tx))) {
        throw ApiError.validation([{ field: 'cohort_id', message: 'cohort_id must be a cohort of this organization' }]);
      }
    }
    const emails = withCohort.map((i) => i.email);
    const accounts = await this.users.findByEmails(emails, tx);
    const members = await this.orgs.membersAmong(
      organizationId,
      [...accounts.values()].map((a) => a.id),
      tx,
    );
    if (members.size > 0) {
      throw ApiError.conflict('already_member', 'This person is already a member of the organization.');
    }
    await this.invitations.lockAddresses(organizationId, emails, tx);
    const now = this.clock.now();
    const replaced = await this.invitations.revokePendingToMany(organizationId, emails, now, tx);
    const tokens = withCohort.map(() => this.crypto.randomToken(32));
    const rows = await this.invitations.insertMany(
      {
        organizationId,
        items: withCohort.map((i, n) => ({ ...i, tokenHash: this.crypto.sha256(tokens[n]) })),
        expiresAt: new Date(now.getTime() + INVITATION_TTL_MS),
        invitedBy: actor.userId,
        importId: options.importId ?? null,
        now,
      },
      tx,
    );
    await this.audit.recordMany(
      rows.map((row) => ({
        action: 'invitation.sent',
        actorId: actor.userId,
        organizationId,
        targetType: 'invitation',
        targetId: row.id,
        ip: actor.ip,
        metadata: {
          invitation_id: row.id,
          role: row.role,
          cohort_id: row.cohort_id,
          replaced_invitation_ids: replaced.get(row.email) ?? [],
          import_id: row.import_id,
        },
      })),
      tx,
    );
    const inviter = actor.userId ? await this.users.findById(actor.userId, tx) : null;
    await this.mail.sendMany(
      INVITATION,
      rows.map((row, n) => ({
        params: {
          organizationName: organization.name,
          role: row.role,
          url: `${this.config.webUrl}/invitations/${tokens[n]}`,
          inviterName: inviter?.name ?? null,
          expiresAt: row.expires_at,
        },
        to: row.email,
        locale: this.locale(accounts.get(row.email) ?? null, organization),
      })),
      { organizationId, tx },
    );
    return rows.map((row) => this.toDto(row, now));
  }

  async list(organizationId: string, query: InvitationListQueryDto): Promise<Page<InvitationListItemDto>> {
    const now = this.clock.now();
    const { rows, total } = await this.invitations.list(organizationId, {
      status: query.status,
      now,
      limit: query.limit,
      offset: query.offset,
    });
    return toPage(
      rows.map((row) => ({
        ...this.toDto(row, now),
        created_at: row.created_at.toISOString(),
        accepted_at: row.accepted_at?.toISOString() ?? null,
      })),
      total,
      query,
    );
  }

  /** Pending and expired invitations can be revoked; accepted ones 409; unknown or already revoked 404. */
  async revoke(organizationId: string, invitationId: string, actorId: string, ip: string | undefined): Promise<void> {
    await this.transactions.run(async (tx) => {
      const revoked = await this.invitations.revoke(organizationId, invitationId, this.clock.now(), tx);
      if (!revoked) {
        const row = await this.invitations.findInOrganization(organizationId, invitationId, tx);
        if (row?.status === 'accepted')
          throw ApiError.conflict('invitation_already_accepted', 'This invitation has already been accepted.');
        throw ApiError.notFound();
      }
      await this.audit.record(
        {
          action: 'invitation.revoked',
          actorId,
          organizationId,
          targetType: 'invitation',
          targetId: revoked.id,
          ip,
          metadata: { invitation_id: revoked.id, role: revoked.role },
        },
        tx,
      );
    });
  }

  async preview(token: string): Promise<InvitationPreviewDto> {
    const { invitation, organization } = await this.usable(token);
    const account = await this.users.findByEmail(invitation.email);
    return {
      organization: {
        name: organization.name,
        logo_url: organization.logoUrl,
        brand_color: organization.brandColor,
      },
      role: invitation.role,
      email_masked: maskEmail(invitation.email),
      account_exists: account !== null,
      expires_at: invitation.expires_at.toISOString(),
    };
  }

  /** Emails a 6-digit code (10 minutes, 5 attempts) to the invited address, with or without an account. */
  async requestCode(token: string): Promise<void> {
    const { invitation, organization } = await this.usable(token);
    await this.signIn.assertEmailCodeAllowed(invitation.email);
    const account = await this.users.findByEmail(invitation.email);
    await this.transactions.run(async (tx) => {
      const { code } = await this.codes.issue('invitation', invitation.id, {}, tx);
      await this.mail.send(
        INVITATION_CODE,
        { code, organizationName: organization.name },
        { to: invitation.email, locale: this.locale(account, organization), organizationId: organization.id, tx },
      );
    });
  }

  /**
   * Proves the invited address by the emailed code, then joins: the account is created when the address has
   * none, the membership gets the invitation's role, the invitation is accepted, and a session is opened (on a
   * two-factor account the 401 `two_factor_required` challenge instead, the invitation staying accepted).
   */
  async verifyCode(
    dto: InvitationCodeVerifyDto,
    client: ClientInfo,
  ): Promise<{ joined: JoinedOrganizationDto; cookies: readonly CookieChange[] }> {
    const { invitation, organization } = await this.usable(dto.token);
    // Joining by email code is an email-code sign-in: an enforced SSO domain refuses it too.
    await this.signIn.assertEmailCodeAllowed(invitation.email);
    await this.codes.verify('invitation', invitation.id, dto.code, invitation.email);
    const joined = await this.join(invitation, organization, { method: 'code', ip: client.ip });
    let user = joined.user;
    if (dto.name && !user.name) user = await this.users.updateProfile(user.id, { name: dto.name });
    const { cookies } = await this.signIn.signInOrChallenge(user, client, { organizationId: organization.id });
    return { joined: { organization: this.orgs.toDto(organization), role: joined.role }, cookies };
  }

  /**
   * A signed-in person accepts an invitation addressed to their email (any other is 404, never revealed). A
   * repeat by the person who accepted it answers 200 again.
   */
  async accept(
    credential: Credential,
    dto: AcceptInvitationDto,
    ip: string | undefined,
  ): Promise<JoinedOrganizationDto> {
    if ((dto.token === undefined) === (dto.invitation_id === undefined)) {
      throw ApiError.validation([{ field: 'token', message: 'send either token or invitation_id, not both' }]);
    }
    const user = await this.users.getById(credential.userId);
    const invitation =
      dto.token !== undefined
        ? await this.invitations.findByTokenHash(this.crypto.sha256(dto.token))
        : await this.invitations.findByIdForEmail(dto.invitation_id!.toLowerCase(), user.email);
    if (!invitation || invitation.email !== user.email) throw ApiError.notFound('No such invitation.');
    const organization = await this.orgs.findById(invitation.organization_id);
    if (!organization) throw ApiError.notFound('No such invitation.');
    const status = invitationStatus(invitation, this.clock.now());
    if (status === 'accepted' && invitation.accepted_by === user.id) {
      const membership = await this.orgs.membership(organization.id, user.id);
      if (membership) {
        assertUsable('pending', organization.status === 'suspended');
        return { organization: this.orgs.toDto(organization), role: membership.role };
      }
    }
    assertUsable(status, organization.status === 'suspended');
    const { role } = await this.join(invitation, organization, { method: 'session', userId: user.id, ip });
    return { organization: this.orgs.toDto(organization), role };
  }

  /** Pending, unexpired invitations to the account's email, in organizations that are not suspended. */
  async mine(userId: string): Promise<MyInvitationsDto> {
    const user = await this.users.getById(userId);
    const rows = await this.invitations.pendingFor(user.email, this.clock.now());
    const items: MyInvitationsDto['items'] = [];
    for (const row of rows) {
      const organization = await this.orgs.findById(row.organization_id);
      if (!organization || organization.status === 'suspended') continue;
      items.push({
        id: row.id,
        organization: {
          id: organization.id,
          name: organization.name,
          logo_url: organization.logoUrl,
          brand_color: organization.brandColor,
        },
        role: row.role,
        expires_at: row.expires_at.toISOString(),
      });
    }
    return { items };
  }

  /** The invitation of a link, refused in the contract's order (404, 409, 410, 403). */
  private async usable(token: string): Promise<Usable> {
    const invitation = await this.invitations.findByTokenHash(this.crypto.sha256(token));
    const organization = invitation ? await this.orgs.findById(invitation.organization_id) : null;
    if (!invitation || !organization) throw ApiError.notFound('No such invitation.');
    assertUsable(invitationStatus(invitation, this.clock.now()), organization.status === 'suspended');
    return { invitation, organization };
  }

  /**
   * Membership, cohort place, acceptance and audit entry in one transaction, with the invitation locked so a
   * concurrent revocation or acceptance is answered as if it had come first. Someone who already is a member
   * keeps their role. The organization becomes the active one, except for a two-factor account entering by
   * code: then it does once the second factor is proven (the challenge carries it).
   */
  private async join(
    invitation: InvitationRow,
    organization: Organization,
    how: { method: 'code' | 'session'; userId?: string; ip?: string },
  ): Promise<{ user: User; role: OrgRole }> {
    return this.transactions.run(async (tx) => {
      const now = this.clock.now();
      const locked = await this.invitations.lock(organization.id, invitation.id, tx);
      assertUsable(locked ? invitationStatus(locked, now) : null, false);
      const row = locked!;
      const user = how.userId
        ? await this.users.findById(how.userId, tx)
        : (await this.users.findOrCreate(row.email, resolveLocale(organization.locale), tx)).user;
      if (!user) throw ApiError.unauthorized();
      const added = await this.orgs.addMember(organization.id, user.id, row.role, user.id, tx);
      const role = added ? row.role : ((await this.orgs.membership(organization.id, user.id, tx))?.role ?? row.role);
      if (row.cohort_id) {
        const inCohort =
          !added && (await this.cohorts.cohortIdsOf(organization.id, user.id, undefined, tx)).includes(row.cohort_id);
        if (!inCohort) await this.cohorts.addMember(organization.id, row.cohort_id, user.id, cohortRoleFor(role), tx);
      }
      await this.invitations.markAccepted(organization.id, row.id, user.id, now, tx);
      if (how.method === 'session' || !user.twoFactorEnabledAt) {
        await this.users.setLastOrganization(user.id, organization.id, tx);
      }
      await this.audit.record(
        {
          action: 'invitation.accepted',
          actorId: user.id,
          organizationId: organization.id,
          targetType: 'invitation',
          targetId: row.id,
          ip: how.ip,
          metadata: { invitation_id: row.id, role, method: how.method, already_member: !added },
        },
        tx,
      );
      await this.events.publish(
        tx,
        'invitation.accepted',
        { invitation_id: row.id, user_id: user.id, role },
        { organizationId: organization.id, actorId: user.id },
      );
      return { user, role };
    });
  }

  private toDto(row: InvitationRow, now: Date): InvitationDto {
    return {
      id: row.id,
      email: row.email,
      role: row.role,
      cohort_id: row.cohort_id,
      status: invitationStatus(row, now),
      expires_at: row.expires_at.toISOString(),
    };
  }

  /** The invitee's own language when the address has an account, else the organization's. */
  private locale(account: User | null, organization: Organization): Locale {
    return account ? this.users.emailLocale(account, organization.locale) : resolveLocale(organization.locale);
  }

  private within<T>(tx: Tx | undefined, work: (tx: Tx) => Promise<T>): Promise<T> {
    return tx ? work(tx) : this.transactions.run(work);
  }
}
