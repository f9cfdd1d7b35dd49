import { Injectable } from '@nestjs/common';
import { AuditService } from '@/core/audit/audit.service';
import type { Membership } from '@/core/auth/tenancy';
import { Clock } from '@/core/clock/clock';
import { TransactionRunner } from '@/core/database/transaction';
import { ApiError, type ErrorDetail } from '@/core/http/api-error';
import { type Page, toPage } from '@/core/http/pagination';
import { isUniqueViolation } from '@/core/database/constraint-violation';
import { CatalogService } from '@/modules/learning/courses';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { ProgressService } from '@/modules/learning/progress';
import type {
  CreatePathDto,
  EditorPathQueryDto,
  OrgPathDto,
  OrgPathQueryDto,
  PathDto,
  UpdatePathDto,
} from './dto/path.dto';
import { coursesMet } from './program-requirements';
import { type PathCourseRow, type PathRow, PathsRepository, type PathValues } from './paths.repository';
import { ProgramsRepository } from './programs.repository';

function slugTaken(): ApiError {
  return ApiError.conflict('slug_taken', 'That slug is already in use.');
}

function isSlugViolation(err: unknown): boolean {
  return isUniqueViolation(err, 'learning_paths_slug_uq');
}

export function capstoneOf(row: PathRow): { title: string; instructions_md: string; passing_score: number } | null {
  return row.capstone_title !== null && row.capstone_passing_score !== null
    ? {
        title: row.capstone_title,
        instructions_md: row.capstone_instructions_md ?? '',
        passing_score: row.capstone_passing_score,
      }
    : null;
}

export type TitledCourse = PathCourseRow & { title: string };

export function badgeOf(row: PathRow): { name: string; icon: string | null } | null {
  return row.badge_name !== null ? { name: row.badge_name, icon: row.badge_icon } : null;
}

/**
 * Learning paths and programs: authored by the platform's editors for the shared catalog, and seen by
 * organizations once published (public, or restricted to them).
 */
