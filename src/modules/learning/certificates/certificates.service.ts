import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Credential } from '@/core/auth/credential';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { type CertificateType, formatCode, normalizeCode } from './certificate-code';
import type { CertificateFilter } from './certificate-query';
import { effectiveTemplate } from './certificate-template';
import { storedTemplate } from './platform-template';
import {
  type CertificateView,
  CertificatesRepository,
  type IssuedCertificateRow,
  type NewCertificate,
} from './certificates.repository';
import type {
  CertificateFilterQueryDto,
  CertificateListQueryDto,
  IssuedCertificateDto,
  MyCertificatesDto,
  ReissueCertificateDto,
  VerificationDto,
} from './dto/certificate.dto';

export interface IssueInput {
  type: CertificateType;
  organizationId: string;
  userId: string;
  /** The course (type `course`) or the program (type `program`). */
  subjectId: string;
  title: string;
  grade?: number | null;
  /** Who caused the issuance (the learner completing, the grader whose grade completed it; null: the service). */
  actorId: string | null;
}

const VERIFICATION_STATUS = { active: 'valid', revoked: 'revoked', replaced: 'replaced' } as const;

function alreadyRevoked(): ApiError {
  return ApiError.conflict('certificate_already_revoked', 'This certificate was already revoked or replaced.');
}

/**
 * Issues course and program certificates for an organization, and lets the organization and the holder work
 * with them. Other areas call `issue` inside the transaction that completes the course or program, so the
 * completion and its certificate commit together.
 */
@Injectable()
export class CertificatesService {
  constructor(
    private readonly certificates: CertificatesRepository,
    private readonly users: UsersService,
    private readonly cohorts: CohortsService,
    private readonly organizations: OrganizationsService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly crypto: CryptoService,
    private readonly clock: Clock,
    private readonly events: DomainEvents,
  ) {}

  /** Idempotent: a person holds at most one active certificate per course or program in an organization. */
  async issue(input: IssueInput, tx: Tx): Promise<{ certificate: IssuedCertificateRow; issued: boolean }> {
    const existing = await this.certificates.findActive(
      input.organizationId,
      input.userId,
      input.type,
      input.subjectId,
      tx,
    );
    if (existing) return { certificate: existing, issued: false };
    const user = await this.users.findById(input.userId, tx);
    const holderName = user?.name ?? user?.username ?? 'Learner';
    const inserted = await this.insertWithFreshCode(
      {
        type: input.type,
        organizationId: input.organizationId,
        userId: input.userId,
        holderName,
        courseId: input.type === 'course' ? input.subjectId : null,
        pathId: input.type === 'program' ? input.subjectId : null,
        // The holder's (first) student cohort, read in the insert itself (see the repository).
        cohortId: undefined,
        title: input.title,
        grade: input.grade ?? null,
        issuedAt: this.clock.now(),
      },
      tx,
      // Either a concurrent issue won (return it) or the random code collided (draw another).
      () => this.certificates.findActive(input.organizationId, input.userId, input.type, input.subjectId, tx),
      input.actorId,
    );
    return inserted;
  }

  /** Public verification by code (normalized first). No email, no ids, no grade. */
  async verify(rawCode: string): Promise<VerificationDto> {
    const row = await this.certificates.findByCode(normalizeCode(rawCode));
    if (!row) throw ApiError.notFound('No certificate has this code.');
    const org = await this.organizations.getById(row.organization_id);
    const template = effectiveTemplate(org, storedTemplate(row.platform_template));
    return {
      code: row.code,
      status: VERIFICATION_STATUS[row.status],
      holder_name: row.status === 'revoked' ? null : row.holder_name,
      credential: { type: row.type, title: row.title },
      issuer: { name: template.issuer_name, logo_url: template.logo_url },
      issued_at: row.issued_at.toISOString(),
      revoked_at: row.revoked_at?.toISOString() ?? null,
      replaced_by_code: row.replaced_by_code,
    };
  }

