import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { makeCourse } from './learning.routes';
import { ADMINS, ALL_ROLES, type ScopedRoute } from './route';

const base = (org: OrgFixture): string => `/api/v1/organizations/${org.id}`;
const conversations = (org: OrgFixture): string => `${base(org)}/tutor/conversations`;

/** A course the organization's student is enrolled in, under `org.ids.tutorCourse`. */
async function enrolledCourse(t: TestApp, org: OrgFixture): Promise<void> {
  if (org.ids.tutorCourse) return;
  const made = await makeCourse(t, org.people.owner.user.id, {
    title: `Tutor course ${org.id.slice(0, 8)}`,
    lessons: [{ title: 'Lists', content_md: 'A list keeps values in order. You append an item to a list.' }],
  });
  org.ids.tutorCourse = made.id;
  const res = await org.people.student.agent.post(`${base(org)}/courses/${made.id}/enroll`);
  if (res.status !== 201) throw new Error(`enroll setup failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A conversation of the student, under `org.ids[key]`. */
async function conversation(t: TestApp, org: OrgFixture, key: string): Promise<void> {
  await enrolledCourse(t, org);
  const res = await org.people.student.agent.post(conversations(org)).send({ course_id: org.ids.tutorCourse });
  if (res.status !== 201) throw new Error(`conversation setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  org.ids[key] = res.body.id as string;
}

export const tutorRoutes: ScopedRoute[] = [
  {
    name: 'start a tutor conversation',
    method: 'post',
    path: conversations,
    body: (o) => ({ course_id: o.ids.tutorCourse }),
    roles: ALL_ROLES,
    ok: 201,
    setup: enrolledCourse,
  },
  { name: 'my tutor conversations', method: 'get', path: conversations, roles: ALL_ROLES, ok: 200 },
  {
    name: 'a tutor conversation',
    method: 'get',
    path: (o) => `${conversations(o)}/${o.ids.readConversation}`,
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => conversation(t, o, 'readConversation'),
  },
  {
    name: 'ask the tutor',
    method: 'post',
    path: (o) => `${conversations(o)}/${o.ids.askConversation}/messages`,
    body: () => ({ content: 'What is a list?' }),
    roles: ALL_ROLES,
    ok: 200,
    setup: (t, o) => conversation(t, o, 'askConversation'),
  },
  {
    name: 'delete a tutor conversation',
    method: 'delete',
    path: (o) => `${conversations(o)}/${o.ids.deleteConversation}`,
    roles: ALL_ROLES,
    ok: 204,
    setup: (t, o) => conversation(t, o, 'deleteConversation'),
  },
  { name: "the organization's AI usage", method: 'get', path: (o) => `${base(o)}/ai-usage`, roles: ADMINS, ok: 200 },
  { name: 'the AI settings', method: 'get', path: (o) => `${base(o)}/ai-settings`, roles: ADMINS, ok: 200 },
  {
    name: 'change the AI settings',
    method: 'put',
    path: (o) => `${base(o)}/ai-settings`,
    body: () => ({ tutor_enabled: true }),
    roles: ADMINS,
    ok: 200,
  },
];