@Injectable()
export class PathsService {
  constructor(
    private readonly paths: PathsRepository,
    private readonly programs: ProgramsRepository,
    private readonly progress: ProgressService,
    private readonly organizations: OrganizationsService,
    private readonly catalog: CatalogService,
    private readonly transactions: TransactionRunner,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  // Authoring (platform editors).

  async list(query: EditorPathQueryDto): Promise<Page<PathDto>> {
    const { rows, total } = await this.paths.list({ kind: query.kind, status: query.status }, query);
    return toPage(await this.toDtos(rows), total, query);
  }

  /** 16.5: only a path nobody has a record of (409 `path_in_use`; unpublish it instead). Audited. */
  async remove(id: string, actorId: string, ip?: string): Promise<void> {
    await this.transactions.run(async (tx) => {
      const outcome = await this.paths.deleteUnused(id, tx);
      if (outcome === 'gone') throw ApiError.notFound();
      if (outcome === 'in_use')
        throw ApiError.conflict(
          'path_in_use',
          'A program completion, badge, certificate or capstone submission refers to this path: unpublish it instead.',
        );
      await this.audit.record(
        { action: 'path.deleted', actorId, organizationId: null, targetType: 'path', targetId: id, ip },
        tx,
      );
    });
  }

  async get(id: string): Promise<PathDto> {
    const row = await this.paths.findById(id);
    if (!row) throw ApiError.notFound();
    return (await this.toDtos([row]))[0];
  }

  async create(dto: CreatePathDto, editorId: string): Promise<PathDto> {
    const values: PathValues = {
      slug: dto.slug,
      title: dto.title,
      description_md: dto.description_md ?? '',
      kind: dto.kind,
      status: dto.status ?? 'draft',
      visibility: dto.visibility ?? 'public',
      issues_certificate: dto.issues_certificate ?? false,
      badge_name: dto.badge?.name ?? null,
      badge_icon: dto.badge?.icon ?? null,
      capstone_title: dto.capstone?.title ?? null,
      capstone_instructions_md: dto.capstone?.instructions_md ?? null,
      capstone_passing_score: dto.capstone?.passing_score ?? null,
    };
    checkKindRules(values);
    const courses = await this.checkedCourses(dto.courses);
    const organizationIds = await this.checkedOrganizations(dto.organization_ids ?? []);
    if (await this.paths.slugTaken(values.slug)) throw slugTaken();
    const id = await this.transactions
      .run(async (tx) => {
        const created = await this.paths.insert(values, editorId, this.clock.now(), tx);
        await this.paths.setCourses(created, courses, tx);
        await this.paths.setOrganizations(created, organizationIds, tx);
        return created;
      })
      .catch((err: unknown) => {
        if (isSlugViolation(err)) throw slugTaken();
        throw err;
      });
    return this.get(id);
  }

  async update(id: string, dto: UpdatePathDto): Promise<PathDto> {
    const current = await this.paths.findById(id);
    if (!current) throw ApiError.notFound();
    const courses = dto.courses === undefined ? undefined : await this.checkedCourses(dto.courses);
    const organizationIds =
      dto.organization_ids === undefined ? undefined : await this.checkedOrganizations(dto.organization_ids);
    if (dto.slug !== undefined && (await this.paths.slugTaken(dto.slug, id))) throw slugTaken();
    await this.transactions
      .run(async (tx) => {
        const locked = await this.paths.lock(id, tx);
        if (!locked) throw ApiError.notFound();
        const values: PathValues = {
          slug: dto.slug ?? locked.slug,
          title: dto.title ?? locked.title,
          description_md: dto.description_md ?? locked.description_md,
          kind: dto.kind ?? locked.kind,
          status: dto.status ?? locked.status,
          visibility: dto.visibility ?? locked.visibility,
          issues_certificate: dto.issues_certificate ?? locked.issues_certificate,
          badge_name: dto.badge === undefined ? locked.badge_name : (dto.badge?.name ?? null),
          badge_icon: dto.badge === undefined ? locked.badge_icon : (dto.badge?.icon ?? null),
          capstone_title: dto.capstone === undefined ? locked.capstone_title : (dto.capstone?.title ?? null),
          capstone_instructions_md:
            dto.capstone === undefined ? locked.capstone_instructions_md : (dto.capstone?.instructions_md ?? null),
          capstone_passing_score:
            dto.capstone === undefined ? locked.capstone_passing_score : (dto.capstone?.passing_score ?? null),
        };
        checkKindRules(values);
        await this.paths.update(id, values, this.clock.now(), tx);
        if (courses) await this.paths.setCourses(id, courses, tx);
        if (organizationIds) await this.paths.setOrganizations(id, organizationIds, tx);
      })
      .catch((err: unknown) => {
        if (isSlugViolation(err)) throw slugTaken();
        throw err;
      });
    return this.get(id);
  }

  /** The courses of these paths in order, with their catalog titles. */
  async coursesOf(pathIds: string[]): Promise<Map<string, TitledCourse[]>> {
    const byPath = await this.paths.coursesOf(pathIds);
    const cards = await this.catalog.cards([...new Set([...byPath.values()].flat().map((c) => c.course_id))]);
    return new Map(
      [...byPath].map(([pathId, list]) => [
        pathId,
        list.map((c) => ({ ...c, title: cards.get(c.course_id)?.title ?? '' })),
      ]),
    );
  }

  // What an organization sees.

  /** The published paths and programs the organization sees, with the caller's completion of each course. */
  async listForOrganization(membership: Membership, query: OrgPathQueryDto): Promise<Page<OrgPathDto>> {
    const { organizationId, userId } = membership;
    const { rows, total } = await this.paths.listVisible(organizationId, query.kind, query);
    const ids = rows.map((r) => r.id);
    const [courses, completed, programsDone] = await Promise.all([
      this.coursesOf(ids),
      this.progress.completedCourseIds(organizationId, userId),
      this.programs.completedPathIds(organizationId, userId, ids),
    ]);
    const items = rows.map((row): OrgPathDto => {
      const list = courses.get(row.id) ?? [];
      return {
        id: row.id,
        slug: row.slug,
        title: row.title,
        kind: row.kind,
        description_md: row.description_md,
        courses: list.map((c) => ({
          course_id: c.course_id,
          title: c.title,
          required: c.required,
          completed: completed.has(c.course_id),
        })),
        capstone: capstoneOf(row),
        issues_certificate: row.issues_certificate,
        badge: badgeOf(row),
        completed: row.kind === 'program' ? programsDone.has(row.id) : coursesMet(list, completed),
      };
    });
    return toPage(items, total, query);
  }

  /** Each course once, every one in the catalog (422 naming the missing ones), positions in array order. */
  private async checkedCourses(
    input: { course_id: string; required?: boolean }[],
  ): Promise<{ course_id: string; required: boolean }[]> {
    const courses = input.map((c) => ({ course_id: c.course_id.toLowerCase(), required: c.required ?? true }));
    const details: ErrorDetail[] = [];
    const seen = new Set<string>();
    courses.forEach((c, i) => {
      if (seen.has(c.course_id)) details.push({ field: `courses.${i}.course_id`, message: 'course_id is repeated' });
      seen.add(c.course_id);
    });
    const existing = await this.catalog.cards([...seen]);
    courses.forEach((c, i) => {
      if (!existing.has(c.course_id)) {
        details.push({ field: `courses.${i}.course_id`, message: 'course_id must be an existing course' });
      }
    });
    if (details.length) throw ApiError.validation(details);
    return courses;
  }

  private async checkedOrganizations(input: string[]): Promise<string[]> {
    const ids = [...new Set(input.map((id) => id.toLowerCase()))];
    const found = await Promise.all(ids.map((id) => this.organizations.findById(id)));
    const missing = ids.filter((_, i) => !found[i]);
    if (missing.length) {
      throw ApiError.validation([
        { field: 'organization_ids', message: `unknown organizations: ${missing.join(', ')}` },
      ]);
    }
    return ids;
  }

  private async toDtos(rows: PathRow[]): Promise<PathDto[]> {
    const ids = rows.map((r) => r.id);
    const [courses, orgs] = await Promise.all([this.coursesOf(ids), this.paths.organizationsOf(ids)]);
    return rows.map((row) => ({
      id: row.id,
      slug: row.slug,
      title: row.title,
      kind: row.kind,
      description_md: row.description_md,
      courses: (courses.get(row.id) ?? []).map((c) => ({
        course_id: c.course_id,
        title: c.title,
        required: c.required,
        position: c.position,
      })),
      capstone: capstoneOf(row),
      issues_certificate: row.issues_certificate,
      badge: badgeOf(row),
      status: row.status,
      visibility: row.visibility,
      organization_ids: orgs.get(row.id) ?? [],
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at.toISOString(),
    }));
  }
}

/** A capstone and a certificate make sense for programs only. */
function checkKindRules(values: PathValues): void {
  if (values.kind !== 'program') {
    const details: ErrorDetail[] = [];
    if (values.capstone_title !== null) details.push({ field: 'capstone', message: 'only a program has a capstone' });
    if (values.issues_certificate) {
      details.push({ field: 'issues_certificate', message: 'only a program issues a certificate' });
    }
    if (details.length) throw ApiError.validation(details);
  }
}