  /**
   * What the caller may see of the organization's certificates with these filters: owner/admin everything;
   * a teacher the holders who are students of cohorts they teach (a cohort they do not teach: 403); a
   * cohort of another organization: 404. Students never get here (the route refuses them).
   */
  async scopedFilter(membership: Membership, query: CertificateFilterQueryDto): Promise<CertificateFilter> {
    const organizationId = membership.organizationId;
    const cohortId = query.cohort_id?.toLowerCase();
    if (cohortId) {
      if (!(await this.cohorts.findInOrganization(organizationId, cohortId))) {
        throw ApiError.notFound('No such cohort in this organization.');
      }
      if (!isAdmin(membership.role) && !(await this.cohorts.isTeacherOf(organizationId, cohortId, membership.userId))) {
        throw ApiError.forbidden('You do not teach this cohort.');
      }
    }
    return {
      courseId: query.course_id?.toLowerCase(),
      pathId: query.path_id?.toLowerCase(),
      cohortId,
      status: query.status,
      type: query.type,
      teacherId: isAdmin(membership.role) ? undefined : membership.userId,
    };
  }

  async list(membership: Membership, query: CertificateListQueryDto): Promise<Page<IssuedCertificateDto>> {
    const filter = await this.scopedFilter(membership, query);
    const { rows, total } = await this.certificates.list(membership.organizationId, filter, query);
    return toPage(rows.map(toCertificateDto), total, query);
  }

  /** active → revoked (irreversible); revoked or replaced → 409 `certificate_already_revoked`. */
  async revoke(
    organizationId: string,
    certificateId: string,
    reason: string,
    actorId: string,
    ip?: string,
  ): Promise<IssuedCertificateDto> {
    await this.transactions.run(async (tx) => {
      const current = await this.certificates.lockInOrganization(organizationId, certificateId, tx);
      if (!current) throw ApiError.notFound();
      if (current.status !== 'active') throw alreadyRevoked();
      const now = this.clock.now();
      await this.certificates.markRevoked(organizationId, certificateId, reason, now, tx);
      await this.events.publish(
        tx,
        'certificate.revoked',
        { certificate_id: current.id, code: current.code, user_id: current.user_id, revoked_at: now.toISOString() },
        { organizationId, actorId, occurredAt: now },
      );
      await this.audit.record(
        {
          action: 'certificate.revoked',
          actorId,
          organizationId,
          targetType: 'certificate',
          targetId: certificateId,
          ip,
          metadata: { reason, type: current.type, user_id: current.user_id },
        },
        tx,
      );
    });
    return this.get(organizationId, certificateId);
  }

  /**
   * active → replaced, plus a new active certificate (new code, corrected name, same type, subject, holder and
   * organization) in one transaction with the old row locked; revoked or replaced → 409.
   */
  async reissue(
    organizationId: string,
    certificateId: string,
    dto: ReissueCertificateDto,
    actorId: string,
    ip?: string,
  ): Promise<IssuedCertificateDto> {
    const replacementId = await this.transactions.run(async (tx) => {
      const old = await this.certificates.lockInOrganization(organizationId, certificateId, tx);
      if (!old) throw ApiError.notFound();
      if (old.status !== 'active') throw alreadyRevoked();
      const now = this.clock.now();
      // The old one stops being active first: one active certificate per person and subject.
      await this.certificates.markReplaced(organizationId, certificateId, now, tx);
      const { certificate } = await this.insertWithFreshCode(
        {
          type: old.type,
          organizationId,
          userId: old.user_id,
          holderName: dto.name,
          courseId: old.course_id,
          pathId: old.path_id,
          cohortId: old.cohort_id,
          title: old.title,
          grade: old.grade,
          issuedAt: now,
          replacesId: old.id,
          reissueReason: dto.reason,
        },
        tx,
        async () => null,
        actorId,
      );
      await this.certificates.linkReplacement(organizationId, certificateId, certificate.id, tx);
      await this.events.publish(
        tx,
        'certificate.reissued',
        {
          certificate_id: certificate.id,
          code: certificate.code,
          user_id: old.user_id,
          replaced_certificate_id: old.id,
          replaced_code: old.code,
        },
        { organizationId, actorId },
      );
      await this.audit.record(
        {
          action: 'certificate.reissued',
          actorId,
          organizationId,
          targetType: 'certificate',
          targetId: certificateId,
          ip,
          metadata: { reason: dto.reason, replacement_id: certificate.id, type: old.type, user_id: old.user_id },
        },
        tx,
      );
      return certificate.id;
    });
    return this.get(organizationId, replacementId);
  }

