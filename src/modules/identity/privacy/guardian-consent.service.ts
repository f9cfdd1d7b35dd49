import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '@/config/app-config';
import { AuditService } from '@/core/audit/audit.service';
import { GuardianConsentResolver, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { maskEmail } from '@/core/mail/addresses';
import { MailService } from '@/core/mail/mail.service';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { TERMS_VERSION, UsersService, type User } from '@/modules/identity/users';
import type {
  GuardianConsentPendingDto,
  GuardianConsentRequestDto,
  GuardianConsentStateDto,
  GuardianDecisionDto,
  GuardianDecisionResultDto,
  GuardianPreviewDto,
  GuardianRevokedDto,
  MemberAttestationDto,
  MemberGuardianConsentDto,
} from './dto/privacy.dto';
import { GUARDIAN_CONSENT_GRANTED, GUARDIAN_CONSENT_REQUEST } from './privacy.mails';
import { type GuardianRequestRow, PrivacyRepository } from './privacy.repository';

const DAY_MS = 24 * 3600 * 1000;
/** The guardian's link lives 7 days; the revocation link 365 (extensions-v2 17.5). */
export const GUARDIAN_LINK_MS = 7 * DAY_MS;
export const REVOCATION_LINK_MS = 365 * DAY_MS;

/** A UUID no organization has. */
const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';
const sha256 = (token: string): string => createHash('sha256').update(token).digest('hex');
const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/**
 * Guardian consent (extensions-v2 17.5): by the guardian's email (a link to a public page that previews and
 * decides; valid everywhere) or by an organization's attestation (on that organization's paths and on personal
 * routes). It is also the `GuardianConsentResolver` the credential guard asks about `with_consent` operations.
 */
@Injectable()
export class GuardianConsentService extends GuardianConsentResolver {
  constructor(
    private readonly repo: PrivacyRepository,
    private readonly users: UsersService,
    private readonly organizations: OrganizationsService,
    private readonly transactions: TransactionRunner,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  hasConsent(userId: string, organizationId: string | null): Promise<boolean> {
    // A path whose organization id is not even a UUID names no organization: no attestation applies there (the
    // guardian's email still does; the organization scope answers 404 afterwards).
    const scope = organizationId === null || isUuid(organizationId) ? organizationId : NO_ORGANIZATION;
    return this.repo.hasConsent(userId, scope);
  }

  /** The state shown in the privacy record (17.1). */
  async state(user: User): Promise<GuardianConsentStateDto> {
    const none: GuardianConsentStateDto = {
      status: 'none',
      source: null,
      guardian_email_masked: null,
      requested_at: null,
      decided_at: null,
      expires_at: null,
    };
    if (user.ageBracket !== 'under_18') return { ...none, status: 'not_required' };
    const granted = await this.repo.grantedByEmail(user.id);
    if (granted) return this.fromRequest(granted);
    const [attested] = await this.repo.liveAttestations(user.id);
    if (attested) {
      return { ...none, status: 'granted', source: 'organization', decided_at: attested.attested_at.toISOString() };
    }
    const latest = await this.repo.latestGuardianRequest(user.id);
    return latest ? this.fromRequest(latest) : none;
  }

  /** As an organization sees it: `granted` through its own attestation or the guardian's email. */
  async memberState(user: User, organizationId: string): Promise<MemberGuardianConsentDto> {
    if (user.ageBracket !== 'under_18') return { status: 'not_required', source: null };
    if (await this.repo.grantedByEmail(user.id)) return { status: 'granted', source: 'email' };
    if (await this.repo.attestation(organizationId, user.id)) return { status: 'granted', source: 'organization' };
    const latest = await this.repo.latestGuardianRequest(user.id);
    return { status: latest ? this.statusOf(latest) : 'none', source: null };
  }

  private statusOf(row: GuardianRequestRow): GuardianConsentStateDto['status'] {
    if (row.status === 'pending' && row.expires_at.getTime() <= this.clock.nowMs()) return 'expired';
    return row.status === 'replaced' ? 'none' : row.status;
  }

  private fromRequest(row: GuardianRequestRow): GuardianConsentStateDto {
    return {
      status: this.statusOf(row),
      source: row.status === 'granted' || row.status === 'revoked' ? 'email' : null,
      guardian_email_masked: maskEmail(row.guardian_email),
      requested_at: row.requested_at.toISOString(),
      decided_at: iso(row.decided_at),
      expires_at: row.expires_at.toISOString(),
    };
  }

  /** The minor names a guardian; a new request replaces a pending one. */
  async request(userId: string, dto: GuardianConsentRequestDto): Promise<GuardianConsentPendingDto> {
    const user = await this.users.getById(userId);
    if (user.ageBracket !== 'under_18') {
      throw ApiError.conflict('not_a_minor', 'Guardian consent is for accounts under 18.');
    }
    const guardianEmail = dto.guardian_email.trim().toLowerCase();
    if (guardianEmail === user.email) {
      throw ApiError.validation([{ field: 'guardian_email', message: 'The guardian’s address must not be your own.' }]);
    }
    const token = this.crypto.randomToken(32);
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + GUARDIAN_LINK_MS);
    await this.transactions.run(async (tx) => {
      await this.repo.replacePending(userId, tx);
      await this.repo.insertGuardianRequest(
        {
          userId,
          guardianEmail,
          guardianName: dto.guardian_name ?? null,
          tokenHash: sha256(token),
          requestedAt: now,
          expiresAt,
        },
        tx,
      );
      await this.mail.send(
        GUARDIAN_CONSENT_REQUEST,
        { learnerName: user.name, url: `${this.config.webUrl}/guardian-consent/${token}`, expiresAt },
        { to: guardianEmail, locale: this.users.emailLocale(user), organizationId: null, tx },
      );
    });
    return { status: 'pending', guardian_email_masked: maskEmail(guardianEmail), expires_at: expiresAt.toISOString() };
  }

  /** Looks a request up by its token: 404 unknown (or replaced by a newer request). */
  private async byToken(token: string): Promise<GuardianRequestRow> {
    const row = await this.repo.guardianRequestByToken(sha256(token));
    if (!row || row.status === 'replaced') throw ApiError.notFound('No such consent request.');
    return row;
  }

  private expired(row: GuardianRequestRow): boolean {
    return row.status === 'pending' && row.expires_at.getTime() <= this.clock.nowMs();
  }

  async preview(token: string): Promise<GuardianPreviewDto> {
    const row = await this.byToken(token);
    if (this.expired(row)) throw ApiError.gone('guardian_consent_expired', 'This link has expired.');
    const learner = await this.users.findById(row.user_id);
    return {
      learner_name: learner?.name ?? null,
      organizations: await this.repo.organizationNamesOf(row.user_id),
      requested_at: row.requested_at.toISOString(),
      expires_at: row.expires_at.toISOString(),
      status: row.status,
    };
  }

  async decide(dto: GuardianDecisionDto, ip: string | undefined): Promise<GuardianDecisionResultDto> {
    const tokenHash = sha256(dto.token);
    const revokeToken = this.crypto.randomToken(32);
    const result = await this.transactions.run(async (tx) => {
      const row = await this.repo.guardianRequestByToken(tokenHash, tx);
      if (!row || row.status === 'replaced') throw ApiError.notFound('No such consent request.');
      if (row.status !== 'pending') {
        throw ApiError.conflict('guardian_consent_decided', 'This request was already decided.');
      }
      if (this.expired(row)) throw ApiError.gone('guardian_consent_expired', 'This link has expired.');
      const now = this.clock.now();
      const status: 'granted' | 'denied' = dto.decision === 'grant' ? 'granted' : 'denied';
      await this.repo.decideGuardianRequest(
        row.id,
        {
          status,
          decidedAt: now,
          guardianName: dto.guardian_name ?? null,
          revokeTokenHash: status === 'granted' ? sha256(revokeToken) : null,
          revokeExpiresAt: status === 'granted' ? new Date(now.getTime() + REVOCATION_LINK_MS) : null,
        },
        tx,
      );
      const learner = await this.users.findById(row.user_id, tx.manager);
      if (status === 'granted') {
        await this.users.recordConsent(
          row.user_id,
          { kind: 'guardian_consent', version: TERMS_VERSION, granted: true },
          ip ?? null,
          tx,
        );
        await this.mail.send(
          GUARDIAN_CONSENT_GRANTED,
          {
            learnerName: learner?.name ?? null,
            revokeUrl: `${this.config.webUrl}/guardian-consent/revoke/${revokeToken}`,
          },
          { to: row.guardian_email, locale: this.users.emailLocale(learner), organizationId: null, tx },
        );
      }
      await this.audit.record(
        {
          action: status === 'granted' ? 'guardian_consent.granted' : 'guardian_consent.denied',
          actorId: null,
          organizationId: null,
          targetType: 'user',
          targetId: row.user_id,
          ip,
          metadata: { request_id: row.id },
        },
        tx,
      );
      return { status };
    });
    return result;
  }

  async revoke(token: string, ip: string | undefined): Promise<GuardianRevokedDto> {
    const tokenHash = sha256(token);
    await this.transactions.run(async (tx) => {
      const row = await this.repo.guardianRequestByRevokeToken(tokenHash, tx);
      if (!row) throw ApiError.notFound('No such consent.');
      if (row.status === 'revoked') return;
      if (row.revoke_expires_at && row.revoke_expires_at.getTime() <= this.clock.nowMs()) {
        throw ApiError.gone('guardian_consent_expired', 'This link has expired.');
      }
      if (!(await this.repo.revokeGuardianRequest(row.id, this.clock.now(), tx))) return;
      await this.users.recordConsent(
        row.user_id,
        { kind: 'guardian_consent', version: TERMS_VERSION, granted: false },
        ip ?? null,
        tx,
      );
      await this.audit.record(
        {
          action: 'guardian_consent.revoked',
          actorId: null,
          organizationId: null,
          targetType: 'user',
          targetId: row.user_id,
          ip,
          metadata: { request_id: row.id },
        },
        tx,
      );
    });
    return { status: 'revoked' };
  }

  /** A member of the caller's organization, else 404. */
  private async member(organizationId: string, userId: string): Promise<User> {
    if (!isUuid(userId)) throw ApiError.notFound();
    const membership = await this.organizations.membership(organizationId, userId.toLowerCase());
    const user = membership ? await this.users.findById(membership.userId) : null;
    if (!user) throw ApiError.notFound('Not a member of this organization.');
    return user;
  }

  async attest(
    caller: Membership,
    userId: string,
    reason: string,
    ip: string | undefined,
  ): Promise<MemberAttestationDto> {
    const user = await this.member(caller.organizationId, userId);
    if (user.ageBracket !== 'under_18') throw ApiError.conflict('not_a_minor', 'This member is not a minor.');
    await this.transactions.run(async (tx) => {
      await this.repo.upsertAttestation(
        {
          organizationId: caller.organizationId,
          userId: user.id,
          reason,
          attestedBy: caller.userId,
          now: this.clock.now(),
        },
        tx,
      );
      await this.audit.record(
        {
          action: 'guardian_consent.attested',
          actorId: caller.userId,
          organizationId: caller.organizationId,
          targetType: 'user',
          targetId: user.id,
          ip,
        },
        tx,
      );
    });
    return { user_id: user.id, guardian_consent: { status: 'granted', source: 'organization' } };
  }

  async withdraw(caller: Membership, userId: string, ip: string | undefined): Promise<void> {
    const user = await this.member(caller.organizationId, userId);
    await this.transactions.run(async (tx) => {
      if (!(await this.repo.deleteAttestation(caller.organizationId, user.id, tx))) {
        throw ApiError.notFound('This organization has no attestation for this member.');
      }
      await this.audit.record(
        {
          action: 'guardian_consent.withdrawn',
          actorId: caller.userId,
          organizationId: caller.organizationId,
          targetType: 'user',
          targetId: user.id,
          ip,
        },
        tx,
      );
    });
  }

  /** For the member age-bracket route. */
  memberOf(organizationId: string, userId: string): Promise<User> {
    return this.member(organizationId, userId);
  }
}
