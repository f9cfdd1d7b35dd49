import { Injectable } from '@nestjs/common';
import type { Tx } from '@/core/database/transaction';
import { CatalogService } from './catalog.service';
import { type ChunkRow, CoursesRepository } from './courses.repository';
import { LearnerState } from './learner-state.port';
import { type Passage, PassageRetriever, type RetrievalQuery } from './passage-retrieval';

/** Who reads: a member of an organization. */
export interface Reader {
  organizationId: string;
  userId: string;
}

/**
 * The passages of lessons (extensions-v2 23.2), as other areas read them: the tutor's retrieval for a learner and
 * a lesson's passages for quiz proposals. Passages are derived data of lessons, written by the editor.
 */
@Injectable()
export class LessonPassagesService {
  constructor(
    private readonly retriever: PassageRetriever,
    private readonly catalog: CatalogService,
    private readonly courses: CoursesRepository,
    private readonly learners: LearnerState,
  ) {}

  /**
   * The passages most relevant to a question among those the reader may read: the course must be reachable by them
   * in the organization (in its catalog, or still for people enrolled there) and they must be enrolled, as for
   * reading a lesson. Anything else finds nothing, whatever the caller checked before.
   */
  async forLearner(reader: Reader, query: RetrievalQuery): Promise<Passage[]> {
    // Asked together; the passages are dropped unless the reader may read them.
    const [reachable, passages] = await Promise.all([
      this.catalog.reachable(reader.organizationId, query.courseId, (courseId) =>
        this.learners.enrollment(reader.organizationId, reader.userId, courseId),
      ),
      this.retriever.retrieve(query),
    ]);
    if (!reachable?.enrollment || reachable.course.id !== query.courseId) return [];
    return passages.filter((p) => p.course_id === query.courseId);
  }

  /** The passages of a lesson in order (editor work: no learner rules). */
  ofLesson(courseId: string, lessonId: string, tx?: Tx): Promise<ChunkRow[]> {
    return this.courses.lessonChunks(courseId, lessonId, tx);
  }
}
