import { readAll } from '@/core/database/db';
import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import { Clock } from '@/core/clock/clock';
import { CryptoService } from '@/core/crypto/crypto.service';
import { isUuid } from '@/core/http/uuid';
import { type Tx, TransactionRunner } from '@/core/database/transaction';
import { DomainEvents } from '@/core/events/domain-events.service';
import { ApiError, type ErrorDetail } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isForeignKeyViolation, isUniqueViolation } from '@/core/database/constraint-violation';
import { CatalogService } from '@/modules/learning/courses';
import { ProgressService } from '@/modules/learning/progress';
import {
  type CreateCourseDto,
  CreateLessonDto,
  type EditorCourseDto,
  type EditorCourseQueryDto,
  type EditorCourseSummaryDto,
  type EditorLessonDto,
  type EditorQuizDto,
  type QuizInputDto,
  type UpdateCourseDto,
  type UpdateLessonDto,
} from './dto/editor.dto';
import {
  type CourseValues,
  type EditorCourseRow,
  type EditorLessonRow,
  EditorRepository,
  type QuizValues,
} from './editor.repository';
import { insertAt, moveTo, positionProblem, removeFrom } from './positions';
import { QUESTION_KINDS, type QuizDraft, quizProblems } from './quiz-rules';
import { isValidSlug, numberedSlug, slugFromTitle, suffixedSlug } from './slug';
import { LtiToolsService } from '@/modules/integrations/lti';

const slugTaken = (): ApiError => ApiError.conflict('slug_taken', 'That slug is already in use.');
const unknownOrganizations = (): ApiError =>
  ApiError.validation([{ field: 'organization_ids', message: 'organization_ids must be existing organizations' }]);
const courseInUse = (): ApiError =>
  ApiError.conflict(
    'course_in_use',
    'People are enrolled in this course, or certificates or learning paths refer to it: unpublish it instead.',
  );
const courseEmpty = (message: string): ApiError => ApiError.conflict('course_empty', message);

function idOr404(id: string): string {
  if (!isUuid(id)) throw ApiError.notFound();
  return id.toLowerCase();
}

/** Trimmed, lower-cased (by the DTO), without repeats, in the order given. */
function cleanTags(tags: string[]): string[] {
  return [...new Set(tags)];
}

