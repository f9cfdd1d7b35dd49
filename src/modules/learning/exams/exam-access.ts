import type { Tx } from '@/core/database/transaction';
import { Injectable } from '@nestjs/common';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { CatalogService, type ReachableCourse } from '@/modules/learning/courses';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { ProgressService } from '@/modules/learning/progress';
import { ExamsRepository, type ExamRow } from './exams.repository';
import { idOr404 } from './ids';

/** Whose sessions a member may see as staff: everyone's (owner/admin), their cohorts' students (teacher), nobody. */
export type StaffScope = { kind: 'all' } | { kind: 'students'; ids: ReadonlySet<string> } | { kind: 'none' };

/**
 * Who reaches which exam, and whose sessions a member oversees. An exam is visible to a member when it is published
 * and its course is reachable by them (the built catalog rule: in the organization's catalog, or enrolled here).
 * Staff rights over a session (extensions-v2 9.5, 9.9): owners and admins over every member's, a teacher over the
 * students of the cohorts they teach.
 */
@Injectable()
export class ExamAccess {
  constructor(
    private readonly exams: ExamsRepository,
    private readonly catalog: CatalogService,
    private readonly cohorts: CohortsService,
    private readonly progress: ProgressService,
  ) {}

  /** The published exam with the member's reach of its course, or 404. */
  async visibleExam(member: Membership, examId: string): Promise<{ exam: ExamRow; reach: ReachableCourse }> {
    const exam = await this.exams.find(idOr404(examId));
    if (!exam || exam.status !== 'published') throw ApiError.notFound();
    const reach = await this.catalog.reachable(member.organizationId, exam.course_id, (courseId) =>
      this.progress.enrollment(member.organizationId, member.userId, courseId),
    );
    if (!reach) throw ApiError.notFound();
    return { exam, reach };
  }

  /** The exam whatever its status (sessions outlive a return to draft), or 404. */
  async anyExam(examId: string): Promise<ExamRow> {
    const exam = await this.exams.find(idOr404(examId));
    if (!exam) throw ApiError.notFound();
    return exam;
  }

  async staffScope(member: Membership): Promise<StaffScope> {
    if (isAdmin(member.role)) return { kind: 'all' };
    if (member.role !== 'teacher') return { kind: 'none' };
    return {
      kind: 'students',
      ids: new Set(await this.cohorts.studentIdsTaughtBy(member.organizationId, member.userId)),
    };
  }

  /** Whether the member oversees this learner's sessions (never their own). */
  async oversees(member: Membership, learnerId: string): Promise<boolean> {
    if (learnerId === member.userId) return false;
    const scope = await this.staffScope(member);
    return scope.kind === 'all' || (scope.kind === 'students' && scope.ids.has(learnerId));
  }

  /** The cohorts where the member is a student: the windows that apply to them as a learner. */
  studentCohorts(member: Membership): Promise<string[]> {
    return this.cohorts.cohortIdsOf(member.organizationId, member.userId, 'student');
  }

  /** The cohorts the member teaches. */
  taughtCohorts(member: Membership, tx?: Tx): Promise<string[]> {
    return this.cohorts.cohortIdsOf(member.organizationId, member.userId, 'teacher', tx);
  }

  /** A cohort of the organization, or 404 (one of another organization names nothing here). */
  async cohortHere(member: Membership, cohortId: string): Promise<string> {
    const cohort = await this.cohorts.findInOrganization(member.organizationId, idOr404(cohortId));
    if (!cohort) throw ApiError.notFound('No such cohort in this organization.');
    return cohort.id;
  }

  studentsOf(member: Membership, cohortId: string): Promise<string[]> {
    return this.cohorts.studentIdsOf(member.organizationId, cohortId);
  }
}
