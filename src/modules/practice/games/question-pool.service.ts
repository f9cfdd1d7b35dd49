import type { Tx } from '@/core/database/transaction';
import { randomInt } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Membership } from '@/core/auth/tenancy';
import { ApiError } from '@/core/http/api-error';
import { isUuid } from '@/core/http/uuid';
import { CatalogService, type QuestionKind } from '@/modules/learning/courses';
import { ProgressService } from '@/modules/learning/progress';

/** A lesson-quiz question with its answers, as games draw it (never sent to a player as is). */
export interface PoolQuestion {
  id: string;
  course_id: string;
  lesson_id: string;
  prompt: string;
  kind: QuestionKind;
  explanation: string | null;
  options: { id: string; text: string; correct: boolean }[];
}

/** Uniform random integer in [0, max): injectable so tests can draw deterministically. */
export type RandomInt = (max: number) => number;

/**
 * The questions a member may play (extensions-v2 7.1): the built lesson-quiz questions of one course they are
 * enrolled in here, or of every course they are enrolled in here. Read through the catalog's and progress's
 * exported services only, so any area (games, and whoever else needs a question pool) can reuse it.
 */
@Injectable()
export class QuestionPoolService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly progress: ProgressService,
  ) {}

  /**
   * With `courseId`: the course must be reachable here (404) and the member enrolled in it here (403
   * `not_enrolled`). Without: every course the member is enrolled in here (drafts never count).
   */
  async questionsFor(member: Membership, courseId?: string): Promise<PoolQuestion[]> {
    let courseIds: string[];
    if (courseId !== undefined) {
      if (!isUuid(courseId)) throw ApiError.notFound();
      const reach = await this.catalog.reachable(member.organizationId, courseId.toLowerCase(), (id) =>
        this.progress.enrollment(member.organizationId, member.userId, id),
      );
      if (!reach) throw ApiError.notFound();
      if (!reach.enrollment) throw ApiError.forbidden('Enroll in the course first.', 'not_enrolled');
      courseIds = [reach.course.id];
    } else {
      const enrolled = await this.progress.progressOf(member.organizationId, [member.userId]);
      const cards = await this.catalog.cards(enrolled.map((e) => e.course_id));
      courseIds = [...cards.values()].filter((c) => c.status !== 'draft').map((c) => c.id);
    }
    const out: PoolQuestion[] = [];
    for (const id of courseIds) {
      const lessons = (await this.catalog.outline(id)).filter((l) => l.has_quiz);
      if (lessons.length === 0) continue;
      const quizzes = await this.catalog.quizzesOf(lessons.map((l) => l.id));
      for (const lesson of lessons) {
        for (const q of quizzes.get(lesson.id)?.questions ?? []) {
          out.push({
            id: q.id,
            course_id: id,
            lesson_id: lesson.id,
            prompt: q.prompt,
            kind: q.kind,
            explanation: q.explanation,
            options: q.options.map((o) => ({ id: o.id, text: o.text, correct: o.correct })),
          });
        }
      }
    }
    return out;
  }

  /**
   * A drawn question as it is when served (its lesson's quiz read again), options shuffled; null when it left its
   * quiz since the draw.
   */
  async question(
    ref: { course_id: string; lesson_id: string; id: string },
    tx?: Tx,
    random: RandomInt = randomInt,
  ): Promise<PoolQuestion | null> {
    // Inside the game's transaction: its connection (the embedded database has one) and its snapshot.
    const quiz = (await this.catalog.quizzesOf([ref.lesson_id], tx)).get(ref.lesson_id);
    const q = quiz?.questions.find((x) => x.id === ref.id);
    if (!q) return null;
    return {
      id: q.id,
      course_id: ref.course_id,
      lesson_id: ref.lesson_id,
      prompt: q.prompt,
      kind: q.kind,
      explanation: q.explanation,
      options: shuffle(
        q.options.map((o) => ({ id: o.id, text: o.text, correct: o.correct })),
        random,
      ),
    };
  }

  /** Up to `count` questions drawn uniformly without replacement, each with its options shuffled. */
  draw(questions: readonly PoolQuestion[], count: number, random: RandomInt = randomInt): PoolQuestion[] {
    const pool = [...questions];
    const n = Math.min(count, pool.length);
    for (let i = 0; i < n; i++) {
      const j = i + random(pool.length - i);
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, n).map((q) => ({ ...q, options: shuffle(q.options, random) }));
  }
}

function shuffle<T>(items: readonly T[], random: RandomInt): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = random(i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
