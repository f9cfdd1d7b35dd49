import type { TestApp } from '../support/test-app';
import { teacherCohort } from './reports.routes';
import { ADMINS, type ScopedRoute, STAFF } from './route';

export const statsRoutes: ScopedRoute[] = [
  {
    name: 'organization statistics (a cohort the teacher teaches)',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/stats?cohort_id=${o.ids.reportCohort}`,
    roles: STAFF,
    ok: 200,
    setup: async (_t: TestApp, o) => void (await teacherCohort(o)),
  },
  {
    name: "a student's detail in a cohort",
    method: 'get',
    path: (o) =>
      `/api/v1/organizations/${o.id}/teacher/cohorts/${o.ids.reportCohort}/students/${o.people.student.user.id}`,
    roles: STAFF,
    ok: 200,
    setup: async (_t: TestApp, o) => {
      const cohort = await teacherCohort(o);
      if (o.ids.detailStudent) return;
      await o.people.owner.agent
        .post(`/api/v1/organizations/${o.id}/cohorts/${cohort}/members`)
        .send({ user_id: o.people.student.user.id, role: 'student' })
        .expect(201);
      o.ids.detailStudent = o.people.student.user.id;
    },
  },
  {
    name: 'certificate template preview',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/certificate-template/preview.pdf`,
    roles: ADMINS,
    ok: 200,
  },
];
