import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError, type ErrorDetail } from '@/core/http/api-error';
import { CatalogService } from '@/modules/learning/courses';
import { type QuestionInputDto, quizProblems } from '@/modules/learning/editor';
import type { PoolQuestion } from './exam-rules';
import { type CreateExamDto, EXAM_LIMITS, type ExamDto, type ExamListDto, type UpdateExamDto } from './dto/exam.dto';
import { type ExamRow, ExamsRepository, type ExamValues } from './exams.repository';
import { isForeignKeyViolation } from '@/core/database/constraint-violation';
import { idOr404 } from './ids';

const examInUse = (): ApiError =>
  ApiError.conflict('exam_in_use', 'The exam has sessions: set it back to draft to withdraw it instead.');

function poolOf(questions: QuestionInputDto[]): PoolQuestion[] {
  return questions.map((q) => ({
    id: randomUUID(),
    prompt: q.prompt,
    kind: q.kind,
    explanation: q.explanation?.trim() ? q.explanation : null,
    options: q.options.map((o) => ({ id: randomUUID(), text: o.text, correct: o.correct })),
  }));
}

/**
 * The rules of a whole exam beyond field shapes: each question follows the lesson-quiz rules (editor/quiz-rules:
 * option counts, correct options, distinct texts), the pool holds 1..500 questions, and `questions_per_attempt`
 * is at most the pool.
 */
function examProblems(values: ExamValues, poolInput: QuestionInputDto[] | null): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (poolInput) {
    // The quiz rules count 1..50 questions; an exam pool has its own bound (checked by the DTO), so only the
    // per-question rules are taken from them.
    problems.push(
      ...quizProblems({ passing_score: values.passing_score, questions: poolInput }).filter(
        (p) => p.field !== 'quiz.questions',
      ),
    );
  }
  if (values.questions_per_attempt > values.questions.length) {
    problems.push({
      field: 'questions_per_attempt',
      message: `questions_per_attempt must be at most the pool size (${values.questions.length})`,
    });
  }
  return problems.map((p) => ({ ...p, field: p.field.replace(/^quiz\./, '') }));
}

/**
 * Exams as editors write them (extensions-v2 9.1): platform data of a course, like its lessons, audited without an
 * organization (`exam.created`, `exam.updated`, `exam.deleted`, as the built `course.*` actions). Writes to the exams
 * of one course are serialized (the limit of 20 holds under races). Editing never changes a session already
 * started: each keeps the snapshot of what it drew.
 */
@Injectable()
export class ExamAuthoringService {
  constructor(
    private readonly exams: ExamsRepository,
    private readonly catalog: CatalogService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
  ) {}

  async list(courseId: string): Promise<ExamListDto> {
    const course = await this.course(courseId);
    return { items: (await this.exams.listOfCourse(course)).map(toExamDto) };
  }

  async get(courseId: string, examId: string): Promise<ExamDto> {
    const course = await this.course(courseId);
    const exam = await this.exams.find(idOr404(examId));
    if (!exam || exam.course_id !== course) throw ApiError.notFound();
    return toExamDto(exam);
  }

  async create(courseId: string, dto: CreateExamDto, actorId: string, ip?: string): Promise<ExamDto> {
    const course = await this.course(courseId);
    const values: ExamValues = {
      title: dto.title,
      instructions_md: dto.instructions_md ?? '',
      duration_minutes: dto.duration_minutes,
      passing_score: dto.passing_score,
      questions_per_attempt: dto.questions_per_attempt,
      max_attempts: dto.max_attempts ?? 1,
      shuffle_questions: dto.shuffle_questions ?? true,
      shuffle_options: dto.shuffle_options ?? true,
      show_results: dto.show_results ?? 'score',
      required_for_completion: dto.required_for_completion ?? false,
      fullscreen_required: dto.proctoring?.fullscreen_required ?? false,
      max_focus_losses: dto.proctoring?.max_focus_losses ?? 3,
      flag_paste: dto.proctoring?.flag_paste ?? true,
      status: dto.status ?? 'draft',
      questions: poolOf(dto.questions),
    };
    throwIf(examProblems(values, dto.questions));
    const id = await this.transactions
      .run(async (tx) => {
        await this.exams.lockCourse(course, tx);
        if ((await this.exams.countOfCourse(course, tx)) >= EXAM_LIMITS.maxExamsPerCourse) {
          throw ApiError.conflict(
            'exam_limit_reached',
            `A course has at most ${EXAM_LIMITS.maxExamsPerCourse} exams; delete or reuse one.`,
          );
        }
        const created = await this.exams.insert(course, values, this.clock.now(), tx);
        await this.audit.record(
          {
            action: 'exam.created',
            actorId,
            organizationId: null,
            targetType: 'exam',
            targetId: created,
            ip,
            metadata: { course_id: course, status: values.status, questions: values.questions.length },
          },
          tx,
        );
        return created;
      })
      .catch((err: unknown) => {
        // The course was deleted in between.
        if (isForeignKeyViolation(err)) throw ApiError.notFound();
        throw err;
      });
    return this.get(course, id);
  }

