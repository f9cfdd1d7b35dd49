import { randomBytes } from 'node:crypto';
import { stepUpByEmail } from '../support/auth';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { ADMINS, ALL_ROLES, type ScopedRoute, STAFF } from './route';

/*
 * Beyond the contract (extensions-v2 25.2-25.4): outbound webhook endpoints, cohort deadlines, the xAPI export.
 * Webhook deliveries go to the discard port of loopback (nothing listens; an attempt fails and is retried later).
 */
const endpoints = (org: OrgFixture): string => `/api/v1/organizations/${org.id}/webhook-endpoints`;
const deadlines = (org: OrgFixture): string => `/api/v1/organizations/${org.id}/cohorts/${org.ids.ctCohort}/deadlines`;
const HOOK_URL = 'http://127.0.0.1:9/cross-tenant';
const future = (): string => new Date(Date.now() + 30 * 24 * 3_600_000).toISOString();

/** The writes need a recent step-up: the allowed role (admin) confirms once per organization. */
async function stepUp(t: TestApp, org: OrgFixture): Promise<void> {
  if (org.ids.webhookStepUp) return;
  await stepUpByEmail(t, org.people.admin);
  org.ids.webhookStepUp = 'done';
}

/** An endpoint of this organization of its own (a DELETE never removes another row's), with one delivery. */
async function endpoint(t: TestApp, org: OrgFixture, key: string): Promise<void> {
  await stepUp(t, org);
  const res = await org.people.admin.agent.post(endpoints(org)).send({ url: HOOK_URL, events: ['member.joined'] });
  if (res.status !== 201) throw new Error(`endpoint setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  org.ids[key] = res.body.id as string;
  const [delivery] = await t.db.query<{ id: string }[]>(
    `INSERT INTO webhook_deliveries (organization_id, endpoint_id, event_id, event_type, occurred_at, data, status,
       attempts, created_at)
     VALUES ($1, $2, gen_random_uuid(), 'webhook.test', now(), '{}', 'failed', 8, now()) RETURNING id`,
    [org.id, res.body.id],
  );
  org.ids[`${key}Delivery`] = delivery.id;
}

/** A cohort with the organization's teacher and student, and a published course of the catalog. */
async function cohort(t: TestApp, org: OrgFixture): Promise<void> {
  if (org.ids.ctCohort) return;
  const res = await org.people.owner.agent.post(`/api/v1/organizations/${org.id}/cohorts`).send({ name: 'Deadlines' });
  if (res.status !== 201) throw new Error(`cohort setup failed: ${res.status}`);
  org.ids.ctCohort = res.body.id as string;
  for (const role of ['teacher', 'student'] as const) {
    const added = await org.people.owner.agent
      .post(`/api/v1/organizations/${org.id}/cohorts/${org.ids.ctCohort}/members`)
      .send({ user_id: org.people[role].user.id, role });
    if (added.status >= 300) throw new Error(`cohort member setup failed: ${added.status}`);
  }
  const [course] = await t.db.query<{ id: string }[]>(
    `INSERT INTO courses (slug, title, language, level, status, visibility, published_at)
     VALUES ($1, 'Deadline course', 'es', 'beginner', 'published', 'public', now()) RETURNING id`,
    [`ct-${randomBytes(5).toString('hex')}`],
  );
  org.ids.ctCourse = course.id;
}

/** A deadline of its own (a course of its own each: one deadline per cohort and course). */
async function deadline(t: TestApp, org: OrgFixture, key: string): Promise<void> {
  await cohort(t, org);
  const [course] = await t.db.query<{ id: string }[]>(
    `INSERT INTO courses (slug, title, language, level, status, visibility, published_at)
     VALUES ($1, 'Deadline course', 'es', 'beginner', 'published', 'public', now()) RETURNING id`,
    [`ct-${randomBytes(5).toString('hex')}`],
  );
  const res = await org.people.owner.agent.post(deadlines(org)).send({ course_id: course.id, due_at: future() });
  if (res.status !== 201) throw new Error(`deadline setup failed: ${res.status} ${JSON.stringify(res.body)}`);
  org.ids[key] = res.body.id as string;
}

export const integrationRoutes: ScopedRoute[] = [
  { name: 'list webhook endpoints', method: 'get', path: endpoints, roles: ADMINS, ok: 200 },
  {
    name: 'create a webhook endpoint',
    method: 'post',
    path: endpoints,
    body: () => ({ url: HOOK_URL, events: ['member.left'] }),
    roles: ADMINS,
    ok: 201,
    setup: stepUp,
  },
  {
    name: 'get a webhook endpoint',
    method: 'get',
    path: (o) => `${endpoints(o)}/${o.ids.hookGet}`,
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => endpoint(t, o, 'hookGet'),
  },
  {
    name: 'update a webhook endpoint',
    method: 'patch',
    path: (o) => `${endpoints(o)}/${o.ids.hookPatch}`,
    body: () => ({ description: 'changed' }),
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => endpoint(t, o, 'hookPatch'),
  },
  {
    name: 'delete a webhook endpoint',
    method: 'delete',
    path: (o) => `${endpoints(o)}/${o.ids.hookDelete}`,
    roles: ADMINS,
    ok: 204,
    setup: (t, o) => endpoint(t, o, 'hookDelete'),
  },
  {
    name: 'rotate a webhook secret',
    method: 'post',
    path: (o) => `${endpoints(o)}/${o.ids.hookRotate}/rotate-secret`,
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => endpoint(t, o, 'hookRotate'),
  },
  {
    name: 'send a test webhook',
    method: 'post',
    path: (o) => `${endpoints(o)}/${o.ids.hookTest}/test`,
    roles: ADMINS,
    ok: 202,
    setup: (t, o) => endpoint(t, o, 'hookTest'),
  },
  {
    name: 'list webhook deliveries',
    method: 'get',
    path: (o) => `${endpoints(o)}/${o.ids.hookLog}/deliveries`,
    roles: ADMINS,
    ok: 200,
    setup: (t, o) => endpoint(t, o, 'hookLog'),
  },
  {
    name: 'redeliver a webhook',
    method: 'post',
    path: (o) => `${endpoints(o)}/${o.ids.hookRedeliver}/deliveries/${o.ids.hookRedeliverDelivery}/redeliver`,
    roles: ADMINS,
    ok: 202,
    setup: (t, o) => endpoint(t, o, 'hookRedeliver'),
  },
  {
    name: 'list a cohort’s deadlines',
    method: 'get',
    path: deadlines,
    roles: ALL_ROLES,
    ok: 200,
    setup: cohort,
  },
  {
    name: 'create a cohort deadline',
    method: 'post',
    path: deadlines,
    body: (o) => ({ course_id: o.ids.ctCourse, due_at: future() }),
    roles: STAFF,
    ok: 201,
    setup: cohort,
  },
  {
    name: 'update a cohort deadline',
    method: 'patch',
    path: (o) => `${deadlines(o)}/${o.ids.deadlinePatch}`,
    body: () => ({ title: 'Moved' }),
    roles: STAFF,
    ok: 200,
    setup: (t, o) => deadline(t, o, 'deadlinePatch'),
  },
  {
    name: 'delete a cohort deadline',
    method: 'delete',
    path: (o) => `${deadlines(o)}/${o.ids.deadlineDelete}`,
    roles: STAFF,
    ok: 204,
    setup: (t, o) => deadline(t, o, 'deadlineDelete'),
  },
  {
    name: 'my deadlines in the organization',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/deadlines`,
    roles: ALL_ROLES,
    ok: 200,
  },
  {
    name: 'xAPI statements',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/xapi/statements`,
    roles: ADMINS,
    ok: 200,
  },
];
