import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Tx } from '@/core/database/transaction';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface OrgRatingRow {
  user_id: string;
  stars: number;
  comment: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface MyRatingRow {
  course_id: string;
  slug: string;
  title: string;
  organization_id: string;
  stars: number;
  comment: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Course ratings as lists (extensions-v2 4): one organization's, or one person's. */
@Injectable()
export class RatingsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async page(
    organizationId: string,
    courseId: string,
    filter: { stars?: number; withComment?: boolean },
    limit: number,
    offset: number,
  ): Promise<{ rows: OrgRatingRow[]; total: number }> {
    const where = `${orgEq(1)} AND course_id = $2 AND ($3::int IS NULL OR stars = $3)
      AND ($4::boolean IS NULL OR (comment IS NOT NULL) = $4)`;
    const params = [organizationId, courseId, filter.stars ?? null, filter.withComment ?? null];
    const [rows, count] = await Promise.all([
      this.dataSource.query<OrgRatingRow[]>(
        `SELECT user_id, stars, comment, created_at, updated_at FROM course_ratings WHERE ${where}
         ORDER BY updated_at DESC, user_id LIMIT $5 OFFSET $6`,
        [...params, limit, offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM course_ratings WHERE ${where}`, params),
    ]);
    return { rows, total: count[0].n };
  }

  /** Withdraws the person's rating of the course (wherever it was written); false when there was none. */
  async withdraw(userId: string, courseId: string, tx: Tx): Promise<{ organization_id: string } | null> {
    const [rows] = await tx.manager.query<[{ organization_id: string }[], number]>(
      `${tenancyExempt('person-across-organizations')} DELETE FROM course_ratings WHERE course_id = $1 AND user_id = $2 RETURNING organization_id`,
      [courseId, userId],
    );
    return rows[0] ?? null;
  }

  async removeComment(organizationId: string, courseId: string, userId: string, tx: Tx): Promise<OrgRatingRow | null> {
    const [rows] = await tx.manager.query<[OrgRatingRow[], number]>(
      `UPDATE course_ratings SET comment = NULL WHERE ${orgEq(1)} AND course_id = $2 AND user_id = $3
       RETURNING user_id, stars, comment, created_at, updated_at`,
      [organizationId, courseId, userId],
    );
    return rows[0] ?? null;
  }

  async mine(
    userId: string,
    organizationId: string | null,
    limit: number,
    offset: number,
  ): Promise<{ rows: MyRatingRow[]; total: number }> {
    const where = `r.user_id = $1 AND ($2::uuid IS NULL OR ${orgEq(2, 'r')})`;
    const [rows, count] = await Promise.all([
      this.dataSource.query<MyRatingRow[]>(
        `SELECT r.course_id, c.slug, c.title, r.organization_id, r.stars, r.comment, r.created_at, r.updated_at
         FROM course_ratings r JOIN courses_read c ON c.id = r.course_id WHERE ${where}
         ORDER BY r.updated_at DESC, r.course_id LIMIT $3 OFFSET $4`,
        [userId, organizationId, limit, offset],
      ),
      this.dataSource.query<{ n: number }[]>(`SELECT count(*)::int AS n FROM course_ratings r WHERE ${where}`, [
        userId,
        organizationId,
      ]),
    ]);
    return { rows, total: count[0].n };
  }
}
