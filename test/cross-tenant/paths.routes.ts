import { randomBytes } from 'node:crypto';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ALL_ROLES, type ScopedRoute, STAFF } from './route';

const org = (o: OrgFixture): string => `/api/v1/organizations/${o.id}`;

/**
 * A published program restricted to this organization, with one course its student has completed, a capstone
 * (unless `capstone` is false), a cohort where its teacher teaches its student, and a submission of that student.
 */
async function program(t: TestApp, o: OrgFixture, key: string, capstone = true): Promise<void> {
  const [course] = await t.db.query(
    `INSERT INTO courses (slug, title, language, level, status) VALUES ($1, 'Cross-tenant', 'en', 'beginner', 'published')
     RETURNING id`,
    [`ct-${randomBytes(6).toString('hex')}`],
  );
  const [path] = await t.db.query(
    `INSERT INTO learning_paths (slug, title, kind, status, visibility, issues_certificate, badge_name,
       capstone_title, capstone_instructions_md, capstone_passing_score)
     VALUES ($1, 'Cross-tenant program', 'program', 'published', 'restricted', true, 'Badge', $2, $3, $4) RETURNING id`,
    [
      `ct-${randomBytes(6).toString('hex')}`,
      capstone ? 'Final' : null,
      capstone ? 'Do it' : null,
      capstone ? 50 : null,
    ],
  );
  await t.db.query(`INSERT INTO path_organizations (path_id, organization_id) VALUES ($1, $2)`, [path.id, o.id]);
  await t.db.query(`INSERT INTO path_courses (path_id, course_id, position, required) VALUES ($1, $2, 1, true)`, [
    path.id,
    course.id,
  ]);
  await t.db.query(
    `INSERT INTO enrollments (organization_id, user_id, course_id, status, completed_at) VALUES ($1, $2, $3, 'completed', now())`,
    [o.id, o.people.student.user.id, course.id],
  );
  o.ids[key] = path.id as string;
  if (!capstone) return;
  const [cohort] = await t.db.query(`INSERT INTO cohorts (organization_id, name) VALUES ($1, $2) RETURNING id`, [
    o.id,
    `Capstone ${key}`,
  ]);
  for (const role of ['teacher', 'student'] as const) {
    await t.db.query(`INSERT INTO cohort_members (cohort_id, organization_id, user_id, role) VALUES ($1, $2, $3, $4)`, [
      cohort.id,
      o.id,
      o.people[role].user.id,
      role,
    ]);
  }
  const [submission] = await t.db.query(
    `INSERT INTO capstone_submissions (organization_id, user_id, path_id, content_md) VALUES ($1, $2, $3, 'work')
     RETURNING id`,
    [o.id, o.people.student.user.id, path.id],
  );
  o.ids[`${key}Submission`] = submission.id as string;
}

export const pathRoutes: ScopedRoute[] = [
  { name: 'list paths and programs', method: 'get', path: (o) => `${org(o)}/paths`, roles: ALL_ROLES, ok: 200 },
  {
    name: 'program progress',
    method: 'get',
    path: (o) => `${org(o)}/programs/${o.ids.programProgress}/progress`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => program(t, o, 'programProgress', false),
  },
  {
    name: 'claim a program credential',
    method: 'post',
    path: (o) => `${org(o)}/programs/${o.ids.programClaim}/credential`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => program(t, o, 'programClaim', false),
  },
  {
    name: 'submit a capstone',
    method: 'post',
    path: (o) => `${org(o)}/programs/${o.ids.programCapstone}/capstone/submissions`,
    body: () => ({ content_md: 'Cross-tenant work' }),
    roles: ALL_ROLES,
    ok: 201,
    setup: (t, o) => program(t, o, 'programCapstone'),
  },
  {
    name: 'list capstone submissions',
    method: 'get',
    path: (o) => `${org(o)}/programs/${o.ids.programCapstone}/capstone/submissions`,
    roles: ALL_ROLES,
    ok: 200,
  },
  {
    name: 'grade a capstone submission',
    method: 'post',
    path: (o) => `${org(o)}/programs/${o.ids.programGrade}/capstone/submissions/${o.ids.programGradeSubmission}/grade`,
    body: () => ({ score: 80 }),
    roles: STAFF,
    ok: 200,
    setup: (t, o) => program(t, o, 'programGrade'),
  },
];
