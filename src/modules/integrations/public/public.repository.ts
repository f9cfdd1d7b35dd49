import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { catalogConditions } from '@/modules/learning/courses';
import type { RequestKind, RequestStatus } from './dto/public.dto';
import { tenancyExempt } from '@/core/database/tenancy';

export interface PublicCardRow {
  id: string;
  slug: string;
  title: string;
  summary: string;
  language: 'es' | 'en';
  level: 'beginner' | 'intermediate' | 'advanced';
  tags: string[];
  lessons_count: number;
  estimated_minutes: number;
  rating_average: number | null;
  rating_count: number;
  issues_certificate: boolean;
  published_at: Date;
  description_md?: string;
}

export interface ContactRow {
  id: string;
  kind: RequestKind;
  name: string;
  email: string;
  topic: string | null;
  organization_name: string | null;
  role: string | null;
  organization_size: string | null;
  country: string | null;
  message: string | null;
  locale: string | null;
  status: RequestStatus;
  created_at: Date;
  handled_at: Date | null;
}

/** Published and public, never restricted or unpublished (extensions-v2 20). */
const PUBLIC = `c.status = 'published' AND c.visibility = 'public'`;
const CARD = `c.id, c.slug, c.title, c.summary, c.language, c.level, c.tags, c.estimated_minutes, c.issues_certificate,
  c.published_at, (SELECT count(*)::int FROM lessons_read l WHERE l.course_id = c.id) AS lessons_count,
  r.rating_average, r.rating_count`;
const RATING = `${tenancyExempt('platform-catalog')} LEFT JOIN LATERAL (SELECT round(avg(cr.stars)::numeric, 1)::float8 AS rating_average,
    count(*)::int AS rating_count FROM course_ratings_read cr WHERE cr.course_id = c.id) r ON true`;
const CONTACT = `id, kind, name, email, topic, organization_name, role, organization_size, country, message, locale,
  status, created_at, handled_at`;

@Injectable()
export class PublicRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The public catalog, ordered and filtered as the built catalog (newest published first). */
  async catalog(
    filter: { q?: string; language?: string; level?: string; tag?: string },
    page: { limit: number; offset: number },
  ): Promise<{ rows: PublicCardRow[]; total: number }> {
    const params: unknown[] = [];
    const where = [PUBLIC, ...catalogConditions(filter, params)];
    const condition = where.join(' AND ');
    const [rows, count] = await Promise.all([
      this.dataSource.query<PublicCardRow[]>(
        `SELECT ${CARD} FROM courses_read c ${RATING} WHERE ${condition}
         ORDER BY c.published_at DESC, c.id DESC LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ n: number }[]>(
        `SELECT count(*)::int AS n FROM courses_read c WHERE ${condition}`,
        params,
      ),
    ]);
    return { rows, total: count[0].n };
  }

  async course(slug: string): Promise<{
    card: PublicCardRow;
    lessons: { position: number; title: string; estimated_minutes: number; has_quiz: boolean }[];
  } | null> {
    const rows = await this.dataSource.query<PublicCardRow[]>(
      `SELECT ${CARD}, c.description_md FROM courses_read c ${RATING} WHERE c.slug = $1 AND ${PUBLIC}`,
      [slug],
    );
    if (rows.length === 0) return null;
    const lessons = await this.dataSource.query<
      { position: number; title: string; estimated_minutes: number; has_quiz: boolean }[]
    >(
      `SELECT l.position, l.title, l.estimated_minutes,
         EXISTS (SELECT 1 FROM quizzes_read q WHERE q.lesson_id = l.id) AS has_quiz
       FROM lessons_read l WHERE l.course_id = $1 ORDER BY l.position`,
      [rows[0].id],
    );
    return { card: rows[0], lessons };
  }

  async insertRequest(kind: RequestKind, values: Record<string, string | null>, now: Date): Promise<string> {
    const rows = await this.dataSource.query<{ id: string }[]>(
      `INSERT INTO contact_requests (kind, name, email, topic, organization_name, role, organization_size, country,
         message, locale, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
      [
        kind,
        values.name,
        values.email,
        values.topic ?? null,
        values.organization_name ?? null,
        values.role ?? null,
        values.organization_size ?? null,
        values.country ?? null,
        values.message ?? null,
        values.locale ?? null,
        now,
      ],
    );
    return rows[0].id;
  }

  async listRequests(filter: {
    kind?: string;
    status?: string;
    limit: number;
    offset: number;
  }): Promise<{ rows: ContactRow[]; total: number }> {
    const where = `($1::text IS NULL OR kind = $1) AND ($2::text IS NULL OR status = $2)`;
    const params = [filter.kind ?? null, filter.status ?? null];
    const [rows, total] = await Promise.all([
      this.dataSource.query<ContactRow[]>(
        `SELECT ${CONTACT} FROM contact_requests WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT $3 OFFSET $4`,
        [...params, filter.limit, filter.offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM contact_requests WHERE ${where}`, params),
    ]);
    return { rows, total: total[0].n };
  }

  async setStatus(id: string, status: RequestStatus, now: Date): Promise<ContactRow | null> {
    const [rows] = await this.dataSource.query<[ContactRow[], number]>(
      `UPDATE contact_requests SET status = $2,
         handled_at = CASE WHEN $2 = 'new' THEN NULL WHEN status = $2 THEN handled_at ELSE $3::timestamptz END
       WHERE id = $1 RETURNING ${CONTACT}`,
      [id, status, now],
    );
    return rows[0] ?? null;
  }

  /** Retention (20): 180 days after handling, 365 days after arrival. */
  async prune(now: Date): Promise<number> {
    const [, count] = await this.dataSource.query<[unknown[], number]>(
      `DELETE FROM contact_requests
       WHERE (handled_at IS NOT NULL AND handled_at <= $1::timestamptz - interval '180 days')
          OR created_at <= $1::timestamptz - interval '365 days'`,
      [now],
    );
    return count;
  }
}