  async update(courseId: string, examId: string, dto: UpdateExamDto, actorId: string, ip?: string): Promise<ExamDto> {
    const course = await this.course(courseId);
    const id = idOr404(examId);
    const fields = (Object.keys(dto) as (keyof UpdateExamDto)[]).filter((k) => dto[k] !== undefined);
    await this.transactions.run(async (tx) => {
      await this.exams.lockCourse(course, tx);
      const current = await this.exams.lock(course, id, tx);
      if (!current) throw ApiError.notFound();
      if (fields.length === 0) return;
      const values: ExamValues = {
        title: dto.title ?? current.title,
        instructions_md: dto.instructions_md ?? current.instructions_md,
        duration_minutes: dto.duration_minutes ?? current.duration_minutes,
        passing_score: dto.passing_score ?? current.passing_score,
        questions_per_attempt: dto.questions_per_attempt ?? current.questions_per_attempt,
        max_attempts: dto.max_attempts ?? current.max_attempts,
        shuffle_questions: dto.shuffle_questions ?? current.shuffle_questions,
        shuffle_options: dto.shuffle_options ?? current.shuffle_options,
        show_results: dto.show_results ?? current.show_results,
        required_for_completion: dto.required_for_completion ?? current.required_for_completion,
        fullscreen_required: dto.proctoring?.fullscreen_required ?? current.fullscreen_required,
        max_focus_losses: dto.proctoring?.max_focus_losses ?? current.max_focus_losses,
        flag_paste: dto.proctoring?.flag_paste ?? current.flag_paste,
        status: dto.status ?? current.status,
        questions: dto.questions ? poolOf(dto.questions) : current.questions,
      };
      throwIf(examProblems(values, dto.questions ?? null));
      await this.exams.update(id, values, this.clock.now(), tx);
      await this.audit.record(
        {
          action: 'exam.updated',
          actorId,
          organizationId: null,
          targetType: 'exam',
          targetId: id,
          ip,
          metadata: { course_id: course, fields, status: values.status },
        },
        tx,
      );
    });
    return this.get(course, id);
  }

  /** Only an exam nobody has sat can go (409 `exam_in_use`); set it back to draft instead. */
  async remove(courseId: string, examId: string, actorId: string, ip?: string): Promise<void> {
    const course = await this.course(courseId);
    const id = idOr404(examId);
    await this.transactions
      .run(async (tx) => {
        const exam = await this.exams.lock(course, id, tx);
        if (!exam) throw ApiError.notFound();
        // The lock makes a start wait for this transaction (and then find no exam); a start that came first is seen.
        if (await this.exams.hasSessions(id, tx)) throw examInUse();
        await this.exams.delete(id, tx);
        await this.audit.record(
          {
            action: 'exam.deleted',
            actorId,
            organizationId: null,
            targetType: 'exam',
            targetId: id,
            ip,
            metadata: { course_id: course },
          },
          tx,
        );
      })
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw examInUse();
        throw err;
      });
  }

  /** The course of the path, by id (any status: editors write drafts too). */
  private async course(courseId: string): Promise<string> {
    const course = await this.catalog.resolve(idOr404(courseId));
    if (!course) throw ApiError.notFound();
    return course.id;
  }
}

export function toExamDto(e: ExamRow): ExamDto {
  return {
    id: e.id,
    course_id: e.course_id,
    title: e.title,
    instructions_md: e.instructions_md,
    duration_minutes: e.duration_minutes,
    passing_score: e.passing_score,
    questions_per_attempt: e.questions_per_attempt,
    max_attempts: e.max_attempts,
    shuffle_questions: e.shuffle_questions,
    shuffle_options: e.shuffle_options,
    show_results: e.show_results,
    required_for_completion: e.required_for_completion,
    proctoring: {
      fullscreen_required: e.fullscreen_required,
      max_focus_losses: e.max_focus_losses,
      flag_paste: e.flag_paste,
    },
    status: e.status,
    questions: e.questions.map((q, i) => ({
      id: q.id,
      position: i + 1,
      prompt: q.prompt,
      kind: q.kind,
      explanation: q.explanation,
      options: q.options.map((o, j) => ({ id: o.id, position: j + 1, text: o.text, correct: o.correct })),
    })),
    created_at: e.created_at.toISOString(),
    updated_at: e.updated_at.toISOString(),
  };
}

function throwIf(problems: ErrorDetail[]): void {
  if (problems.length > 0) throw ApiError.validation(problems);
}
