import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isForeignKeyViolation } from '@/core/database/constraint-violation';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { UsersService } from '@/modules/identity/users';
import { InstituteLinks } from './institute-links.port';
import { type CohortRole, type CohortRow, CohortsRepository, type CohortValues } from './cohorts.repository';
import type {
  AddCohortMemberDto,
  CohortDto,
  CohortListQueryDto,
  CohortMemberDto,
  CreateCohortDto,
  UpdateCohortDto,
} from './dto/cohort.dto';

const UPDATABLE = ['name', 'institute_id', 'starts_on', 'ends_on'] as const;

/**
 * Cohorts of an organization. Other areas (invitations, member import, teacher views, certificates) use this
 * exported service; they never query cohort tables themselves.
 */
@Injectable()
export class CohortsService {
  constructor(
    private readonly cohorts: CohortsRepository,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly organizations: OrganizationsService,
    private readonly users: UsersService,
    private readonly instituteLinks: InstituteLinks,
  ) {}

  /** The cohort when it belongs to this organization, else null (a cohort of another organization is "not found"). */
  findInOrganization(organizationId: string, cohortId: string, tx?: Tx): Promise<CohortRow | null> {
    return this.cohorts.findById(organizationId, cohortId, tx);
  }

  /** A cohort of the organization by name (case-insensitive), as written in an import file. */
  findByName(organizationId: string, name: string, tx?: Tx): Promise<CohortRow | null> {
    return this.cohorts.findByName(organizationId, name, tx);
  }

  /** The person must already be a member of the organization (the database refuses otherwise). */
  addMember(organizationId: string, cohortId: string, userId: string, role: CohortRole, tx?: Tx): Promise<void> {
    return this.cohorts.addMember(organizationId, cohortId, userId, role, this.clock.now(), tx);
  }

  /**
   * Cohorts by name as written in an import file (case-insensitive; the oldest when two share a name), keyed by the
   * lower-cased name. One query for all the names.
   */
  findByNames(organizationId: string, names: readonly string[], tx?: Tx): Promise<Map<string, CohortRow>> {
    return this.cohorts.findByNames(organizationId, names, tx);
  }

  /** `addMember` for many (cohort, person) pairs in one statement; each person must be a member already. */
  addMembers(
    organizationId: string,
    entries: readonly { cohortId: string; userId: string; role: CohortRole }[],
    tx: Tx,
  ): Promise<void> {
    return this.cohorts.addMembers(organizationId, entries, this.clock.now(), tx);
  }

  /** Pass the transaction when inside one: every read in a transaction must use it (see docs/DECISIONS.md). */
  cohortIdsOf(organizationId: string, userId: string, role?: CohortRole, tx?: Tx): Promise<string[]> {
    return this.cohorts.cohortIdsOfMember(organizationId, userId, role, tx);
  }

  /** Which of these people are in at least one of these cohorts of the organization (audiences by cohort). */
  membersAmong(organizationId: string, cohortIds: readonly string[], userIds: readonly string[]): Promise<string[]> {
    return this.cohorts.membersAmong(organizationId, cohortIds, userIds);
  }

  isTeacherOf(organizationId: string, cohortId: string, userId: string): Promise<boolean> {
    return this.cohorts.isTeacherOf(organizationId, cohortId, userId);
  }

  /** Of `userIds`, those who are students of a cohort of the organization that `teacherId` teaches. */
  studentsAmongTaughtBy(organizationId: string, teacherId: string, userIds: readonly string[]): Promise<string[]> {
    return this.cohorts.studentsAmongTaughtBy(organizationId, teacherId, userIds);
  }

  studentIdsTaughtBy(organizationId: string, teacherId: string): Promise<string[]> {
    return this.cohorts.studentIdsTaughtBy(organizationId, teacherId);
  }

  // The directory's (SCIM) operations: in the caller's transaction, audited by the caller (actor: its token).

  /** A new cohort named by the directory (no institute, no dates). */
  createForDirectory(organizationId: string, name: string, tx: Tx): Promise<CohortRow> {
    return this.cohorts.insert(
      organizationId,
      { name, institute_id: null, starts_on: null, ends_on: null },
      this.clock.now(),
      tx,
    );
  }

  /** Renames the cohort (locked for the rest of the transaction); null when it is not in the organization. */
  async renameForDirectory(organizationId: string, cohortId: string, name: string, tx: Tx): Promise<CohortRow | null> {
    const current = await this.cohorts.findForUpdate(organizationId, cohortId, tx);
    if (!current) return null;
    if (current.name === name) return current;
    return this.cohorts.update(organizationId, cohortId, { ...current, name }, this.clock.now(), tx);
  }

