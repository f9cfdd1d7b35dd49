import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { isUniqueViolation } from '@/core/database/constraint-violation';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { endOfLocalDate, startOfLocalDate } from '@/core/time/local-time';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import type {
  CreateDeadlineDto,
  DeadlineDto,
  DeadlineListDto,
  DeadlineRangeDto,
  UpdateDeadlineDto,
} from './dto/deadline.dto';
import { type DeadlineRow, DeadlinesRepository } from './deadlines.repository';

export function toDeadlineDto(row: DeadlineRow): DeadlineDto {
  return {
    id: row.id,
    cohort_id: row.cohort_id,
    course_id: row.course_id,
    course_title: row.course_title,
    title: row.title,
    due_at: row.due_at.toISOString(),
    created_by: { user_id: row.created_by },
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    ...(row.status ? { status: row.status } : {}),
  };
}

type CohortAccess = { cohortId: string; manage: boolean; student: boolean };

/**
 * Cohort deadlines (extensions-v2 25.2). Who sees a cohort's deadlines: owners and admins, the cohort's teachers
 * and its students; anyone else gets 404 (they may not see the cohort). Who manages them: owners, admins and the
 * cohort's teachers; a student of the cohort gets 403.
 */
@Injectable()
export class DeadlinesService {
  constructor(
    private readonly repository: DeadlinesRepository,
    private readonly cohorts: CohortsService,
    private readonly organizations: OrganizationsService,
    private readonly transactions: TransactionRunner,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  async list(member: Membership, cohortId: string): Promise<DeadlineListDto> {
    const access = await this.access(member, cohortId);
    const rows = await this.repository.ofCohort(
      member.organizationId,
      access.cohortId,
      access.student ? member.userId : null,
      this.clock.now(),
    );
    return { items: rows.map(toDeadlineDto) };
  }

  async create(member: Membership, cohortId: string, dto: CreateDeadlineDto, ip?: string): Promise<DeadlineDto> {
    const access = await this.manageable(member, cohortId);
    const courseTitle = await this.repository.catalogCourseTitle(member.organizationId, dto.course_id.toLowerCase());
    if (courseTitle === null) {
      throw ApiError.validation([{ field: 'course_id', message: 'course_id must be a course of this organization' }]);
    }
    const dueAt = this.future(dto.due_at);
    const id = await this.transactions
      .run(async (tx) => {
        const created = await this.repository.insert(
          {
            organizationId: member.organizationId,
            cohortId: access.cohortId,
            courseId: dto.course_id.toLowerCase(),
            title: dto.title ?? courseTitle.slice(0, 120),
            dueAt,
            createdBy: member.userId,
            now: this.clock.now(),
          },
          tx,
        );
        await this.record('cohort_deadline.created', member, created, access.cohortId, dto.course_id, ip, tx);
        return created;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) {
          throw ApiError.conflict('deadline_exists', 'The cohort already has a deadline for this course.');
        }
        throw err;
      });
    return toDeadlineDto((await this.repository.find(member.organizationId, access.cohortId, id))!);
  }

  async update(
    member: Membership,
    cohortId: string,
    deadlineId: string,
    dto: UpdateDeadlineDto,
    ip?: string,
  ): Promise<DeadlineDto> {
    const access = await this.manageable(member, cohortId);
    const id = idOr404(deadlineId);
    const dueAt = dto.due_at !== undefined ? this.future(dto.due_at) : undefined;
    await this.transactions.run(async (tx) => {
      const current = await this.repository.find(member.organizationId, access.cohortId, id, tx);
      if (!current) throw ApiError.notFound();
      await this.repository.update(id, dto.title ?? current.title, dueAt ?? current.due_at, this.clock.now(), tx);
      await this.record('cohort_deadline.updated', member, id, access.cohortId, current.course_id, ip, tx);
    });
    return toDeadlineDto((await this.repository.find(member.organizationId, access.cohortId, id))!);
  }

  async remove(member: Membership, cohortId: string, deadlineId: string, ip?: string): Promise<void> {
    const access = await this.manageable(member, cohortId);
    const id = idOr404(deadlineId);
    await this.transactions.run(async (tx) => {
      const current = await this.repository.find(member.organizationId, access.cohortId, id, tx);
      if (!current) throw ApiError.notFound();
      await this.repository.delete(id, tx);
      await this.record('cohort_deadline.deleted', member, id, access.cohortId, current.course_id, ip, tx);
    });
  }

  /** The deadlines of the caller's cohorts here, each with their status; `from`/`to` are the organization's days. */
  async mine(member: Membership, range: DeadlineRangeDto): Promise<DeadlineListDto> {
    if (range.from && range.to && range.from > range.to) {
      throw ApiError.validation([{ field: 'to', message: 'to must not be before from' }]);
    }
    const zone = (await this.organizations.getById(member.organizationId)).timeZone;
    const rows = await this.repository.ofMember(
      member.organizationId,
      member.userId,
      {
        from: range.from ? startOfLocalDate(range.from, zone) : null,
        to: range.to ? endOfLocalDate(range.to, zone) : null,
      },
      this.clock.now(),
    );
    return { items: rows.map(toDeadlineDto) };
  }

  // Helpers.

  private async access(member: Membership, cohortId: string): Promise<CohortAccess> {
    const cohort = await this.cohorts.findInOrganization(member.organizationId, idOr404(cohortId));
    if (!cohort) throw ApiError.notFound();
    if (isAdmin(member.role)) return { cohortId: cohort.id, manage: true, student: false };
    const [teaching, studying] = await Promise.all([
      this.cohorts.cohortIdsOf(member.organizationId, member.userId, 'teacher'),
      this.cohorts.cohortIdsOf(member.organizationId, member.userId, 'student'),
    ]);
    if (teaching.includes(cohort.id)) return { cohortId: cohort.id, manage: true, student: false };
    if (studying.includes(cohort.id)) return { cohortId: cohort.id, manage: false, student: true };
    throw ApiError.notFound();
  }

  private async manageable(member: Membership, cohortId: string): Promise<CohortAccess> {
    const access = await this.access(member, cohortId);
    if (!access.manage) throw ApiError.forbidden('Only owners, admins and the cohort’s teachers set its deadlines.');
    return access;
  }

  private future(dueAt: string): Date {
    const at = new Date(dueAt);
    if (at.getTime() <= this.clock.now().getTime()) {
      throw ApiError.validation([{ field: 'due_at', message: 'due_at must be in the future' }]);
    }
    return at;
  }

  private async record(
    action: 'cohort_deadline.created' | 'cohort_deadline.updated' | 'cohort_deadline.deleted',
    member: Membership,
    deadlineId: string,
    cohortId: string,
    courseId: string,
    ip: string | undefined,
    tx: Tx,
  ): Promise<void> {
    await this.audit.record(
      {
        action,
        actorId: member.userId,
        organizationId: member.organizationId,
        targetType: 'cohort_deadline',
        targetId: deadlineId,
        ip,
        metadata: { cohort_id: cohortId, course_id: courseId.toLowerCase() },
      },
      tx,
    );
  }
}

function idOr404(id: string): string {
  if (!isUuid(id)) throw ApiError.notFound();
  return id.toLowerCase();
}
