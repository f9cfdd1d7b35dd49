import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { db } from '@/core/database/db';
import type { Tx } from '@/core/database/transaction';
import { isUuid } from '@/core/http/uuid';
import type { PathKind, PathStatus, PathVisibility } from './dto/path.dto';
import { orgEq, tenancyExempt } from '@/core/database/tenancy';

export interface PathRow {
  id: string;
  slug: string;
  title: string;
  description_md: string;
  kind: PathKind;
  status: PathStatus;
  visibility: PathVisibility;
  issues_certificate: boolean;
  badge_name: string | null;
  badge_icon: string | null;
  capstone_title: string | null;
  capstone_instructions_md: string | null;
  capstone_passing_score: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface PathCourseRow {
  path_id: string;
  course_id: string;
  position: number;
  required: boolean;
}

/** The writable columns of a path. */
export interface PathValues {
  slug: string;
  title: string;
  description_md: string;
  kind: PathKind;
  status: PathStatus;
  visibility: PathVisibility;
  issues_certificate: boolean;
  badge_name: string | null;
  badge_icon: string | null;
  capstone_title: string | null;
  capstone_instructions_md: string | null;
  capstone_passing_score: number | null;
}

const COLUMNS = `p.id, p.slug, p.title, p.description_md, p.kind, p.status, p.visibility, p.issues_certificate, p.badge_name,
  p.badge_icon, p.capstone_title, p.capstone_instructions_md, p.capstone_passing_score, p.created_at, p.updated_at`;

/** Published, and public or restricted to this organization ($1). */
const VISIBLE_TO_ORG = `p.status = 'published' AND (p.visibility = 'public'
  OR EXISTS (SELECT 1 FROM path_organizations po WHERE po.path_id = p.id AND ${orgEq(1, 'po')}))`;

/**
 * The shared catalog's learning paths and programs (platform data, authored by editors) and what an
 * organization sees of them. Courses themselves belong to the courses area (its CatalogService).
 */
@Injectable()
export class PathsRepository {
  constructor(private readonly dataSource: DataSource) {}

  async findById(id: string, tx?: Tx): Promise<PathRow | null> {
    const rows = await db(this.dataSource, tx).query<PathRow[]>(
      `SELECT ${COLUMNS} FROM learning_paths p WHERE p.id = $1`,
      [id],
    );
    return rows[0] ?? null;
  }

  async lock(id: string, tx: Tx): Promise<PathRow | null> {
    const rows = await tx.manager.query<PathRow[]>(
      `SELECT ${COLUMNS} FROM learning_paths p WHERE p.id = $1 FOR UPDATE`,
      [id],
    );
    return rows[0] ?? null;
  }

  async slugTaken(slug: string, exceptId?: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `SELECT 1 FROM learning_paths WHERE slug = $1 AND ($2::uuid IS NULL OR id <> $2)`,
      [slug, exceptId ?? null],
    );
    return rows.length > 0;
  }

