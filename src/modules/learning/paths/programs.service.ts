import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { CertificatesService } from '@/modules/learning/certificates';
import { CohortsService } from '@/modules/tenancy/cohorts';
import { ProgressService } from '@/modules/learning/progress';
import { RewardsService } from '@/modules/practice/gamification';
import { UsersService } from '@/modules/identity/users';
import type {
  CapstoneGradeDto,
  CapstoneSubmissionDto,
  CapstoneSubmissionQueryDto,
  CapstoneSubmitDto,
  ProgramProgressDto,
} from './dto/path.dto';
import { badgeOf, capstoneOf, PathsService } from './paths.service';
import { type PathRow, PathsRepository } from './paths.repository';
import { capstoneOutcome, evaluateProgram } from './program-requirements';
import { ProgramsRepository, type SubmissionRow } from './programs.repository';

/**
 * Programs inside an organization: the caller's progress, claiming the credential (completion, badge and
 * certificate together, once) and the capstone (submissions and their grading).
 */
@Injectable()
export class ProgramsService {
  constructor(
    private readonly paths: PathsRepository,
    private readonly catalogPaths: PathsService,
    private readonly programs: ProgramsRepository,
    private readonly progress: ProgressService,
    private readonly certificates: CertificatesService,
    private readonly cohorts: CohortsService,
    private readonly users: UsersService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly events: DomainEvents,
    private readonly rewards: RewardsService,
  ) {}

  async progressOf(membership: Membership, idOrSlug: string): Promise<ProgramProgressDto> {
    return this.buildProgress(membership, await this.visibleProgram(membership.organizationId, idOrSlug));
  }

  /**
   * The program state table: courses unmet → 409 `program_not_completed`; capstone not passed → 409
   * `capstone_required`; otherwise the completion, the badge and (when the program issues one) the certificate
   * are written in one transaction. Idempotent: once completed, every call answers the same progress, and the
   * completion's primary key lets exactly one of concurrent calls grant the badge and the certificate.
   */
  async claim(membership: Membership, idOrSlug: string): Promise<ProgramProgressDto> {
    const { organizationId, userId } = membership;
    const program = await this.visibleProgram(organizationId, idOrSlug);
    const done = await this.programs.completedPathIds(organizationId, userId, [program.id]);
    if (!done.has(program.id)) {
      // Everything is read before the transaction opens: inside it, only its own connection may be used.
      const [courses, completed, bestScore] = await Promise.all([
        this.catalogPaths.coursesOf([program.id]),
        this.progress.completedCourseIds(organizationId, userId),
        this.programs.bestPassedScore(organizationId, userId, program.id),
      ]);
      const capstone = capstoneOf(program);
      const evaluation = evaluateProgram(
        { courses: courses.get(program.id) ?? [], capstone },
        { completedCourseIds: completed, capstonePassed: bestScore !== null },
      );
      if (evaluation.outcome === 'courses_missing') {
        throw ApiError.conflict('program_not_completed', 'Complete the required courses of this program first.');
      }
      if (evaluation.outcome === 'capstone_pending') {
        throw ApiError.conflict('capstone_required', 'The capstone of this program has not been passed yet.');
      }
      const badge = badgeOf(program);
      await this.transactions.run(async (tx) => {
        const now = this.clock.now();
        if (!(await this.programs.recordCompletion(organizationId, userId, program.id, now, tx))) return;
        await this.events.publish(
          tx,
          'program.completed',
          { user_id: userId, path_id: program.id, completed_at: now.toISOString() },
          { organizationId, actorId: userId, occurredAt: now },
        );
        if (badge) await this.rewards.awardProgramBadge({ organizationId, userId }, program.id, badge, now, tx);
        if (program.issues_certificate) {
          await this.certificates.issue(
            {
              type: 'program',
              organizationId,
              userId,
              subjectId: program.id,
              title: program.title,
              grade: capstone ? bestScore : null,
              actorId: userId,
            },
            tx,
          );
        }
      });
    }
    return this.buildProgress(membership, program);
  }

  async submit(membership: Membership, idOrSlug: string, dto: CapstoneSubmitDto): Promise<CapstoneSubmissionDto> {
    const program = await this.programWithCapstone(membership.organizationId, idOrSlug);
    const row = await this.programs.insertSubmission({
      organizationId: membership.organizationId,
      userId: membership.userId,
      pathId: program.id,
      contentMd: dto.content_md,
      url: dto.url ?? null,
      now: this.clock.now(),
    });
    return (await this.toDtos([row]))[0];
  }