  /**
   * The caller's certificates from every organization, most recent first. A bearer token acts in one
   * organization only, so it sees that organization's certificates alone.
   */
  async mine(credential: Credential): Promise<MyCertificatesDto> {
    const rows = await this.certificates.listOfHolder(credential.userId, credential.organizationId);
    const orgIds = [...new Set(rows.map((r) => r.organization_id))];
    const orgs = new Map(
      (await Promise.all(orgIds.map((id) => this.organizations.findById(id)))).flatMap((o) => (o ? [[o.id, o]] : [])),
    );
    return {
      items: rows.map((row) => ({
        ...toCertificateDto(row),
        organization: { id: row.organization_id, name: orgs.get(row.organization_id)?.name ?? '' },
      })),
    };
  }

  /** One of the caller's own certificates (404 for anyone else's, and outside a token's organization). */
  async ownCertificate(credential: Credential, certificateId: string): Promise<CertificateView> {
    const row = await this.certificates.findOfHolder(credential.userId, certificateId, credential.organizationId);
    if (!row) throw ApiError.notFound();
    return row;
  }

  /** The caller's latest certificate of a program in an organization (used by program progress). */
  async latestProgramCertificate(
    organizationId: string,
    userId: string,
    pathId: string,
  ): Promise<IssuedCertificateDto | null> {
    const row = await this.certificates.latestForProgram(organizationId, userId, pathId);
    return row ? toCertificateDto(row) : null;
  }

  private async get(organizationId: string, certificateId: string): Promise<IssuedCertificateDto> {
    const row = await this.certificates.findInOrganization(organizationId, certificateId);
    if (!row) throw ApiError.notFound();
    return toCertificateDto(row);
  }

  /**
   * Inserts with a freshly drawn code; on a conflict asks `winner` (a concurrent issue) or draws again. Every
   * certificate that comes into being passes here (issue and reissue), so `certificate.issued` is published here.
   */
  private async insertWithFreshCode(
    values: Omit<NewCertificate, 'code'>,
    tx: Tx,
    winner: () => Promise<IssuedCertificateRow | null>,
    actorId: string | null,
  ): Promise<{ certificate: IssuedCertificateRow; issued: boolean }> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const code = formatCode(values.type, (alphabet, n) => this.crypto.randomFromAlphabet(alphabet, n));
      const inserted = await this.certificates.insertIfAbsent({ ...values, code }, tx);
      if (inserted) {
        await this.events.publish(
          tx,
          'certificate.issued',
          {
            certificate_id: inserted.id,
            code: inserted.code,
            type: inserted.type,
            user_id: inserted.user_id,
            course_id: inserted.course_id,
            path_id: inserted.path_id,
            issued_at: inserted.issued_at.toISOString(),
          },
          { organizationId: inserted.organization_id, actorId, occurredAt: inserted.issued_at },
        );
        return { certificate: inserted, issued: true };
      }
      const existing = await winner();
      if (existing) return { certificate: existing, issued: false };
    }
    throw new Error('Could not draw a free certificate code');
  }
}

export function toCertificateDto(row: CertificateView): IssuedCertificateDto {
  return {
    id: row.id,
    code: row.code,
    type: row.type,
    status: row.status,
    holder: { user_id: row.user_id, name: row.holder_name },
    organization_id: row.organization_id,
    course_id: row.course_id,
    path_id: row.path_id,
    cohort_id: row.cohort_id,
    title: row.title,
    issued_at: row.issued_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    revoke_reason: row.revoke_reason,
    replaced_by_code: row.replaced_by_code,
  };
}
