import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Membership } from '@/core/auth/tenancy';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { PRIVACY_POLICY_VERSION, TERMS_VERSION, UsersService } from '@/modules/identity/users';
import type {
  AgeBracketValue,
  ConsentDto,
  ConsentKind,
  ConsentListQueryDto,
  ConsentStateDto,
  MemberAgeBracketDto,
  PrivacyRecordDto,
  RecordConsentDto,
} from './dto/privacy.dto';
import { ErasureService } from './erasure.service';
import { GuardianConsentService } from './guardian-consent.service';
import { PrivacyExportsService } from './privacy-exports.service';
import { type ConsentRow, PrivacyRepository } from './privacy.repository';

/** The current version of each consent kind (extensions-v2 17.2). */
export const CURRENT_VERSIONS: Record<ConsentKind, string> = {
  adult_declaration: TERMS_VERSION,
  terms: TERMS_VERSION,
  privacy_policy: PRIVACY_POLICY_VERSION,
  product_updates_email: '1',
  guardian_consent: TERMS_VERSION,
};
/** Always listed in the record (the person records them); the others only once recorded. */
const LISTED: readonly ConsentKind[] = ['terms', 'privacy_policy', 'product_updates_email'];

const consentDto = (r: ConsentRow): ConsentDto => ({
  kind: r.kind,
  granted: r.granted,
  version: r.version,
  recorded_at: r.recorded_at.toISOString(),
});

/** The privacy record, consents and age brackets (extensions-v2 17.1, 17.2, 17.5). */
@Injectable()
export class PrivacyService {
  constructor(
    private readonly repo: PrivacyRepository,
    private readonly users: UsersService,
    private readonly guardian: GuardianConsentService,
    private readonly exports: PrivacyExportsService,
    private readonly erasure: ErasureService,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditService,
  ) {}

  async record(userId: string): Promise<PrivacyRecordDto> {
    const user = await this.users.getById(userId);
    const managedBy = user.ageBracketManagedBy;
    const latest = new Map((await this.repo.latestConsents(userId)).map((r) => [r.kind, r]));
    const kinds = [...LISTED, ...[...latest.keys()].filter((k) => !LISTED.includes(k)).sort()];
    const consents: ConsentStateDto[] = kinds.map((kind) => {
      const row = latest.get(kind);
      return {
        kind,
        granted: row?.granted ?? false,
        version: row?.version ?? null,
        current_version: CURRENT_VERSIONS[kind] ?? row?.version ?? '',
        recorded_at: row ? row.recorded_at.toISOString() : null,
      };
    });
    return {
      age_bracket: user.ageBracket,
      age_bracket_managed_by: managedBy
        ? { organization_id: managedBy, name: (await this.repo.organizationName(managedBy)) ?? '' }
        : null,
      guardian_consent: await this.guardian.state(user),
      consents,
      exports: (await this.exports.list(userId, 5)).items,
      erasure: await this.erasure.state(userId),
    };
  }

  async consents(userId: string, query: ConsentListQueryDto): Promise<Page<ConsentDto>> {
    const { rows, total } = await this.repo.consentPage(userId, query.kind, query.limit, query.offset);
    return toPage(rows.map(consentDto), total, query);
  }

  async recordConsent(userId: string, dto: RecordConsentDto, ip: string | undefined): Promise<ConsentDto> {
    const version = CURRENT_VERSIONS[dto.kind];
    await this.users.recordConsent(userId, { kind: dto.kind, version, granted: dto.granted }, ip ?? null);
    const [row] = (await this.repo.consentPage(userId, dto.kind, 1, 0)).rows;
    return consentDto(row);
  }

  /** The person declares their bracket; 409 while an organization manages it. */
  async declareAgeBracket(
    userId: string,
    ageBracket: AgeBracketValue,
    ip: string | undefined,
  ): Promise<PrivacyRecordDto> {
    const user = await this.users.getById(userId);
    if (user.ageBracketManagedBy !== null) {
      throw ApiError.conflict('age_bracket_managed', 'Your age bracket is managed by your organization.');
    }
    await this.transactions.run(async (tx) => {
      await this.users.setAgeBracket(userId, ageBracket, undefined, tx);
      if (ageBracket === 'adult') {
        await this.users.recordConsent(
          userId,
          { kind: 'adult_declaration', version: TERMS_VERSION, granted: true },
          ip ?? null,
          tx,
        );
      }
    });
    return this.record(userId);
  }

  /**
   * An owner/admin sets a member's bracket, which the organization then manages; null releases the management
   * (the bracket stays). A bracket managed by another organization is 409.
   */
  async setMemberAgeBracket(
    caller: Membership,
    userId: string,
    ageBracket: AgeBracketValue | null,
    ip: string | undefined,
  ): Promise<MemberAgeBracketDto> {
    const user = await this.guardian.memberOf(caller.organizationId, userId);
    if (user.ageBracketManagedBy !== null && user.ageBracketManagedBy !== caller.organizationId) {
      throw ApiError.conflict('age_bracket_managed', 'Another organization manages this member’s age bracket.');
    }
    await this.transactions.run(async (tx) => {
      if (ageBracket === null) {
        if (user.ageBracketManagedBy !== null) await this.users.setAgeBracket(user.id, user.ageBracket, null, tx);
      } else {
        await this.users.setAgeBracket(user.id, ageBracket, caller.organizationId, tx);
      }
      await this.audit.record(
        {
          action: 'member.age_bracket_set',
          actorId: caller.userId,
          organizationId: caller.organizationId,
          targetType: 'user',
          targetId: user.id,
          ip,
          metadata: { age_bracket: ageBracket ?? user.ageBracket, managed: ageBracket !== null },
        },
        tx,
      );
    });
    const updated = await this.users.getById(user.id);
    return {
      user_id: user.id,
      age_bracket: updated.ageBracket,
      managed_by_organization_id: updated.ageBracketManagedBy,
      guardian_consent: await this.guardian.memberState(updated, caller.organizationId),
    };
  }
}