  /** The cohort's DELETE rule (its places go with it); false when it is not in the organization. */
  async deleteForDirectory(organizationId: string, cohortId: string, tx: Tx): Promise<boolean> {
    return (await this.cohorts.delete(organizationId, cohortId, tx)) !== null;
  }

  /** Removes these people from the cohort; returns those who were in it. */
  removeMembers(organizationId: string, cohortId: string, userIds: readonly string[], tx: Tx): Promise<string[]> {
    return this.cohorts.removeMembers(organizationId, cohortId, userIds, tx);
  }

  // The cohorts API.

  /** Owner/admin see every cohort; a teacher only those they teach (the route refuses students). */
  async list(membership: Membership, query: CohortListQueryDto): Promise<Page<CohortDto>> {
    const { rows, total } = await this.cohorts.list(
      membership.organizationId,
      {
        teacherId: isAdmin(membership.role) ? undefined : membership.userId,
        instituteId: query.institute_id?.toLowerCase(),
        q: query.q,
      },
      query,
    );
    return toPage(await this.toDtos(membership.organizationId, rows), total, query);
  }

  /** Every cohort of one institute in this organization (never another organization's). */
  async listOfInstitute(organizationId: string, instituteId: string): Promise<CohortDto[]> {
    return this.toDtos(organizationId, await this.cohorts.listByInstitute(organizationId, instituteId));
  }

  async get(organizationId: string, cohortId: string): Promise<CohortDto> {
    const cohort = await this.cohorts.findById(organizationId, cohortId);
    if (!cohort) throw ApiError.notFound();
    return (await this.toDtos(organizationId, [cohort]))[0];
  }

  async create(organizationId: string, dto: CreateCohortDto, actorId: string, ip?: string): Promise<CohortDto> {
    const values: CohortValues = {
      name: dto.name,
      institute_id: dto.institute_id?.toLowerCase() ?? null,
      starts_on: dto.starts_on ?? null,
      ends_on: dto.ends_on ?? null,
    };
    this.checkDates(values);
    const cohort = await this.transactions
      .run(async (tx) => {
        await this.checkInstitute(organizationId, values.institute_id, tx);
        const created = await this.cohorts.insert(organizationId, values, this.clock.now(), tx);
        await this.audit.record(
          {
            action: 'cohort.created',
            actorId,
            organizationId,
            targetType: 'cohort',
            targetId: created.id,
            ip,
            metadata: { institute_id: created.institute_id },
          },
          tx,
        );
        return created;
      })
      .catch(instituteGone);
    return (await this.toDtos(organizationId, [cohort]))[0];
  }

  async update(
    organizationId: string,
    cohortId: string,
    dto: UpdateCohortDto,
    actorId: string,
    ip?: string,
  ): Promise<CohortDto> {
    const fields = UPDATABLE.filter((field) => dto[field] !== undefined);
    const cohort = await this.transactions
      .run(async (tx) => {
        const current = await this.cohorts.findForUpdate(organizationId, cohortId, tx);
        if (!current) throw ApiError.notFound();
        if (fields.length === 0) return current;
        const values: CohortValues = {
          name: dto.name ?? current.name,
          institute_id:
            dto.institute_id === undefined ? current.institute_id : (dto.institute_id?.toLowerCase() ?? null),
          starts_on: dto.starts_on === undefined ? current.starts_on : dto.starts_on,
          ends_on: dto.ends_on === undefined ? current.ends_on : dto.ends_on,
        };
        this.checkDates(values);
        if (values.institute_id !== current.institute_id) {
          await this.checkInstitute(organizationId, values.institute_id, tx);
        }
        const updated = await this.cohorts.update(organizationId, cohortId, values, this.clock.now(), tx);
        await this.audit.record(
          {
            action: 'cohort.updated',
            actorId,
            organizationId,
            targetType: 'cohort',
            targetId: cohortId,
            ip,
            metadata: { fields: [...fields], institute_id: updated.institute_id },
          },
          tx,
        );
        return updated;
      })
      .catch(instituteGone);
    return (await this.toDtos(organizationId, [cohort]))[0];
  }