function cleanIds(ids: string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

function quizValues(quiz: QuizInputDto): QuizValues {
  return {
    passing_score: quiz.passing_score,
    questions: quiz.questions.map((q) => ({
      prompt: q.prompt,
      kind: q.kind,
      explanation: q.explanation?.trim() ? q.explanation : null,
      options: q.options.map((o) => ({ text: o.text, correct: o.correct })),
    })),
  };
}

/**
 * Course authoring by platform editors: courses of the shared catalog, their lessons and quizzes, publication.
 * Changes to one course are serialized by locking its row. Publication changes are audited without an
 * organization (`course.published`, `course.unpublished`), like creation and deletion.
 */
@Injectable()
export class EditorService {
  constructor(
    private readonly editor: EditorRepository,
    private readonly catalog: CatalogService,
    private readonly progress: ProgressService,
    private readonly audit: AuditService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly crypto: CryptoService,
    private readonly events: DomainEvents,
    private readonly lti: LtiToolsService,
  ) {}

  async list(query: EditorCourseQueryDto): Promise<Page<EditorCourseSummaryDto>> {
    const { rows, total } = await this.editor.list({ status: query.status, q: query.q }, query);
    return toPage(rows.map(toSummary), total, query);
  }

  async get(courseId: string): Promise<EditorCourseDto> {
    const course = await this.editor.find(idOr404(courseId));
    if (!course) throw ApiError.notFound();
    return this.toDto(course);
  }

  async create(dto: CreateCourseDto, actorId: string, ip?: string): Promise<EditorCourseDto> {
    const organizationIds = cleanIds(dto.organization_ids ?? []);
    const values: CourseValues = {
      slug: dto.slug ?? '',
      title: dto.title,
      summary: dto.summary ?? '',
      description_md: dto.description_md ?? '',
      language: dto.language,
      level: dto.level,
      tags: cleanTags(dto.tags ?? []),
      visibility: dto.visibility ?? 'public',
      issues_certificate: dto.issues_certificate ?? false,
      estimated_minutes: dto.estimated_minutes ?? 0,
    };
    checkAudience(values.visibility, organizationIds);
    if (dto.slug !== undefined && (await this.editor.slugTaken(dto.slug))) throw slugTaken();
    // A derived slug may be taken by a concurrent creation between the look-up and the insert: draw again.
    for (let attempt = 0; ; attempt++) {
      if (dto.slug === undefined) values.slug = await this.freeSlug(slugFromTitle(dto.title), attempt);
      try {
        const id = await this.transactions.run(async (tx) => {
          const created = await this.editor.insert(values, actorId, this.clock.now(), tx);
          await this.editor.setOrganizations(created, organizationIds, tx);
          await this.audit.record(
            { action: 'course.created', actorId, organizationId: null, targetType: 'course', targetId: created, ip },
            tx,
          );
          return created;
        });
        return this.get(id);
      } catch (err) {
        if (isUniqueViolation(err, 'courses_slug_uq')) {
          if (dto.slug !== undefined || attempt >= 3) throw slugTaken();
          continue;
        }
        if (isForeignKeyViolation(err)) throw unknownOrganizations();
        throw err;
      }
    }
  }

  async update(courseId: string, dto: UpdateCourseDto, actorId: string, ip?: string): Promise<EditorCourseDto> {
    const id = idOr404(courseId);
    const fields = (Object.keys(dto) as (keyof UpdateCourseDto)[]).filter((k) => dto[k] !== undefined);
    await this.transactions
      .run(async (tx) => {
        const current = await this.editor.lock(id, tx);
        if (!current) throw ApiError.notFound();
        if (fields.length === 0) return;
        const values: CourseValues = {
          slug: dto.slug ?? current.slug,
          title: dto.title ?? current.title,
          summary: dto.summary ?? current.summary,
          description_md: dto.description_md ?? current.description_md,
          language: dto.language ?? current.language,
          level: dto.level ?? current.level,
          tags: dto.tags ? cleanTags(dto.tags) : current.tags,
          visibility: dto.visibility ?? current.visibility,
          issues_certificate: dto.issues_certificate ?? current.issues_certificate,
          estimated_minutes: dto.estimated_minutes ?? current.estimated_minutes,
        };
        const organizationIds = dto.organization_ids
          ? cleanIds(dto.organization_ids)
          : await this.editor.organizationIds(id, tx);
        checkAudience(values.visibility, organizationIds);
        if (values.slug !== current.slug && (await this.editor.slugTaken(values.slug, id, tx))) throw slugTaken();
        await this.editor.update(id, values, this.clock.now(), tx);
        if (values.language !== current.language) await this.editor.syncLessonLanguage(id, values.language, tx);
        if (dto.organization_ids) await this.editor.setOrganizations(id, organizationIds, tx);
        await this.audit.record(
          {
            action: 'course.updated',
            actorId,
            organizationId: null,
            targetType: 'course',
            targetId: id,
            ip,
            metadata: { fields },
          },
          tx,
        );
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, 'courses_slug_uq')) throw slugTaken();
        if (isForeignKeyViolation(err)) throw unknownOrganizations();
        throw err;
      });
    return this.get(id);
  }

  /**
   * Only a course nobody learns from can go: with an enrollment anywhere (409 `course_in_use`), or a certificate or
   * a learning path referring to it (the database's restricting foreign keys, same answer), unpublish it instead.
   */
  async remove(courseId: string, actorId: string, ip?: string): Promise<void> {
    const id = idOr404(courseId);
    await this.transactions
      .run(async (tx) => {
        // Locked first: an enrollment now waits for this transaction (and then finds no course).
        const course = await this.editor.lock(id, tx);
        if (!course) throw ApiError.notFound();
        if (await this.progress.hasEnrollments(id, tx)) throw courseInUse();
        await this.editor.delete(id, tx);
        await this.audit.record(
          {
            action: 'course.deleted',
            actorId,
            organizationId: null,
            targetType: 'course',
            targetId: id,
            ip,
            metadata: { slug: course.slug },
          },
          tx,
        );
      })
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw courseInUse();
        throw err;
      });
  }

  /** Idempotent; needs at least one lesson (409 `course_empty`). */
  async publish(courseId: string, actorId: string, ip?: string): Promise<EditorCourseDto> {
    return this.setStatus(courseId, 'published', actorId, ip);
  }

  /** Idempotent; a draft stays a draft. */
  async unpublish(courseId: string, actorId: string, ip?: string): Promise<EditorCourseDto> {
    return this.setStatus(courseId, 'unpublished', actorId, ip);
  }

  async createLesson(courseId: string, dto: CreateLessonDto): Promise<EditorLessonDto> {
    const id = idOr404(courseId);
    if (dto.quiz) throwIf(quizProblems(dto.quiz));
    await this.lti.checkLessonLink(dto.lti);
    const lessonId = await this.transactions.run(async (tx) => {
      const course = await this.editor.lock(id, tx);
      if (!course) throw ApiError.notFound();
      const order = await this.editor.order(id, tx);
      if (dto.position !== undefined) throwIfPosition(dto.position, order.length + 1);
      const now = this.clock.now();
      const created = await this.editor.insertLesson(
        id,
        { title: dto.title, content_md: dto.content_md ?? '', estimated_minutes: dto.estimated_minutes ?? 0 },
        order.length + 1,
        course.language,
        now,
        tx,
      );
      if (dto.position !== undefined && dto.position <= order.length) {
        await this.editor.setOrder(id, insertAt(order, created, dto.position), tx);
      }
      if (dto.quiz) await this.editor.replaceQuiz(created, quizValues(dto.quiz), tx);
      if (dto.lti) await this.lti.saveLessonLink(created, id, dto.lti, tx);
      await this.editor.writeChunks(
        { id: created, course_id: id, title: dto.title, content_md: dto.content_md ?? '', language: course.language },
        tx,
      );
      await this.editor.touch(id, now, tx);
      return created;
    });
    return this.lessonDto(id, lessonId);
  }

  async updateLesson(courseId: string, lessonId: string, dto: UpdateLessonDto): Promise<EditorLessonDto> {
    const id = idOr404(courseId);
    const lid = idOr404(lessonId);
    if (dto.quiz) throwIf(quizProblems(dto.quiz));
    await this.lti.checkLessonLink(dto.lti);
    await this.transactions.run(async (tx) => {
      const course = await this.editor.lock(id, tx);
      if (!course) throw ApiError.notFound();
      const lesson = await this.editor.lesson(id, lid, tx);
      if (!lesson) throw ApiError.notFound();
      const now = this.clock.now();
      if (dto.title !== undefined || dto.content_md !== undefined || dto.estimated_minutes !== undefined) {
        const values = {
          title: dto.title ?? lesson.title,
          content_md: dto.content_md ?? lesson.content_md,
          estimated_minutes: dto.estimated_minutes ?? lesson.estimated_minutes,
        };
        await this.editor.updateLesson(id, lid, values, now, tx);
        // The passages carry the title in their vectors: either change rewrites them.
        if (values.title !== lesson.title || values.content_md !== lesson.content_md) {
          await this.editor.writeChunks({ id: lid, course_id: id, ...values, language: course.language }, tx);
        }
      }
      if (dto.position !== undefined && dto.position !== lesson.position) {
        const order = await this.editor.order(id, tx);
        throwIfPosition(dto.position, order.length);
        await this.editor.setOrder(id, moveTo(order, lid, dto.position), tx);
      }
      if (dto.quiz === null) await this.editor.deleteQuiz(lid, tx);
      else if (dto.quiz) await this.editor.replaceQuiz(lid, quizValues(dto.quiz), tx);
      if (dto.lti !== undefined) await this.lti.saveLessonLink(lid, id, dto.lti, tx);
      await this.editor.touch(id, now, tx);
    });
    return this.lessonDto(id, lid);
  }

  /** A lesson of the course as the editor sees it (its quiz with the answers); 404 when either is missing. */
  async lesson(courseId: string, lessonId: string): Promise<EditorLessonDto> {
    return this.lessonDto(idOr404(courseId), idOr404(lessonId));
  }

  /**
   * Why one question could not enter a quiz: the shape limits of the quiz input (prompt 1..2 000 characters, options
   * 1..500, explanation up to 2 000) and the quiz rules (`quizProblems`). Empty when it may. For questions that do
   * not come through a DTO (AI quiz proposals).
   */
  questionProblems(question: QuizDraft['questions'][number], field = 'question'): ErrorDetail[] {
    const problems: ErrorDetail[] = [];
    const prompt = question.prompt.trim();
    if (prompt.length < 1 || prompt.length > 2000) {
      problems.push({ field: `${field}.prompt`, message: 'a prompt has 1..2000 characters' });
    }
    if (!QUESTION_KINDS.includes(question.kind))
      problems.push({ field: `${field}.kind`, message: 'unknown question kind' });
    if ((question.explanation ?? '').length > 2000) {
      problems.push({ field: `${field}.explanation`, message: 'an explanation has at most 2000 characters' });
    }
    if (question.options.some((o) => o.text.trim().length < 1 || o.text.trim().length > 500)) {
      problems.push({ field: `${field}.options`, message: 'an option has 1..500 characters' });
    }
    const ruled = quizProblems({ passing_score: 0, questions: [question] }, field);
    return [...problems, ...ruled.map((p) => ({ ...p, field: p.field.replace(`${field}.questions.0`, field) }))];
  }

  /**
   * Appends questions to the lesson's quiz in the caller's transaction, under the rules of a lesson `PATCH`: the
   * resulting quiz must follow `quizProblems` (422 otherwise, e.g. above 50 questions). The existing questions keep
   * their ids. A lesson without a quiz gets one, with `passingScore` (default 70); a given `passingScore` also
   * replaces the quiz's current one.
   */
  async appendQuizQuestions(
    courseId: string,
    lessonId: string,
    questions: QuizDraft['questions'],
    passingScore: number | undefined,
    tx: Tx,
  ): Promise<void> {
    const id = idOr404(courseId);
    const lid = idOr404(lessonId);
    if (!(await this.editor.lock(id, tx))) throw ApiError.notFound();
    if (!(await this.editor.lesson(id, lid, tx))) throw ApiError.notFound();
    const current = await this.catalog.quizOf(lid, tx);
    const added = questions.map((q) => ({
      prompt: q.prompt.trim(),
      kind: q.kind,
      explanation: q.explanation?.trim() ? q.explanation.trim() : null,
      options: q.options.map((o) => ({ text: o.text.trim(), correct: o.correct })),
    }));
    const quiz = {
      passing_score: passingScore ?? current?.passing_score ?? 70,
      questions: [...(current?.questions ?? []), ...added],
    };
    throwIf([
      ...added.flatMap((q, i) => this.questionProblems(q, `quiz.questions.${(current?.questions.length ?? 0) + i}`)),
      ...quizProblems(quiz).filter((p) => p.field === 'quiz.questions'),
    ]);
    await this.editor.appendQuiz(
      lid,
      { passing_score: quiz.passing_score, questions: added },
      passingScore === undefined,
      tx,
    );
    await this.editor.touch(id, this.clock.now(), tx);
  }

  /** The later lessons move up. The last lesson of a published course cannot go (409 `course_empty`). */
  async deleteLesson(courseId: string, lessonId: string): Promise<void> {
    const id = idOr404(courseId);
    const lid = idOr404(lessonId);
    await this.transactions.run(async (tx) => {
      const course = await this.editor.lock(id, tx);
      if (!course) throw ApiError.notFound();
      const order = await this.editor.order(id, tx);
      if (!order.includes(lid)) throw ApiError.notFound();
      if (order.length === 1 && course.status === 'published') {
        throw courseEmpty('A published course keeps at least one lesson: unpublish it first.');
      }
      await this.editor.deleteLesson(id, lid, tx);
      await this.editor.setOrder(id, removeFrom(order, lid), tx);
      await this.editor.touch(id, this.clock.now(), tx);
    });
  }

  private async setStatus(
    courseId: string,
    status: 'published' | 'unpublished',
    actorId: string,
    ip?: string,
  ): Promise<EditorCourseDto> {
    const id = idOr404(courseId);
    await this.transactions.run(async (tx) => {
      const course = await this.editor.lock(id, tx);
      if (!course) throw ApiError.notFound();
      if (status === 'published' && course.lessons_count === 0) {
        throw courseEmpty('A course needs at least one lesson to be published.');
      }
      if (course.status === status || (status === 'unpublished' && course.status === 'draft')) return;
      await this.editor.setStatus(id, status, this.clock.now(), tx);
      if (status === 'published') {
        // The catalog is shared: the fact is platform-level, and `published_at` is kept across unpublishing.
        await this.events.publish(
          tx,
          'course.published',
          { course_id: id, first_publication: course.published_at === null },
          { organizationId: null, actorId },
        );
      }
      await this.audit.record(
        {
          action: status === 'published' ? 'course.published' : 'course.unpublished',
          actorId,
          organizationId: null,
          targetType: 'course',
          targetId: id,
          ip,
          metadata: { slug: course.slug, visibility: course.visibility },
        },
        tx,
      );
    });
    return this.get(id);
  }

  /** `base`, else `base-2`, `base-3`...; after a lost race (attempt > 0) a random suffix. */
  private async freeSlug(base: string, attempt: number): Promise<string> {
    if (attempt > 0) return suffixedSlug(base, this.crypto.randomFromAlphabet('abcdefghjkmnpqrstuvwxyz23456789', 6));
    for (let n = 1; n <= 50; n++) {
      const slug = numberedSlug(base, n);
      if (isValidSlug(slug) && !(await this.editor.slugTaken(slug))) return slug;
    }
    return this.freeSlug(base, 1);
  }

  private async lessonDto(courseId: string, lessonId: string): Promise<EditorLessonDto> {
    const lesson = await this.editor.lesson(courseId, lessonId);
    if (!lesson) throw ApiError.notFound();
    return (await this.lessonDtos([lesson]))[0];
  }

  private async lessonDtos(lessons: EditorLessonRow[]): Promise<EditorLessonDto[]> {
    const ids = lessons.map((l) => l.id);
    const [quizzes, links] = await Promise.all([this.catalog.quizzesOf(ids), this.lti.lessonLinks(ids)]);
    return lessons.map((l) => {
      const quiz = quizzes.get(l.id);
      const quizDto: EditorQuizDto | null = quiz
        ? {
            id: quiz.id,
            passing_score: quiz.passing_score,
            questions: quiz.questions.map((q) => ({
              id: q.id,
              position: q.position,
              prompt: q.prompt,
              kind: q.kind,
              explanation: q.explanation,
              options: q.options.map((o) => ({ id: o.id, position: o.position, text: o.text, correct: o.correct })),
            })),
          }
        : null;
      return {
        id: l.id,
        course_id: l.course_id,
        position: l.position,
        title: l.title,
        content_md: l.content_md,
        estimated_minutes: l.estimated_minutes,
        quiz: quizDto,
        lti: links.get(l.id) ?? null,
        created_at: l.created_at.toISOString(),
        updated_at: l.updated_at.toISOString(),
      };
    });
  }

  private async toDto(course: EditorCourseRow, tx?: Tx): Promise<EditorCourseDto> {
    const [organizationIds, lessons] = await readAll(tx, [
      () => this.editor.organizationIds(course.id, tx),
      () => this.editor.lessons(course.id, tx),
    ]);
    return {
      ...toSummary(course),
      description_md: course.description_md,
      organization_ids: organizationIds,
      lessons: await this.lessonDtos(lessons),
    };
  }
}

function toSummary(c: EditorCourseRow): EditorCourseSummaryDto {
  return {
    id: c.id,
    slug: c.slug,
    title: c.title,
    summary: c.summary,
    language: c.language,
    level: c.level,
    tags: c.tags,
    visibility: c.visibility,
    status: c.status,
    issues_certificate: c.issues_certificate,
    estimated_minutes: c.estimated_minutes,
    lessons_count: c.lessons_count,
    published_at: c.published_at?.toISOString() ?? null,
    created_at: c.created_at.toISOString(),
    updated_at: c.updated_at.toISOString(),
  };
}

/** A restricted course names the organizations it is offered to. */
function checkAudience(visibility: string, organizationIds: string[]): void {
  if (visibility === 'restricted' && organizationIds.length === 0) {
    throw ApiError.validation([
      { field: 'organization_ids', message: 'organization_ids must name at least one organization when restricted' },
    ]);
  }
}

function throwIf(problems: ErrorDetail[]): void {
  if (problems.length) throw ApiError.validation(problems);
}

function throwIfPosition(position: number, max: number): void {
  const problem = positionProblem(position, max);
  if (problem) throw ApiError.validation([{ field: 'position', message: problem }]);
}
