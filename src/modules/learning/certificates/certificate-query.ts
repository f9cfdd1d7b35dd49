import type { CertificateType } from './certificate-code';
import type { CertificateStatus } from './certificate-export';
import { orgEq } from '@/core/database/tenancy';

/** What a list or an export of an organization's certificates keeps. Ids are lower-case UUIDs. */
export interface CertificateFilter {
  courseId?: string;
  pathId?: string;
  /** Holders who are currently members of this cohort (any role). */
  cohortId?: string;
  status?: CertificateStatus;
  type?: CertificateType;
  /** Holders who are currently students of a cohort this person teaches (the teacher's scope). */
  teacherId?: string;
}

/**
 * The WHERE clause over `issued_certificates c` for one organization, with its parameters ($1 is the organization).
 * Each condition has an index that serves it (migrations 1763741300000 and 1763741500000; EXPLAIN figures in
 * bench/README.md): the organization with the course, the program, the status (and type), the type, or the holder;
 * cohort membership through the primary key of `cohort_members` and `cohort_members_org_user_idx`.
 */
export function certificateWhere(
  organizationId: string,
  filter: CertificateFilter,
): { sql: string; params: unknown[] } {
  const params: unknown[] = [organizationId];
  const where = [orgEq(1, 'c')];
  const add = (value: unknown, condition: (p: string) => string): void => {
    params.push(value);
    where.push(condition(`$${params.length}`));
  };
  if (filter.courseId) add(filter.courseId, (p) => `c.course_id = ${p}`);
  if (filter.pathId) add(filter.pathId, (p) => `c.path_id = ${p}`);
  if (filter.status) add(filter.status, (p) => `c.status = ${p}`);
  if (filter.type) add(filter.type, (p) => `c.type = ${p}`);
  // Cohort and teacher scopes name a bounded set of people: their ids are collected once (an InitPlan) and the
  // certificates fetched per person through `issued_certificates_org_user_idx`, so the cost follows the size of the
  // scope, never the size of the organization (a semi-join walking the organization's certificates in date order
  // would read all of them when the scope holds few or none).
  if (filter.cohortId) {
    add(
      filter.cohortId,
      (p) =>
        `c.user_id = ANY (ARRAY(SELECT m.user_id FROM cohort_members_read m WHERE m.cohort_id = ${p} AND ${orgEq(1, 'm')}))`,
    );
  }
  if (filter.teacherId) {
    add(
      filter.teacherId,
      (p) => `c.user_id = ANY (ARRAY(SELECT DISTINCT s.user_id FROM cohort_members_read t
        JOIN cohort_members_read s ON s.cohort_id = t.cohort_id AND s.organization_id = t.organization_id AND s.role = 'student'
        WHERE ${orgEq(1, 't')} AND t.user_id = ${p} AND t.role = 'teacher'))`,
    );
  }
  return { sql: where.join(' AND '), params };
}
