import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { configOf, textQuery, visibleTo } from '@/modules/learning/courses';
import type { ResultType } from './dto/search.dto';
import { HIT_END, HIT_START } from './snippet';

export interface SearchRow {
  type: ResultType;
  id: string;
  course_id: string;
  title: string;
  score: number;
  headline: string;
}

/** `ts_headline` options: private-use markers (the service turns them into brackets), two short fragments. */
const HEADLINE_OPTIONS = `StartSel=${HIT_START}, StopSel=${HIT_END}, MaxWords=28, MinWords=12, ShortWord=3, MaxFragments=2, FragmentDelimiter=" … "`;
/** The marker characters never come from the text itself. */
const stripMarkers = (expr: string): string => `translate(${expr}, '${HIT_START}${HIT_END}', '')`;

/**
 * Full-text search over the catalog visible to an organization. The matches come from the GIN indexes on
 * `courses.search_vector` and `lessons.search_vector` (a bitmap scan per kind), are ranked with `ts_rank_cd`
 * (weights: title A, summary B / lesson content B, description C; normalized to 0..1), and only the page's rows
 * get a `ts_headline`, cut with each document's own language configuration.
 */
@Injectable()
export class SearchRepository {
  constructor(private readonly dataSource: DataSource) {}

  async search(
    organizationId: string,
    q: string,
    type: ResultType | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ rows: SearchRow[]; total: number }> {
    const query = textQuery('$2');
    const branches: string[] = [];
    if (type !== 'lesson') {
      branches.push(`SELECT 'course'::text AS type, c.id, c.id AS course_id, ts_rank_cd(c.search_vector, ${query}, 32) AS score
        FROM courses_read c WHERE c.search_vector @@ ${query} AND ${visibleTo('c', 1)}`);
    }
    if (type !== 'course') {
      branches.push(`SELECT 'lesson'::text AS type, l.id, l.course_id, ts_rank_cd(l.search_vector, ${query}, 32) AS score
        FROM lessons_read l JOIN courses_read c ON c.id = l.course_id
        WHERE l.search_vector @@ ${query} AND ${visibleTo('c', 1)}`);
    }
    const hits = branches.join(' UNION ALL ');
    const [rows, count] = await Promise.all([
      this.dataSource.query<SearchRow[]>(
        `WITH page AS (
           SELECT * FROM (${hits}) h ORDER BY h.score DESC, h.type, h.id LIMIT $3 OFFSET $4
         )
         SELECT p.type, p.id, p.course_id, p.score::float8 AS score,
           CASE p.type WHEN 'course' THEN c.title ELSE l.title END AS title,
           CASE p.type
             WHEN 'course' THEN ts_headline(${configOf('c')}, ${stripMarkers(`c.summary || E'\\n\\n' || c.description_md`)}, ${query}, $5)
             ELSE ts_headline(${configOf('l')}, ${stripMarkers('l.content_md')}, ${query}, $5)
           END AS headline
         FROM page p
         LEFT JOIN lessons_read l ON p.type = 'lesson' AND l.id = p.id
         JOIN courses_read c ON c.id = p.course_id
         ORDER BY p.score DESC, p.type, p.id`,
        [organizationId, q, page.limit, page.offset, HEADLINE_OPTIONS],
      ),
      this.dataSource.query<{ total: number }[]>(`SELECT count(*)::int AS total FROM (${hits}) h`, [organizationId, q]),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }
}
