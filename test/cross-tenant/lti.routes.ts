import { LtiToolsService } from '@/modules/integrations/lti';
import { stepUpByEmail } from '../support/auth';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { makeCourse } from './learning.routes';
import { ADMINS, ALL_ROLES, type ScopedRoute } from './route';

/** One platform tool (no request reaches it: the launch only redirects), and per organization a course using it. */
let toolId: Promise<string> | undefined;
function tool(t: TestApp, ownerId: string): Promise<string> {
  toolId ??= t.app
    .get(LtiToolsService)
    .create(
      {
        name: 'Cross-tenant tool',
        initiate_login_url: 'http://127.0.0.1:9/login',
        redirect_uris: ['http://127.0.0.1:9/'],
        target_link_uri: 'http://127.0.0.1:9/',
        jwks_url: 'http://127.0.0.1:9/keys',
      },
      { userId: ownerId },
    )
    .then((created) => created.id);
  return toolId;
}

async function ltiCourse(t: TestApp, org: OrgFixture): Promise<void> {
  if (org.ids.ltiCourse) return;
  const id = await tool(t, org.people.owner.user.id);
  const made = await makeCourse(t, org.people.owner.user.id, {
    title: `Cross-tenant LTI ${org.id.slice(0, 8)}`,
    lessons: [{ title: 'Lab', lti: { tool_id: id } }],
  });
  org.ids.ltiTool = id;
  org.ids.ltiCourse = made.id;
  org.ids.ltiLesson = made.lessons[0].id;
  const res = await org.people.student.agent.post(`/api/v1/organizations/${org.id}/courses/${made.id}/enroll`);
  if (res.status !== 201) throw new Error(`enroll setup failed: ${res.status}`);
}

export const ltiRoutes: ScopedRoute[] = [
  {
    name: 'list LTI deployments',
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/lti/deployments`,
    roles: ADMINS,
    ok: 200,
    setup: ltiCourse,
  },
  {
    name: 'change an LTI deployment',
    method: 'put',
    path: (o) => `/api/v1/organizations/${o.id}/lti/deployments/${o.ids.ltiTool}`,
    body: () => ({ privacy: { send_name: true } }),
    roles: ADMINS,
    ok: 200,
    setup: async (t, o) => {
      await ltiCourse(t, o);
      if (o.ids.ltiStepUp) return;
      await stepUpByEmail(t, o.people.admin);
      o.ids.ltiStepUp = 'done';
    },
  },
  {
    name: "launch a lesson's LTI tool",
    method: 'get',
    path: (o) => `/api/v1/organizations/${o.id}/courses/${o.ids.ltiCourse}/lessons/${o.ids.ltiLesson}/lti/launch`,
    roles: ALL_ROLES,
    ok: 302,
    setup: ltiCourse,
  },
];
