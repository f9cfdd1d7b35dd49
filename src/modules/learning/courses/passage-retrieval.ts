import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { lexemeOrQuery } from './catalog-sql';

/** A passage of a lesson (extensions-v2 23.2) as retrieval returns it. */
export interface Passage {
  chunk_id: string;
  course_id: string;
  lesson_id: string;
  lesson_title: string;
  lesson_position: number;
  chunk_position: number;
  text: string;
  /** Relevance, higher first; comparable only within one answer. */
  rank: number;
}

export interface RetrievalQuery {
  courseId: string;
  /** Passages of this lesson weigh 1.5 times as much (the lesson the learner is reading). */
  lessonId: string | null;
  question: string;
  limit: number;
}

/**
 * Finds the passages of one course most relevant to a question. The full-text implementation below is the one in
 * use; a vector store (embeddings) can implement the same class and be bound in its place. Access rules are not
 * its business: `LessonPassagesService` applies them before asking.
 */
export abstract class PassageRetriever {
  abstract retrieve(query: RetrievalQuery): Promise<Passage[]>;
}

/**
 * PostgreSQL full text over `lesson_chunks` (extensions-v2 23.2): the question as an OR query of its lexemes in the
 * four configurations, candidates among the course's passages whose vector matches (GIN `lesson_chunks_search_idx`,
 * or the course's passages by `lesson_chunks_course_idx`, whichever the planner prefers), ranked by
 * `ts_rank_cd(vector, query, 32)` times 1.5 for the conversation's lesson; the best `limit` with a rank above 0,
 * ties by lesson position, then passage position.
 */
@Injectable()
export class FullTextPassageRetriever extends PassageRetriever {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async retrieve(query: RetrievalQuery): Promise<Passage[]> {
    const rows = await this.dataSource.query<Passage[]>(
      `WITH q AS (SELECT ${lexemeOrQuery('$3::text')} AS query)
       SELECT * FROM (
         SELECT ch.id AS chunk_id, ch.course_id, ch.lesson_id, l.title AS lesson_title, l.position AS lesson_position,
           ch.position AS chunk_position, ch.text,
           (ts_rank_cd(ch.search_vector, q.query, 32) * CASE WHEN ch.lesson_id = $2::uuid THEN 1.5 ELSE 1.0 END)::float8 AS rank
         FROM q, lesson_chunks_read ch JOIN lessons_read l ON l.id = ch.lesson_id
         WHERE ch.course_id = $1 AND ch.search_vector @@ q.query
       ) r
       WHERE r.rank > 0
       ORDER BY r.rank DESC, r.lesson_position, r.chunk_position
       LIMIT $4`,
      [query.courseId, query.lessonId, query.question, query.limit],
    );
    return rows;
  }
}
