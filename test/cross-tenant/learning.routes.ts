import type { OrgRole } from '@/core/auth/tenancy';
import { type CreateCourseDto, type QuizInputDto, EditorService } from '@/modules/learning/editor';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ALL_ROLES, type ScopedRoute, STAFF } from './route';

export interface LessonSpec {
  title: string;
  content_md?: string;
  estimated_minutes?: number;
  quiz?: QuizInputDto;
  lti?: { tool_id: string };
}

export interface CourseSpec extends Partial<Omit<CreateCourseDto, 'title'>> {
  title: string;
  lessons?: LessonSpec[];
  /** Default true. */
  publish?: boolean;
}

export interface MadeCourse {
  id: string;
  slug: string;
  lessons: {
    id: string;
    quiz: { id: string; questions: { id: string; options: { id: string; correct: boolean }[] }[] } | null;
  }[];
}

/**
 * A course of the shared catalog made through the editor service (fixtures only: the editor API has its own
 * tests), published unless told otherwise. Courses are platform data, so any user can be the author.
 */
export async function makeCourse(t: TestApp, authorId: string, spec: CourseSpec): Promise<MadeCourse> {
  const editor = t.app.get(EditorService);
  const { lessons = [{ title: 'Lesson 1' }], publish = true, ...fields } = spec;
  const created = await editor.create({ language: 'en', level: 'beginner', ...fields }, authorId);
  const made: MadeCourse = { id: created.id, slug: created.slug, lessons: [] };
  for (const lesson of lessons) {
    const l = await editor.createLesson(created.id, lesson);
    made.lessons.push({ id: l.id, quiz: l.quiz });
  }
  if (publish) await editor.publish(created.id, authorId);
  return made;
}

/** A one-question quiz (single choice): pass by choosing the correct option. */
export const ONE_QUESTION_QUIZ: QuizInputDto = {
  passing_score: 100,
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
};

const base = (org: OrgFixture): string => `/api/v1/organizations/${org.id}`;
const course = (org: OrgFixture, key: string): string => `${base(org)}/courses/${org.ids[key]}`;

/** A published public course with two lessons (the second with a quiz), under `org.ids[key]` and `key + 'Lesson'`. */
async function publicCourse(t: TestApp, org: OrgFixture, key: string, enroll: OrgRole[] = []): Promise<void> {
  const made = await makeCourse(t, org.people.owner.user.id, {
    title: `Cross-tenant ${key} ${org.id.slice(0, 8)}`,
    lessons: [{ title: 'Plain lesson' }, { title: 'Quiz lesson', quiz: ONE_QUESTION_QUIZ }],
  });
  org.ids[key] = made.id;
  org.ids[`${key}Lesson`] = made.lessons[0].id;
  org.ids[`${key}QuizLesson`] = made.lessons[1].id;
  org.ids[`${key}Question`] = made.lessons[1].quiz!.questions[0].id;
  org.ids[`${key}Option`] = made.lessons[1].quiz!.questions[0].options.find((o) => o.correct)!.id;
  for (const role of enroll) {
    const res = await org.people[role].agent.post(`${course(org, key)}/enroll`);
    if (res.status !== 201) throw new Error(`enroll setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
}

/** A cohort taught by the organization's teacher, with its student. */
async function taughtCohort(org: OrgFixture, key: string): Promise<void> {
  const cohorts = `${base(org)}/cohorts`;
  const res = await org.people.owner.agent.post(cohorts).send({ name: `Taught ${key}` });
  if (res.status !== 201) throw new Error(`cohort setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  org.ids[key] = res.body.id as string;
  for (const role of ['teacher', 'student'] as const) {
    const added = await org.people.owner.agent
      .post(`${cohorts}/${org.ids[key]}/members`)
      .send({ user_id: org.people[role].user.id, role });
    if (added.status !== 201) throw new Error(`cohort member setup failed: ${added.status}`);
  }
}

export const learningRoutes: ScopedRoute[] = [
  {
    name: 'the course catalog',
    method: 'get',
    path: (o) => `${base(o)}/courses`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => publicCourse(t, o, 'catalogCourse'),
  },
  {
    name: 'a course',
    method: 'get',
    path: (o) => course(o, 'readCourse'),
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => publicCourse(t, o, 'readCourse'),
  },
  {
    name: 'a lesson',
    method: 'get',
    path: (o) => `${course(o, 'lessonCourse')}/lessons/${o.ids.lessonCourseLesson}`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => publicCourse(t, o, 'lessonCourse', ['student']),
  },
  {
    name: 'rate a course',
    method: 'post',
    path: (o) => `${course(o, 'rateCourse')}/ratings`,
    body: () => ({ stars: 4, comment: 'Good' }),
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => publicCourse(t, o, 'rateCourse', ['student']),
  },
  {
    name: 'enroll in a course',
    method: 'post',
    path: (o) => `${course(o, 'enrollCourse')}/enroll`,
    roles: ALL_ROLES,
    ok: 201,
    setup: (t, o) => publicCourse(t, o, 'enrollCourse'),
  },
  {
    name: 'complete a lesson',
    method: 'post',
    path: (o) => `${course(o, 'completeCourse')}/lessons/${o.ids.completeCourseLesson}/complete`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => publicCourse(t, o, 'completeCourse', ['student']),
  },
  {
    name: 'submit a quiz',
    method: 'post',
    path: (o) => `${course(o, 'quizCourse')}/lessons/${o.ids.quizCourseQuizLesson}/quiz/submissions`,
    body: (o) => ({ answers: [{ question_id: o.ids.quizCourseQuestion, option_ids: [o.ids.quizCourseOption] }] }),
    roles: ALL_ROLES,
    ok: 201,
    setup: (t, o) => publicCourse(t, o, 'quizCourse', ['student']),
  },
  { name: 'my progress', method: 'get', path: (o) => `${base(o)}/progress`, roles: ALL_ROLES, ok: 200 },
  { name: 'search the catalog', method: 'get', path: (o) => `${base(o)}/search?q=lesson`, roles: ALL_ROLES, ok: 200 },
  { name: "a teacher's cohorts", method: 'get', path: (o) => `${base(o)}/teacher/cohorts`, roles: STAFF, ok: 200 },
  {
    name: 'progress of a cohort',
    method: 'get',
    path: (o) => `${base(o)}/teacher/cohorts/${o.ids.taughtCohort}/progress`,
    roles: STAFF,
    ok: 200,
    setup: (_t, o) => taughtCohort(o, 'taughtCohort'),
  },
];
