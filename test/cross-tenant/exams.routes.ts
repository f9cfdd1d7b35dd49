import { CohortsService } from '@/modules/tenancy/cohorts';
import { ExamAuthoringService, ExamSessionsService, ExamsService } from '@/modules/learning/exams';
import { ProgressService } from '@/modules/learning/progress';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { makeCourse } from './learning.routes';
import { ALL_ROLES, type ScopedRoute, STAFF } from './route';

const base = (o: OrgFixture): string => `/api/v1/organizations/${o.id}/exams`;
const exam = (o: OrgFixture, key: string): string => `${base(o)}/${o.ids[`${key}Exam`]}`;
const session = (o: OrgFixture, key: string): string => `${exam(o, key)}/sessions/${o.ids[`${key}Session`]}`;

/**
 * A published exam of a public course, open to every member, a cohort taught by the organization's teacher with
 * its student, the student enrolled; with `session`, a session of the student (submitted when asked). Ids go under
 * `o.ids[key + 'Exam' | 'Cohort' | 'Window' | 'Session' | 'Question' | 'Option']`.
 */
async function examFixture(
  t: TestApp,
  o: OrgFixture,
  key: string,
  session: 'none' | 'open' | 'submitted' = 'none',
): Promise<void> {
  const owner = o.people.owner.user.id;
  const course = await makeCourse(t, owner, { title: `Cross-tenant exam ${key} ${o.id.slice(0, 8)}` });
  const made = await t.app.get(ExamAuthoringService).create(
    course.id,
    {
      title: `Exam ${key}`,
      duration_minutes: 60,
      passing_score: 50,
      questions_per_attempt: 1,
      status: 'published',
      questions: [
        {
          prompt: 'Pick A',
          kind: 'single',
          options: [
            { text: 'A', correct: true },
            { text: 'B', correct: false },
          ],
        },
      ],
    },
    owner,
  );
  o.ids[`${key}Exam`] = made.id;
  o.ids[`${key}Question`] = made.questions[0].id;
  o.ids[`${key}Option`] = made.questions[0].options[0].id;
  const asOwner = { organizationId: o.id, userId: owner, role: 'owner' as const };
  const cohorts = t.app.get(CohortsService);
  const cohort = (await cohorts.create(o.id, { name: `Exam cohort ${key}` }, owner)).id;
  await cohorts.addMember(o.id, cohort, o.people.teacher.user.id, 'teacher');
  await cohorts.addMember(o.id, cohort, o.people.student.user.id, 'student');
  o.ids[`${key}Cohort`] = cohort;
  const exams = t.app.get(ExamsService);
  await exams.createWindow(asOwner, made.id, { opens_at: new Date(t.clock.nowMs() - 60_000).toISOString() });
  const cohortWindow = await exams.createWindow(asOwner, made.id, {
    cohort_id: cohort,
    opens_at: new Date(t.clock.nowMs() - 60_000).toISOString(),
  });
  o.ids[`${key}Window`] = cohortWindow.id;
  const learner = { organizationId: o.id, userId: o.people.student.user.id, role: 'student' as const };
  await t.app.get(ProgressService).enroll(learner, course.id);
  if (session === 'none') return;
  const sessions = t.app.get(ExamSessionsService);
  const started = await sessions.start(learner, made.id);
  o.ids[`${key}Session`] = started.id;
  if (session === 'submitted') await sessions.submit(learner, made.id, started.id);
}

export const examRoutes: ScopedRoute[] = [
  {
    name: 'exam cards',
    method: 'get',
    path: (o) => base(o),
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'cards'),
  },
  {
    name: 'an exam card',
    method: 'get',
    path: (o) => exam(o, 'card'),
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'card'),
  },
  {
    name: "an exam's windows",
    method: 'get',
    path: (o) => `${exam(o, 'windows')}/windows`,
    roles: STAFF,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'windows'),
  },
  {
    name: 'open an exam window',
    method: 'post',
    path: (o) => `${exam(o, 'newWindow')}/windows`,
    body: (o) => ({ cohort_id: o.ids.newWindowCohort, opens_at: '2026-12-01T09:00:00.000Z' }),
    roles: STAFF,
    ok: 201,
    setup: (t, o) => examFixture(t, o, 'newWindow'),
  },
  {
    name: 'move an exam window',
    method: 'patch',
    path: (o) => `${exam(o, 'moveWindow')}/windows/${o.ids.moveWindowWindow}`,
    body: () => ({ closes_at: '2027-01-01T00:00:00.000Z' }),
    roles: STAFF,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'moveWindow'),
  },
  {
    name: 'delete an exam window',
    method: 'delete',
    path: (o) => `${exam(o, 'dropWindow')}/windows/${o.ids.dropWindowWindow}`,
    roles: STAFF,
    ok: 204,
    setup: (t, o) => examFixture(t, o, 'dropWindow'),
  },
  {
    name: 'start an exam session',
    method: 'post',
    path: (o) => `${exam(o, 'start')}/sessions`,
    roles: ALL_ROLES,
    ok: 201,
    setup: (t, o) => examFixture(t, o, 'start'),
  },
  {
    name: 'exam sessions',
    method: 'get',
    path: (o) => `${exam(o, 'sessions')}/sessions`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'sessions', 'open'),
  },
  {
    name: 'an exam session',
    method: 'get',
    path: (o) => session(o, 'read'),
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'read', 'open'),
  },
  {
    name: 'autosave an exam answer',
    method: 'put',
    path: (o) => `${session(o, 'answer')}/answers/${o.ids.answerQuestion}`,
    body: (o) => ({ option_ids: [o.ids.answerOption], seq: 1 }),
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'answer', 'open'),
  },
  {
    name: 'report proctoring events',
    method: 'post',
    path: (o) => `${session(o, 'proctor')}/events`,
    body: () => ({ events: [{ type: 'heartbeat', occurred_at: '2026-11-24T10:00:00.000Z' }] }),
    roles: ALL_ROLES,
    ok: 202,
    setup: (t, o) => examFixture(t, o, 'proctor', 'open'),
  },
  {
    name: 'submit an exam session',
    method: 'post',
    path: (o) => `${session(o, 'submit')}/submit`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'submit', 'open'),
  },
  {
    name: 'review an exam session',
    method: 'post',
    path: (o) => `${session(o, 'review')}/review`,
    body: () => ({ decision: 'accept', reason: 'Checked' }),
    roles: STAFF,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'review', 'submitted'),
  },
  {
    name: "an exam session's proctoring events",
    method: 'get',
    path: (o) => `${session(o, 'events')}/events`,
    roles: STAFF,
    ok: 200,
    setup: (t, o) => examFixture(t, o, 'events', 'submitted'),
  },
];