  async list(
    filter: { kind?: PathKind; status?: PathStatus },
    page: { limit: number; offset: number },
  ): Promise<{ rows: PathRow[]; total: number }> {
    const params = [filter.kind ?? null, filter.status ?? null];
    const where = `($1::text IS NULL OR p.kind = $1) AND ($2::text IS NULL OR p.status = $2)`;
    const [rows, count] = await Promise.all([
      this.dataSource.query<PathRow[]>(
        `SELECT ${COLUMNS} FROM learning_paths p WHERE ${where} ORDER BY p.created_at DESC, p.id DESC LIMIT $3 OFFSET $4`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM learning_paths p WHERE ${where}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }

  async insert(values: PathValues, createdBy: string, now: Date, tx: Tx): Promise<string> {
    const rows = await tx.manager.query<{ id: string }[]>(
      `INSERT INTO learning_paths (slug, title, description_md, kind, status, visibility, issues_certificate, badge_name,
         badge_icon, capstone_title, capstone_instructions_md, capstone_passing_score, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) RETURNING id`,
      [...valueList(values), createdBy, now],
    );
    return rows[0].id;
  }

  async update(id: string, values: PathValues, now: Date, tx: Tx): Promise<void> {
    await tx.manager.query(
      `UPDATE learning_paths SET slug = $1, title = $2, description_md = $3, kind = $4, status = $5, visibility = $6,
         issues_certificate = $7, badge_name = $8, badge_icon = $9, capstone_title = $10, capstone_instructions_md = $11,
         capstone_passing_score = $12, updated_at = $13 WHERE id = $14`,
      [...valueList(values), now, id],
    );
  }

  /** Replaces the path's courses; positions follow the array order (1, 2, ...). */
  async setCourses(pathId: string, courses: { course_id: string; required: boolean }[], tx: Tx): Promise<void> {
    await tx.manager.query(`DELETE FROM path_courses WHERE path_id = $1`, [pathId]);
    await tx.manager.query(
      `INSERT INTO path_courses (path_id, course_id, position, required)
       SELECT $1, x.course_id, x.position, x.required
       FROM unnest($2::uuid[], $3::boolean[]) WITH ORDINALITY AS x(course_id, required, position)`,
      [pathId, courses.map((c) => c.course_id), courses.map((c) => c.required)],
    );
  }

  async setOrganizations(pathId: string, organizationIds: string[], tx: Tx): Promise<void> {
    await tx.manager.query(`${tenancyExempt('platform-catalog')} DELETE FROM path_organizations WHERE path_id = $1`, [
      pathId,
    ]);
    await tx.manager.query(`INSERT INTO path_organizations (path_id, organization_id) SELECT $1, unnest($2::uuid[])`, [
      pathId,
      organizationIds,
    ]);
  }

  /** The courses of these paths, in order. */
  async coursesOf(pathIds: string[], tx?: Tx): Promise<Map<string, PathCourseRow[]>> {
    const out = new Map<string, PathCourseRow[]>(pathIds.map((id) => [id, []]));
    if (pathIds.length === 0) return out;
    const rows = await db(this.dataSource, tx).query<PathCourseRow[]>(
      `SELECT path_id, course_id, position, required FROM path_courses
       WHERE path_id = ANY($1::uuid[]) ORDER BY path_id, position`,
      [pathIds],
    );
    for (const row of rows) out.get(row.path_id)?.push(row);
    return out;
  }

  async organizationsOf(pathIds: string[], tx?: Tx): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>(pathIds.map((id) => [id, []]));
    if (pathIds.length === 0) return out;
    const rows = await db(this.dataSource, tx).query<{ path_id: string; organization_id: string }[]>(
      `${tenancyExempt('platform-catalog')} SELECT path_id, organization_id FROM path_organizations WHERE path_id = ANY($1::uuid[])
       ORDER BY path_id, organization_id`,
      [pathIds],
    );
    for (const row of rows) out.get(row.path_id)?.push(row.organization_id);
    return out;
  }

  /** A page of the published paths and programs this organization sees, most recent first. */
  async listVisible(
    organizationId: string,
    kind: PathKind | undefined,
    page: { limit: number; offset: number },
  ): Promise<{ rows: PathRow[]; total: number }> {
    const where = `${VISIBLE_TO_ORG} AND ($2::text IS NULL OR p.kind = $2)`;
    const params = [organizationId, kind ?? null];
    const [rows, count] = await Promise.all([
      this.dataSource.query<PathRow[]>(
        `SELECT ${COLUMNS} FROM learning_paths p WHERE ${where} ORDER BY p.created_at DESC, p.id DESC LIMIT $3 OFFSET $4`,
        [...params, page.limit, page.offset],
      ),
      this.dataSource.query<{ total: number }[]>(
        `SELECT count(*)::int AS total FROM learning_paths p WHERE ${where}`,
        params,
      ),
    ]);
    return { rows, total: count[0]?.total ?? 0 };
  }

  /** A published program this organization sees, by id or slug; null otherwise (plain paths included). */
  async findVisibleProgram(organizationId: string, idOrSlug: string): Promise<PathRow | null> {
    const byId = isUuid(idOrSlug);
    const rows = await this.dataSource.query<PathRow[]>(
      `SELECT ${COLUMNS} FROM learning_paths p
       WHERE ${byId ? 'p.id = $2::uuid' : 'p.slug = $2'} AND p.kind = 'program' AND ${VISIBLE_TO_ORG}`,
      [organizationId, byId ? idOrSlug.toLowerCase() : idOrSlug],
    );
    return rows[0] ?? null;
  }

  /**
   * Deletes a path nobody has a record of (16.5): 'gone' when it does not exist, 'in_use' when a program
   * completion, badge, certificate or capstone submission refers to it. The path row is locked first, so a
   * completion being recorded now waits and then finds no path.
   */
  async deleteUnused(id: string, tx: Tx): Promise<'deleted' | 'gone' | 'in_use'> {
    const found = await tx.manager.query<{ id: string }[]>(`SELECT id FROM learning_paths WHERE id = $1 FOR UPDATE`, [
      id,
    ]);
    if (found.length === 0) return 'gone';
    const [used] = await tx.manager.query<{ used: boolean }[]>(
      `${tenancyExempt('cross-organization-existence')} SELECT EXISTS (SELECT 1 FROM program_completions WHERE path_id = $1)
         OR EXISTS (SELECT 1 FROM badge_awards_read WHERE path_id = $1)
         OR EXISTS (SELECT 1 FROM issued_certificates_read WHERE path_id = $1)
         OR EXISTS (SELECT 1 FROM capstone_submissions WHERE path_id = $1) AS used`,
      [id],
    );
    if (used.used) return 'in_use';
    await tx.manager.query(`DELETE FROM learning_paths WHERE id = $1`, [id]);
    return 'deleted';
  }
}

function valueList(v: PathValues): unknown[] {
  return [
    v.slug,
    v.title,
    v.description_md,
    v.kind,
    v.status,
    v.visibility,
    v.issues_certificate,
    v.badge_name,
    v.badge_icon,
    v.capstone_title,
    v.capstone_instructions_md,
    v.capstone_passing_score,
  ];
}