  /** Owner/admin see every submission; a teacher their own and their cohorts' students'; anyone else their own. */
  async listSubmissions(
    membership: Membership,
    idOrSlug: string,
    query: CapstoneSubmissionQueryDto,
  ): Promise<Page<CapstoneSubmissionDto>> {
    const { organizationId, userId, role } = membership;
    const program = await this.programWithCapstone(organizationId, idOrSlug);
    let visible: string[] | null;
    if (isAdmin(role)) visible = null;
    else if (role === 'teacher') visible = [userId, ...(await this.cohorts.studentIdsTaughtBy(organizationId, userId))];
    else visible = [userId];
    const wanted = query.user_id?.toLowerCase();
    const userIds = wanted ? (visible === null || visible.includes(wanted) ? [wanted] : []) : visible;
    const { rows, total } = await this.programs.listSubmissions(
      organizationId,
      program.id,
      { userIds, status: query.status },
      query,
    );
    return toPage(await this.toDtos(rows), total, query);
  }

  /**
   * Owner/admin, or a teacher of a cohort the learner is a student in (any other teacher: 403); nobody grades
   * their own work (403). The status follows the program's passing score. Audited (`capstone.graded`).
   */
  async grade(
    membership: Membership,
    idOrSlug: string,
    submissionId: string,
    dto: CapstoneGradeDto,
    ip?: string,
  ): Promise<CapstoneSubmissionDto> {
    const { organizationId, userId, role } = membership;
    const program = await this.programWithCapstone(organizationId, idOrSlug);
    const submission = await this.programs.findSubmission(organizationId, program.id, submissionId);
    if (!submission) throw ApiError.notFound();
    if (submission.user_id === userId) throw ApiError.forbidden('You cannot grade your own submission.');
    if (
      !isAdmin(role) &&
      !(await this.cohorts.studentIdsTaughtBy(organizationId, userId)).includes(submission.user_id)
    ) {
      throw ApiError.forbidden('You do not teach a cohort of this learner.');
    }
    const status = capstoneOutcome(dto.score, program.capstone_passing_score ?? 0);
    const graded = await this.transactions.run(async (tx) => {
      const locked = await this.programs.lockSubmission(organizationId, program.id, submissionId, tx);
      if (!locked) throw ApiError.notFound();
      const row = await this.programs.grade(
        organizationId,
        submissionId,
        { status, score: dto.score, feedback: dto.feedback ?? null, gradedBy: userId, now: this.clock.now() },
        tx,
      );
      await this.audit.record(
        {
          action: 'capstone.graded',
          actorId: userId,
          organizationId,
          targetType: 'capstone_submission',
          targetId: submissionId,
          ip,
          metadata: { path_id: program.id, user_id: submission.user_id, score: dto.score, status },
        },
        tx,
      );
      await this.events.publish(
        tx,
        'capstone.graded',
        { submission_id: row.id, user_id: submission.user_id, path_id: program.id, status },
        { organizationId, actorId: userId },
      );
      return row;
    });
    return (await this.toDtos([graded]))[0];
  }

  /** A published program the organization sees, by id or slug; a plain path, a draft or another's: 404. */
  private async visibleProgram(organizationId: string, idOrSlug: string): Promise<PathRow> {
    const program = await this.paths.findVisibleProgram(organizationId, idOrSlug);
    if (!program) throw ApiError.notFound('No such program in this organization.');
    return program;
  }

  private async programWithCapstone(organizationId: string, idOrSlug: string): Promise<PathRow> {
    const program = await this.visibleProgram(organizationId, idOrSlug);
    if (!capstoneOf(program)) throw ApiError.notFound('This program has no capstone.');
    return program;
  }

  private async buildProgress(membership: Membership, program: PathRow): Promise<ProgramProgressDto> {
    const { organizationId, userId } = membership;
    const [courses, completed, done, bestScore, certificate] = await Promise.all([
      this.catalogPaths.coursesOf([program.id]),
      this.progress.completedCourseIds(organizationId, userId),
      this.programs.completedPathIds(organizationId, userId, [program.id]),
      this.programs.bestPassedScore(organizationId, userId, program.id),
      this.certificates.latestProgramCertificate(organizationId, userId, program.id),
    ]);
    return {
      path_id: program.id,
      title: program.title,
      completed: done.has(program.id),
      courses: (courses.get(program.id) ?? []).map((c) => ({
        course_id: c.course_id,
        title: c.title,
        required: c.required,
        completed: completed.has(c.course_id),
      })),
      capstone: capstoneOf(program) ? { required: true, passed: bestScore !== null } : null,
      certificate,
    };
  }

  private async toDtos(rows: SubmissionRow[]): Promise<CapstoneSubmissionDto[]> {
    const names = new Map(
      (await this.users.findByIds([...new Set(rows.map((r) => r.user_id))])).map((u) => [u.id, u.name]),
    );
    return rows.map((r) => ({
      id: r.id,
      path_id: r.path_id,
      learner: { user_id: r.user_id, name: names.get(r.user_id) ?? null },
      content_md: r.content_md,
      url: r.url,
      status: r.status,
      score: r.score,
      feedback: r.feedback,
      graded_by: r.graded_by,
      graded_at: r.graded_at?.toISOString() ?? null,
      submitted_at: r.submitted_at.toISOString(),
    }));
  }
}
