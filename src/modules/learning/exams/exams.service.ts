import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { isAdmin, type Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { ApiError } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { ProgressService } from '@/modules/learning/progress';
import { ExamAccess } from './exam-access';
import { availabilityOf } from './exam-rules';
import { ExamSessionsRepository, type MySessionSummary } from './exam-sessions.repository';
import { ExamSessionsService } from './exam-sessions.service';
import type {
  CreateWindowDto,
  ExamCardDto,
  ExamCardQueryDto,
  ExamDetailDto,
  ExamWindowDto,
  ExamWindowListDto,
  UpdateWindowDto,
} from './dto/exam-card.dto';
import { type ExamCardRow, type ExamRow, ExamsRepository, type WindowRow } from './exams.repository';
import { isForeignKeyViolation } from '@/core/database/constraint-violation';
import { idOr404 } from './ids';

const windowOrder = (): ApiError =>
  ApiError.validation([{ field: 'closes_at', message: 'closes_at must be after opens_at' }]);

/**
 * What an organization sees of exams (extensions-v2 9.2, 9.6): the cards of published exams of reachable courses
 * with the caller's availability and standing, and the windows that open them. Owners and admins manage every
 * window; a teacher only those of cohorts they teach (403 otherwise, also for organization-wide ones). Windows are
 * audited (`exam_window.*`). Changing or deleting a window never shortens a session already started: the deadline
 * is fixed at the start.
 */
@Injectable()
export class ExamsService {
  constructor(
    private readonly exams: ExamsRepository,
    private readonly sessions: ExamSessionsRepository,
    private readonly sessionService: ExamSessionsService,
    private readonly access: ExamAccess,
    private readonly progress: ProgressService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  async list(member: Membership, query: ExamCardQueryDto): Promise<Page<ExamCardDto>> {
    const courseId = query.course_id?.toLowerCase();
    const candidates = await this.exams.coursesWithPublishedExams(courseId);
    const enrolled = await this.progress.enrolledCourseIds(member.organizationId, member.userId, candidates);
    const { rows, total } = await this.exams.cardPage(member.organizationId, [...enrolled], courseId, query);
    return toPage(await this.cards(member, rows), total, query);
  }

  async get(member: Membership, examId: string): Promise<ExamDetailDto> {
    const { exam, reach } = await this.access.visibleExam(member, examId);
    const [card] = await this.cards(member, [{ ...exam, course_title: reach.course.title }]);
    const windows = await this.windowsFor(member, exam.id);
    return {
      ...card,
      instructions_md: exam.instructions_md,
      proctoring: {
        fullscreen_required: exam.fullscreen_required,
        max_focus_losses: exam.max_focus_losses,
        flag_paste: exam.flag_paste,
      },
      windows: windows.map(toWindowDto),
    };
  }

  // Windows.

  /** Owners and admins: every window; teachers: organization-wide ones and those of the cohorts they teach. */
  async listWindows(member: Membership, examId: string): Promise<ExamWindowListDto> {
    const { exam } = await this.access.visibleExam(member, examId);
    const cohorts = isAdmin(member.role) ? null : await this.access.taughtCohorts(member);
    return { items: (await this.exams.windowsOf(member.organizationId, [exam.id], cohorts)).map(toWindowDto) };
  }

  async createWindow(member: Membership, examId: string, dto: CreateWindowDto, ip?: string): Promise<ExamWindowDto> {
    const { exam } = await this.access.visibleExam(member, examId);
    const cohortId = dto.cohort_id ? await this.access.cohortHere(member, dto.cohort_id) : null;
    await this.mayManage(member, cohortId);
    const opensAt = new Date(dto.opens_at);
    const closesAt = dto.closes_at ? new Date(dto.closes_at) : null;
    if (closesAt && closesAt.getTime() <= opensAt.getTime()) throw windowOrder();
    const id = await this.transactions
      .run(async (tx) => {
        const created = await this.exams.insertWindow(
          { organizationId: member.organizationId, examId: exam.id, cohortId, opensAt, closesAt },
          member.userId,
          this.clock.now(),
          tx,
        );
        await this.auditWindow('exam_window.created', member, created, exam.id, cohortId, ip, tx);
        return created;
      })
      .catch((err: unknown) => {
        // The exam or the cohort was deleted in between.
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return toWindowDto((await this.exams.findWindow(member.organizationId, exam.id, id))!);
  }

  async updateWindow(
    member: Membership,
    examId: string,
    windowId: string,
    dto: UpdateWindowDto,
    ip?: string,
  ): Promise<ExamWindowDto> {
    const { exam } = await this.access.visibleExam(member, examId);
    const id = idOr404(windowId);
    await this.transactions.run(async (tx) => {
      const window = await this.exams.findWindow(member.organizationId, exam.id, id, tx);
      if (!window) throw ApiError.notFound();
      await this.mayManage(member, window.cohort_id, tx);
      const opensAt = dto.opens_at !== undefined ? new Date(dto.opens_at) : window.opens_at;
      const closesAt =
        dto.closes_at === undefined ? window.closes_at : dto.closes_at === null ? null : new Date(dto.closes_at);
      if (closesAt && closesAt.getTime() <= opensAt.getTime()) throw windowOrder();
      await this.exams.updateWindow(member.organizationId, id, opensAt, closesAt, this.clock.now(), tx);
      await this.auditWindow('exam_window.updated', member, id, exam.id, window.cohort_id, ip, tx);
    });
    return toWindowDto((await this.exams.findWindow(member.organizationId, exam.id, id))!);
  }

  async deleteWindow(member: Membership, examId: string, windowId: string, ip?: string): Promise<void> {
    const { exam } = await this.access.visibleExam(member, examId);
    const id = idOr404(windowId);
    await this.transactions.run(async (tx) => {
      const window = await this.exams.findWindow(member.organizationId, exam.id, id, tx);
      if (!window) throw ApiError.notFound();
      await this.mayManage(member, window.cohort_id, tx);
      await this.exams.deleteWindow(member.organizationId, id, tx);
      await this.auditWindow('exam_window.deleted', member, id, exam.id, window.cohort_id, ip, tx);
    });
  }

  // Helpers.

  /** Owners and admins manage any window; teachers only those of a cohort they teach. */
  private async mayManage(member: Membership, cohortId: string | null, tx?: Tx): Promise<void> {
    if (isAdmin(member.role)) return;
    if (member.role === 'teacher' && cohortId && (await this.access.taughtCohorts(member, tx)).includes(cohortId))
      return;
    throw ApiError.forbidden(
      cohortId
        ? 'Teachers manage the windows of the cohorts they teach only.'
        : 'Only owners and admins manage organization-wide windows.',
    );
  }

  private async auditWindow(
    action: 'exam_window.created' | 'exam_window.updated' | 'exam_window.deleted',
    member: Membership,
    windowId: string,
    examId: string,
    cohortId: string | null,
    ip: string | undefined,
    tx: Tx,
  ): Promise<void> {
    await this.audit.record(
      {
        action,
        actorId: member.userId,
        organizationId: member.organizationId,
        targetType: 'exam_window',
        targetId: windowId,
        ip,
        metadata: { exam_id: examId, cohort_id: cohortId },
      },
      tx,
    );
  }

  /**
   * The windows shown in an exam's detail: those applying to the caller as a learner (organization-wide and their
   * student cohorts'); owners and admins see all; teachers also those of the cohorts they teach.
   */
  private async windowsFor(member: Membership, examId: string): Promise<WindowRow[]> {
    if (isAdmin(member.role)) return this.exams.windowsOf(member.organizationId, [examId], null);
    const cohorts = await this.access.studentCohorts(member);
    if (member.role === 'teacher') cohorts.push(...(await this.access.taughtCohorts(member)));
    return this.exams.windowsOf(member.organizationId, [examId], cohorts);
  }

  /** Cards with the caller's availability (their windows) and standing (their sessions, overdue ones closed first). */
  private async cards(
    member: Membership,
    rows: (ExamRow & Pick<ExamCardRow, 'course_title'>)[],
  ): Promise<ExamCardDto[]> {
    if (rows.length === 0) return [];
    await this.sessionService.closeOverdueOf(member);
    const examIds = rows.map((r) => r.id);
    const [windows, mine] = await Promise.all([
      this.access
        .studentCohorts(member)
        .then((cohorts) => this.exams.windowsOf(member.organizationId, examIds, cohorts)),
      this.sessions.mine(member.organizationId, member.userId, examIds),
    ]);
    const now = this.clock.now();
    const standing = new Map<string, MySessionSummary>(mine.map((m) => [m.exam_id, m]));
    return rows.map((exam) => {
      const availability = availabilityOf(
        windows.filter((w) => w.exam_id === exam.id),
        now,
      );
      const my = standing.get(exam.id);
      const used = my?.attempts_used ?? 0;
      return {
        id: exam.id,
        course_id: exam.course_id,
        course_title: exam.course_title,
        title: exam.title,
        duration_minutes: exam.duration_minutes,
        passing_score: exam.passing_score,
        questions_per_attempt: exam.questions_per_attempt,
        max_attempts: exam.max_attempts,
        required_for_completion: exam.required_for_completion,
        availability: {
          state: availability.state,
          opens_at: availability.opens_at?.toISOString() ?? null,
          closes_at: availability.closes_at?.toISOString() ?? null,
        },
        my: {
          attempts_used: used,
          attempts_left: Math.max(0, exam.max_attempts - used),
          best_score: my?.best_score ?? null,
          passed: my?.passed ?? false,
          active_session_id: my?.active_session_id ?? null,
        },
      };
    });
  }
}

function toWindowDto(w: WindowRow): ExamWindowDto {
  return {
    id: w.id,
    exam_id: w.exam_id,
    cohort_id: w.cohort_id,
    opens_at: w.opens_at.toISOString(),
    closes_at: w.closes_at?.toISOString() ?? null,
    created_by: { user_id: w.created_by },
    created_at: w.created_at.toISOString(),
  };
}