  async remove(organizationId: string, cohortId: string, actorId: string, ip?: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const deleted = await this.cohorts.delete(organizationId, cohortId, tx);
      if (!deleted) throw ApiError.notFound();
      await this.audit.record(
        {
          action: 'cohort.deleted',
          actorId,
          organizationId,
          targetType: 'cohort',
          targetId: cohortId,
          ip,
          metadata: { institute_id: deleted.institute_id },
        },
        tx,
      );
    });
  }

  /**
   * Puts a member of the organization in the cohort. `created` is false for a repeat (same body, nothing changes)
   * and for a change of role (recorded as `cohort.member_added` with the previous role).
   */
  async putMember(
    organizationId: string,
    cohortId: string,
    dto: AddCohortMemberDto,
    actorId: string,
    ip?: string,
  ): Promise<{ member: CohortMemberDto; created: boolean }> {
    const userId = dto.user_id.toLowerCase();
    const notMember = (): ApiError =>
      ApiError.validation([{ field: 'user_id', message: 'user_id must be a member of the organization' }]);
    if (!(await this.cohorts.findById(organizationId, cohortId))) throw ApiError.notFound();
    if (!(await this.organizations.membership(organizationId, userId))) throw notMember();
    const previousRole = await this.transactions
      .run(async (tx) => {
        const { previousRole: previous } = await this.cohorts.putMember(
          organizationId,
          cohortId,
          userId,
          dto.role,
          this.clock.now(),
          tx,
        );
        if (previous !== dto.role) {
          await this.audit.record(
            {
              action: 'cohort.member_added',
              actorId,
              organizationId,
              targetType: 'cohort',
              targetId: cohortId,
              ip,
              metadata: { user_id: userId, role: dto.role, previous_role: previous },
            },
            tx,
          );
        }
        return previous;
      })
      .catch((err: unknown) => {
        // The membership or the cohort went away between the checks and the insert.
        if (isForeignKeyViolation(err, 'user')) throw notMember();
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return { member: { cohort_id: cohortId, user_id: userId, role: dto.role }, created: previousRole === null };
  }

  async removeMember(
    organizationId: string,
    cohortId: string,
    userId: string,
    actorId: string,
    ip?: string,
  ): Promise<void> {
    await this.transactions.run(async (tx) => {
      const role = await this.cohorts.removeMember(organizationId, cohortId, userId, tx);
      if (!role) throw ApiError.notFound();
      await this.audit.record(
        {
          action: 'cohort.member_removed',
          actorId,
          organizationId,
          targetType: 'cohort',
          targetId: cohortId,
          ip,
          metadata: { user_id: userId, role },
        },
        tx,
      );
    });
  }

  private checkDates(values: CohortValues): void {
    // Both are YYYY-MM-DD, so the string order is the calendar order.
    if (values.starts_on && values.ends_on && values.ends_on < values.starts_on) {
      throw ApiError.validation([{ field: 'ends_on', message: 'ends_on must not be before starts_on' }]);
    }
  }

  private async checkInstitute(organizationId: string, instituteId: string | null, tx: Tx): Promise<void> {
    if (instituteId && !(await this.instituteLinks.isLinked(organizationId, instituteId, tx))) {
      throw ApiError.validation([
        { field: 'institute_id', message: 'institute_id must be an institute linked to this organization' },
      ]);
    }
  }

  private async toDtos(organizationId: string, rows: CohortRow[]): Promise<CohortDto[]> {
    const stats = await this.cohorts.memberStats(
      organizationId,
      rows.map((r) => r.id),
    );
    const teacherIds = [...new Set([...stats.teachers.values()].flat())];
    const names = new Map((await this.users.findByIds(teacherIds)).map((u) => [u.id, u.name]));
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      institute_id: row.institute_id,
      starts_on: row.starts_on,
      ends_on: row.ends_on,
      members_count: stats.membersCount.get(row.id) ?? 0,
      teachers: (stats.teachers.get(row.id) ?? []).map((id) => ({ user_id: id, name: names.get(id) ?? null })),
    }));
  }

  /** The students of one cohort of the organization. */
  studentIdsOf(organizationId: string, cohortId: string): Promise<string[]> {
    return this.cohorts.studentIdsOf(organizationId, cohortId);
  }
}

/** The institute was deleted between the check and the write. */
function instituteGone(err: unknown): never {
  if (isForeignKeyViolation(err, 'institute')) {
    throw ApiError.validation([
      { field: 'institute_id', message: 'institute_id must be an institute linked to this organization' },
    ]);
  }
  throw err;
}
