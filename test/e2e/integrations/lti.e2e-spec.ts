import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { signIn, type SignedIn, stepUpByEmail } from '../../support/auth';
import { RateLimitService } from '@/core/rate-limit/rate-limit.service';
import { LtiKeysService } from '@/modules/integrations/lti';
import { LTI_TOKEN_TOOL, ltiServiceBudget, LtiMaintenance } from '@/modules/integrations/lti/testing';
import { CookieJar, type LtiTool, parseFormPost, startLtiTool } from '../../support/lti-tool';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { settle } from '../../support/engagement';
import { waitUntil } from '../../support/wait';
import { createTestApp, type TestApp } from '../../support/test-app';

const AGS = 'https://purl.imsglobal.org/spec/lti-ags/scope/';
const ALL_SCOPES = [
  `${AGS}lineitem`,
  `${AGS}lineitem.readonly`,
  `${AGS}result.readonly`,
  `${AGS}score`,
  'https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly',
];
const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';

describe('LTI 1.3 platform', () => {
  let t: TestApp;
  let tool: LtiTool;
  let admin: SignedIn;
  let owner: SignedIn;
  let learner: SignedIn;
  let orgA: string;
  let toolId: string;
  let clientId: string;
  let courseId: string;
  let lessonId: string;

  /** A browser: the platform's cookies live in `who.agent`, the tool's in a jar of its own. */
  async function launch(
    who: SignedIn,
    path = `/api/v1/organizations/${orgA}/courses/${courseId}/lessons/${lessonId}/lti/launch`,
  ): Promise<{ status: number; body: Record<string, unknown>; idToken: string; authorizeHtml: string }> {
    const jar = new CookieJar();
    const start = await who.agent.get(path);
    expect(start.status).toBe(302);
    const login = await fetch(start.headers.location, { redirect: 'manual' });
    jar.store(login.headers);
    expect(login.status).toBe(302);
    const authorize = new URL(login.headers.get('location') as string);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${t.baseUrl}/api/v1/lti/authorize`);
    const page = await who.agent.get(`${authorize.pathname}${authorize.search}`);
    expect(page.status).toBe(200);
    const form = parseFormPost(page.text);
    const post = await fetch(form.action, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
      body: new URLSearchParams(form.fields),
    });
    jar.store(post.headers);
    let res = post;
    while (res.status === 302) {
      res = await fetch(new URL(res.headers.get('location') as string, tool.url), {
        redirect: 'manual',
        headers: { cookie: jar.header() },
      });
      jar.store(res.headers);
    }
    const text = await res.text();
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { text };
    }
    return { status: res.status, body, idToken: form.fields.id_token ?? '', authorizeHtml: page.text };
  }

  /** Steps 1 and 2 only: the platform's 302 and the tool's redirect back, as the URL of our authorize endpoint. */
  async function authorizeUrl(who: SignedIn): Promise<URL> {
    const start = await who.agent
      .get(`/api/v1/organizations/${orgA}/courses/${courseId}/lessons/${lessonId}/lti/launch`)
      .expect(302);
    const login = await fetch(start.headers.location, { redirect: 'manual' });
    return new URL(login.headers.get('location') as string);
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'lti-admin@platform.test' } });
    tool = await startLtiTool(t.dbName);
    admin = await signIn(t, 'lti-admin@platform.test');
    await stepUpByEmail(t, admin);
    owner = await adult(t);
    orgA = await createOrganization(t, owner, 'LTI Org A');
    learner = await adult(t);
    await addMember(t, orgA, learner.user.id, 'student');

    const created = await admin.agent
      .post('/api/v1/admin/lti/tools')
      .send({
        name: 'Lab simulator',
        initiate_login_url: `${tool.url}/login`,
        redirect_uris: [`${tool.url}/`],
        target_link_uri: `${tool.url}/`,
        deep_linking_url: `${tool.url}/`,
        jwks_url: `${tool.url}/keys`,
        scopes: ALL_SCOPES,
        custom: { who: '$User.id', ctx: '$Context.id', name: '$Person.name.full', other: '$Unknown.var' },
      })
      .expect(201);
    toolId = created.body.id;
    clientId = created.body.client_id;
    await tool.provider.registerPlatform({
      url: created.body.platform.issuer,
      name: 'Learning Platform',
      clientId,
      authenticationEndpoint: created.body.platform.authorization_endpoint,
      accesstokenEndpoint: created.body.platform.token_endpoint,
      authConfig: { method: 'JWK_SET', key: created.body.platform.jwks_uri },
    });

    const course = await admin.agent
      .post('/api/v1/editor/courses')
      .send({ title: `LTI course ${t.suffix}`, language: 'en', level: 'beginner' })
      .expect(201);
    courseId = course.body.id;
    const lesson = await admin.agent
      .post(`/api/v1/editor/courses/${courseId}/lessons`)
      .send({
        title: 'Simulated lab',
        lti: { tool_id: toolId, custom: { lab: 'ohm' }, line_item: { score_maximum: 10 } },
      })
      .expect(201);
    lessonId = lesson.body.id;
    await admin.agent.post(`/api/v1/editor/courses/${courseId}/publish`).expect(200);
    await learner.agent.post(`/api/v1/organizations/${orgA}/courses/${courseId}/enroll`).expect((r) => {
      if (r.status !== 200 && r.status !== 201) throw new Error(`enroll ${r.status}`);
    });
  });

  afterAll(async () => {
    await tool?.close();
    await t?.close();
  });

  describe('platform keys', () => {
    it('publishes an RS256 JWKS with kid and Cache-Control max-age=300, the private key sealed at rest', async () => {
      const res = await t.client().get('/api/v1/lti/jwks').expect(200);
      expect(res.headers['cache-control']).toContain('max-age=300');
      expect(res.body.keys.length).toBeGreaterThanOrEqual(1);
      const [key] = res.body.keys;
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', e: 'AQAB' });
      expect(typeof key.kid).toBe('string');
      expect(Buffer.from(key.n, 'base64url').length).toBe(256);
      expect(key.d).toBeUndefined();
      const [row] = await t.db.query(`SELECT private_key_sealed FROM lti_platform_keys WHERE kid = $1`, [key.kid]);
      expect(row.private_key_sealed).toMatch(/^v1\./);
      expect(row.private_key_sealed).not.toContain('PRIVATE KEY');
    });
  });

  describe('tools', () => {
    it('answers the tool with its platform block to copy', async () => {
      const res = await admin.agent.get(`/api/v1/admin/lti/tools/${toolId}`).expect(200);
      expect(res.body).toMatchObject({
        id: toolId,
        name: 'Lab simulator',
        enabled: true,
        registered_by: 'manual',
        created_by: { user_id: admin.user.id },
        platform: {
          issuer: t.baseUrl,
          client_id: clientId,
          authorization_endpoint: `${t.baseUrl}/api/v1/lti/authorize`,
          token_endpoint: `${t.baseUrl}/api/v1/lti/token`,
          jwks_uri: `${t.baseUrl}/api/v1/lti/jwks`,
        },
      });
      const [audit] = await t.db.query(
        `SELECT actor_id FROM audit_log WHERE action = 'lti_tool.created' AND target_id = $1`,
        [toolId],
      );
      expect(audit.actor_id).toBe(admin.user.id);
    });

    it('refuses private addresses, both key sources and bad custom keys (422)', async () => {
      const res = await admin.agent
        .post('/api/v1/admin/lti/tools')
        .send({
          name: 'Bad',
          initiate_login_url: 'https://10.0.0.1/login',
          redirect_uris: ['http://example.com/'],
          target_link_uri: `${tool.url}/`,
          jwks_url: `${tool.url}/keys`,
          public_jwk: { kty: 'RSA', n: 'x', e: 'AQAB' },
          custom: { 'Bad-Key': 'x' },
        })
        .expect(422);
      const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
      expect(fields).toEqual(['custom.Bad-Key', 'initiate_login_url', 'jwks_url', 'redirect_uris[0]']);
    });

    it('editors get id, name and enabled only; others 403', async () => {
      const list = await admin.agent.get('/api/v1/admin/lti/tools').expect(200);
      expect(list.body.items.find((i: { id: string }) => i.id === toolId).client_id).toBe(clientId);
      await owner.agent.get('/api/v1/admin/lti/tools').expect(403);
      await owner.agent.get(`/api/v1/admin/lti/tools/${toolId}`).expect(403);
    });
  });

  describe('lessons and deployments', () => {
    it('the editor reads the lesson’s lti; the learner reads tool_name, launch_url and available', async () => {
      const ed = await admin.agent.get(`/api/v1/editor/courses/${courseId}`).expect(200);
      expect(ed.body.lessons[0].lti).toEqual({
        tool_id: toolId,
        url: null,
        custom: { lab: 'ohm' },
        line_item: { score_maximum: 10 },
      });
      const res = await learner.agent
        .get(`/api/v1/organizations/${orgA}/courses/${courseId}/lessons/${lessonId}`)
        .expect(200);
      expect(res.body.lti).toEqual({
        tool_name: 'Lab simulator',
        launch_url: `${t.baseUrl}/api/v1/organizations/${orgA}/courses/${courseId}/lessons/${lessonId}/lti/launch`,
        available: true,
      });
    });

    it('422 for an unknown tool on a lesson', async () => {
      await admin.agent
        .post(`/api/v1/editor/courses/${courseId}/lessons`)
        .send({ title: 'x', lti: { tool_id: '00000000-0000-4000-8000-000000000000' } })
        .expect(422);
    });

    it('lists the organization’s deployment (enabled, names and emails withheld) to owners only', async () => {
      const res = await owner.agent.get(`/api/v1/organizations/${orgA}/lti/deployments`).expect(200);
      expect(res.body.items).toEqual([
        {
          tool_id: toolId,
          tool_name: 'Lab simulator',
          deployment_id: expect.any(String),
          enabled: true,
          privacy: { send_name: false, send_email: false },
          courses: [{ course_id: courseId, title: `LTI course ${t.suffix}` }],
          updated_at: expect.any(String),
        },
      ]);
      await learner.agent.get(`/api/v1/organizations/${orgA}/lti/deployments`).expect(403);
      await admin.agent.get(`/api/v1/organizations/${orgA}/lti/deployments`).expect(404);
    });
  });

  describe('launch', () => {
    it('ltijs accepts the launch: signature by our JWKS, nonce, audience, deployment, claims', async () => {
      const before = tool.launches.length;
      const res = await launch(learner);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ launched: true, sub: learner.user.id });
      expect(tool.launches.length).toBe(before + 1);
      const header = decodeProtectedHeader(res.idToken);
      expect(header).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
      const claims = decodeJwt(res.idToken);
      expect(claims).toMatchObject({ iss: t.baseUrl, aud: clientId, azp: clientId, sub: learner.user.id });
      expect((claims.exp as number) - (claims.iat as number)).toBe(300);
      expect(claims[`${CLAIM}message_type`]).toBe('LtiResourceLinkRequest');
      expect(claims[`${CLAIM}version`]).toBe('1.3.0');
      expect(claims[`${CLAIM}roles`]).toEqual(['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner']);
      expect(claims[`${CLAIM}resource_link`]).toEqual({ id: lessonId, title: 'Simulated lab' });
      const context = claims[`${CLAIM}context`] as { id: string };
      expect(claims[`${CLAIM}custom`]).toEqual({
        lab: 'ohm',
        who: learner.user.id,
        ctx: context.id,
        name: '$Person.name.full',
        other: '$Unknown.var',
      });
      expect(claims.name).toBeUndefined();
      expect(claims.email).toBeUndefined();
      const ags = claims['https://purl.imsglobal.org/spec/lti-ags/claim/endpoint'] as Record<string, unknown>;
      expect(ags.lineitems).toBe(`${t.baseUrl}/api/v1/lti/contexts/${context.id}/lineitems`);
      expect(ags.lineitem).toMatch(new RegExp(`^${t.baseUrl}/api/v1/lti/contexts/${context.id}/lineitems/`));
      const nrps = claims['https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice'] as Record<string, unknown>;
      expect(nrps).toEqual({
        context_memberships_url: `${t.baseUrl}/api/v1/lti/contexts/${context.id}/memberships`,
        service_versions: ['2.0'],
      });
      const [launchRow] = await t.db.query(
        `SELECT tool_id, organization_id, lesson_id, message_type FROM lti_launches WHERE user_id = $1 ORDER BY at DESC LIMIT 1`,
        [learner.user.id],
      );
      expect(launchRow).toEqual({
        tool_id: toolId,
        organization_id: orgA,
        lesson_id: lessonId,
        message_type: 'LtiResourceLinkRequest',
      });
      const stats = await owner.agent.get(`/api/v1/organizations/${orgA}/stats`).expect(200);
      expect(stats.body.lti).toEqual({ launches_total: 1, launches_in_period: 1 });
    });
  });

  describe('assignment and grade services (ltijs with its own service token)', () => {
    it('a FullyGraded Completed score completes the lesson once, with the effects of POST .../complete', async () => {
      await launch(learner);
      const token = tool.launches[tool.launches.length - 1];
      const lineItem = (token.platformContext.endpoint as { lineitem: string }).lineitem;
      const score = (ts: string, given: number) =>
        tool.provider.Grade.submitScore(token, lineItem, {
          userId: learner.user.id,
          scoreGiven: given,
          scoreMaximum: 10,
          activityProgress: 'Completed',
          gradingProgress: 'FullyGraded',
          timestamp: ts,
        });
      await score(new Date(Date.now() - 2000).toISOString(), 8);
      await score(new Date(Date.now() - 1000).toISOString(), 3);
      const completions = await t.db.query(
        `SELECT 1 FROM lesson_completions WHERE organization_id = $1 AND user_id = $2 AND lesson_id = $3`,
        [orgA, learner.user.id, lessonId],
      );
      expect(completions).toHaveLength(1);
      const events = await t.db.query(
        `SELECT 1 FROM domain_events WHERE name = 'lesson.completed' AND payload->>'lesson_id' = $1`,
        [lessonId],
      );
      expect(events).toHaveLength(1);
      const enrollment = await t.db.query(
        `SELECT status FROM enrollments WHERE organization_id = $1 AND user_id = $2 AND course_id = $3`,
        [orgA, learner.user.id, courseId],
      );
      expect(enrollment[0].status).toBe('completed');
      const [result] = await t.db.query(`SELECT score_given FROM lti_results WHERE user_id = $1`, [learner.user.id]);
      expect(Number(result.score_given)).toBe(3);
    });

    it('a score whose timestamp is not newer than the stored one is ignored (204, nothing changes)', async () => {
      const token = tool.launches[tool.launches.length - 1];
      const lineItem = (token.platformContext.endpoint as { lineitem: string }).lineitem;
      const stored = async () =>
        (
          await t.db.query(
            `SELECT score_given, comment, timestamp, updated_at FROM lti_results r
             JOIN lti_line_items li ON li.id = r.line_item_id WHERE li.lesson_id = $1 AND r.user_id = $2`,
            [lessonId, learner.user.id],
          )
        )[0] as { score_given: string; comment: string | null; timestamp: Date; updated_at: Date };
      const before = await stored();
      expect(Number(before.score_given)).toBe(3);
      // ltijs stamps every score with its own clock, so these go out with its service token but by hand.
      const platform = await tool.provider.getPlatform(t.baseUrl, clientId);
      const { access_token: accessToken } = await platform.platformAccessToken(`${AGS}score`);
      const score = (timestamp: Date, given: number) =>
        t
          .client()
          .post(`${new URL(lineItem).pathname}/scores`)
          .set('Authorization', `Bearer ${accessToken}`)
          .set('Content-Type', 'application/vnd.ims.lis.v1.score+json')
          .send(
            JSON.stringify({
              userId: learner.user.id,
              scoreGiven: given,
              scoreMaximum: 10,
              comment: `at ${timestamp.toISOString()}`,
              activityProgress: 'Completed',
              gradingProgress: 'FullyGraded',
              timestamp: timestamp.toISOString(),
            }),
          )
          .expect(204);
      // Older, then the same instant: both answered 204, neither stored.
      await score(new Date(before.timestamp.getTime() - 60_000), 10);
      await score(before.timestamp, 9);
      expect(await stored()).toEqual(before);
    });

    it('concurrent first scores complete the lesson and the course once, and its XP, badge and notification once', async () => {
      const token = tool.launches[tool.launches.length - 1];
      const lineItem = (token.platformContext.endpoint as { lineitem: string }).lineitem;
      const other = await adult(t);
      await addMember(t, orgA, other.user.id, 'student');
      await other.agent.post(`/api/v1/organizations/${orgA}/courses/${courseId}/enroll`).expect(201);
      const platform = await tool.provider.getPlatform(t.baseUrl, clientId);
      const { access_token: accessToken } = await platform.platformAccessToken(`${AGS}score`);
      const at = Date.now() - 60_000;
      await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          t
            .client()
            .post(`${new URL(lineItem).pathname}/scores`)
            .set('Authorization', `Bearer ${accessToken}`)
            .set('Content-Type', 'application/vnd.ims.lis.v1.score+json')
            .send(
              JSON.stringify({
                userId: other.user.id,
                scoreGiven: 1 + i,
                scoreMaximum: 10,
                activityProgress: 'Completed',
                gradingProgress: 'FullyGraded',
                timestamp: new Date(at + i * 1000).toISOString(),
              }),
            )
            .expect(204),
        ),
      );
      const count = async (sql: string, params: unknown[]) => (await t.db.query<{ n: number }[]>(sql, params))[0].n;
      const byUser = `SELECT count(*)::int AS n FROM domain_events WHERE name = $1 AND payload->>'user_id' = $2`;
      expect(
        await count(`SELECT count(*)::int AS n FROM lesson_completions WHERE user_id = $1 AND lesson_id = $2`, [
          other.user.id,
          lessonId,
        ]),
      ).toBe(1);
      expect(await count(byUser, ['lesson.completed', other.user.id])).toBe(1);
      expect(await count(byUser, ['course.completed', other.user.id])).toBe(1);
      const [enrollment] = await t.db.query(
        `SELECT status FROM enrollments WHERE organization_id = $1 AND user_id = $2 AND course_id = $3`,
        [orgA, other.user.id, courseId],
      );
      expect(enrollment.status).toBe('completed');
      const [result] = await t.db.query(`SELECT score_given FROM lti_results WHERE user_id = $1`, [other.user.id]);
      expect(Number(result.score_given)).toBe(6);

      // The background effects, as after POST .../complete: XP for the lesson and the course, the first-lesson
      // badge and its notification, each once.
      await settle(t);
      const ledger = await t.db.query(
        `SELECT source, source_id, amount FROM xp_ledger WHERE organization_id = $1 AND user_id = $2 ORDER BY source`,
        [orgA, other.user.id],
      );
      expect(ledger).toEqual([
        { source: 'course', source_id: courseId, amount: 100 },
        { source: 'lesson', source_id: lessonId, amount: 10 },
      ]);
      expect(
        await count(`SELECT count(*)::int AS n FROM badge_awards WHERE user_id = $1 AND code = 'first_lesson'`, [
          other.user.id,
        ]),
      ).toBe(1);
      expect(await count(byUser, ['badge.awarded', other.user.id])).toBeGreaterThanOrEqual(1);
      expect(
        await count(`SELECT count(*)::int AS n FROM notifications WHERE user_id = $1 AND category = 'badge_earned'`, [
          other.user.id,
        ]),
      ).toBe(await count(byUser, ['badge.awarded', other.user.id]));
      // The learner leaves again: the roster the later tests read is the one they set up.
      await other.agent.delete(`/api/v1/organizations/${orgA}/members/${other.user.id}`).expect(204);
    });

    it('the lesson’s score shows in the learner’s progress and the teacher’s student view, in its organization only', async () => {
      const expected = [
        { lesson_id: lessonId, lesson_title: 'Simulated lab', score: 30, updated_at: expect.any(String) },
      ];
      const mine = await learner.agent.get(`/api/v1/organizations/${orgA}/progress`).expect(200);
      const item = mine.body.items.find((i: { course_id: string }) => i.course_id === courseId);
      expect(item.lesson_scores).toEqual(expected);

      const cohorts = `/api/v1/organizations/${orgA}/cohorts`;
      const cohort = (await owner.agent.post(cohorts).send({ name: 'LTI cohort' }).expect(201)).body.id as string;
      await owner.agent
        .post(`${cohorts}/${cohort}/members`)
        .send({ user_id: learner.user.id, role: 'student' })
        .expect(201);
      const detail = await owner.agent
        .get(`/api/v1/organizations/${orgA}/teacher/cohorts/${cohort}/students/${learner.user.id}`)
        .expect(200);
      const course = detail.body.courses.find((c: { course_id: string }) => c.course_id === courseId);
      expect(course.lesson_scores).toEqual(expected);

      // The same learner and course in another organization: no score there.
      const ownerC = await adult(t);
      const orgC = await createOrganization(t, ownerC, 'LTI Org C');
      await addMember(t, orgC, learner.user.id, 'student');
      await learner.agent.post(`/api/v1/organizations/${orgC}/courses/${courseId}/enroll`).expect(201);
      const inC = await learner.agent.get(`/api/v1/organizations/${orgC}/progress`).expect(200);
      expect(inC.body.items.find((i: { course_id: string }) => i.course_id === courseId).lesson_scores).toEqual([]);
    });

    it('the lti_results report lists the result (owner)', async () => {
      const requested = await owner.agent
        .post(`/api/v1/organizations/${orgA}/reports`)
        .send({ type: 'lti_results', format: 'csv' })
        .expect(202);
      await waitUntil(
        async () => {
          const res = await owner.agent.get(`/api/v1/organizations/${orgA}/reports/${requested.body.id}`).expect(200);
          return res.body.status === 'completed' ? true : null;
        },
        { what: 'lti_results report' },
      );
      const file = await owner.agent
        .get(`/api/v1/organizations/${orgA}/reports/${requested.body.id}/download`)
        .buffer(true)
        .parse((res, done) => {
          let data = '';
          res.on('data', (c: Buffer) => (data += c.toString('utf8')));
          res.on('end', () => done(null, data));
        })
        .expect(200);
      const lines = (file.body as string).split('\r\n');
      expect(lines[0]).toBe(
        '\uFEFFuser_id,email,course_id,lesson_id,line_item_label,score,score_maximum,activity_progress,grading_progress,updated_at',
      );
      expect(lines[1]).toContain(
        `${learner.user.id},${learner.email},${courseId},${lessonId},Simulated lab,3,10,Completed,FullyGraded,`,
      );
    });

    it('reads line items and results in the standard media types', async () => {
      const token = tool.launches[tool.launches.length - 1];
      const items = await tool.provider.Grade.getLineItems(token);
      expect(items.lineItems.length).toBeGreaterThanOrEqual(1);
    });
  });

  describe('names and roles (ltijs reads every page)', () => {
    it('returns the learner and the staff, paged by Link rel=next', async () => {
      const token = tool.launches[tool.launches.length - 1];
      const all = await tool.provider.NamesAndRoles.getMembers(token, { limit: 1, pages: false });
      const ids = all.members.map((m) => m.user_id as string);
      expect(ids).toEqual([...ids].sort());
      expect(ids).toEqual(expect.arrayContaining([learner.user.id, owner.user.id]));
      const me = all.members.find((m) => m.user_id === learner.user.id);
      expect(me).toEqual({
        user_id: learner.user.id,
        roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
        status: 'Active',
      });
      const learners = await tool.provider.NamesAndRoles.getMembers(token, { role: 'Learner', pages: false });
      expect(learners.members.map((m) => m.user_id)).toEqual([learner.user.id]);
    });
  });

  describe('suspended members and minors', () => {
    it('NRPS reports a suspended member as Inactive, with the role filter and paging unchanged', async () => {
      const token = tool.launches[tool.launches.length - 1];
      const before = await tool.provider.NamesAndRoles.getMembers(token, { limit: 1, pages: false });
      await t.db.query(`UPDATE memberships SET suspended_at = now() WHERE organization_id = $1 AND user_id = $2`, [
        orgA,
        learner.user.id,
      ]);
      try {
        const all = await tool.provider.NamesAndRoles.getMembers(token, { limit: 1, pages: false });
        const ids = all.members.map((m) => m.user_id as string);
        expect(ids).toEqual(before.members.map((m) => m.user_id));
        expect(ids).toEqual([...ids].sort());
        expect(all.members.find((m) => m.user_id === learner.user.id)?.status).toBe('Inactive');
        expect(all.members.find((m) => m.user_id === owner.user.id)?.status).toBe('Active');
        const learners = await tool.provider.NamesAndRoles.getMembers(token, { role: 'Learner', pages: false });
        expect(learners.members).toEqual([
          {
            user_id: learner.user.id,
            roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Learner'],
            status: 'Inactive',
          },
        ]);
        const staff = await tool.provider.NamesAndRoles.getMembers(token, { role: 'Administrator', pages: false });
        expect(staff.members.map((m) => [m.user_id, m.status])).toEqual([[owner.user.id, 'Active']]);
      } finally {
        await t.db.query(`UPDATE memberships SET suspended_at = NULL WHERE organization_id = $1 AND user_id = $2`, [
          orgA,
          learner.user.id,
        ]);
      }
    });

    it('a minor’s email is never sent, in the launch or the roster, even when the deployment sends emails', async () => {
      const minor = await adult(t);
      await addMember(t, orgA, minor.user.id, 'student');
      await minor.agent.post(`/api/v1/organizations/${orgA}/courses/${courseId}/enroll`).expect(201);
      await t.db.query(`UPDATE users SET age_bracket = 'under_18' WHERE id = $1`, [minor.user.id]);
      await t.db.query(
        `INSERT INTO guardian_consents (user_id, guardian_email, status, token_hash, expires_at, requested_at, decided_at)
         VALUES ($1, 'guardian@example.test', 'granted', $2, now() + interval '1 day', now(), now())`,
        [minor.user.id, `lti-${t.suffix}`],
      );
      await stepUpByEmail(t, owner);
      await owner.agent
        .put(`/api/v1/organizations/${orgA}/lti/deployments/${toolId}`)
        .send({ privacy: { send_name: true, send_email: true } })
        .expect(200);
      try {
        const launched = await launch(minor);
        expect(launched.status).toBe(200);
        const claims = decodeJwt(launched.idToken);
        expect(claims.sub).toBe(minor.user.id);
        expect(claims.name).toBe('Test Person');
        expect(claims.email).toBeUndefined();
        expect(JSON.stringify(claims)).not.toContain(minor.email);

        const roster = await tool.provider.NamesAndRoles.getMembers(tool.launches[tool.launches.length - 1], {
          pages: false,
        });
        const minorRow = roster.members.find((m) => m.user_id === minor.user.id);
        expect(minorRow).toMatchObject({ name: 'Test Person', status: 'Active' });
        expect(minorRow?.email).toBeUndefined();
        // The adult learner's email is sent: the rule is the minor's, not a deployment without emails.
        expect(roster.members.find((m) => m.user_id === learner.user.id)?.email).toBe(learner.email);
        expect(JSON.stringify(roster.members)).not.toContain(minor.email);
      } finally {
        await owner.agent
          .put(`/api/v1/organizations/${orgA}/lti/deployments/${toolId}`)
          .send({ privacy: { send_name: false, send_email: false } })
          .expect(200);
      }
    });
  });

  describe('cross-tenant', () => {
    it('the tool’s token reaches org B’s context while B’s deployment is enabled, 404 once B disables it', async () => {
      const ownerB = await adult(t);
      const orgB = await createOrganization(t, ownerB, 'LTI Org B');
      const learnerB = await adult(t);
      await addMember(t, orgB, learnerB.user.id, 'student');
      await learnerB.agent.post(`/api/v1/organizations/${orgB}/courses/${courseId}/enroll`).expect(201);
      const launchedB = await launch(
        learnerB,
        `/api/v1/organizations/${orgB}/courses/${courseId}/lessons/${lessonId}/lti/launch`,
      );
      expect(launchedB.status).toBe(200);
      const tokenB = tool.launches[tool.launches.length - 1];
      const contextB = (decodeJwt(launchedB.idToken)[`${CLAIM}context`] as { id: string }).id;
      const contextA = (decodeJwt((await launch(learner)).idToken)[`${CLAIM}context`] as { id: string }).id;
      expect(contextB).not.toBe(contextA);
      const rosterB = await tool.provider.NamesAndRoles.getMembers(tokenB, { pages: false });
      expect(rosterB.members.map((m) => m.user_id)).toEqual([ownerB.user.id, learnerB.user.id].sort());

      await stepUpByEmail(t, ownerB);
      await ownerB.agent
        .put(`/api/v1/organizations/${orgB}/lti/deployments/${toolId}`)
        .send({ enabled: false })
        .expect(200);
      await expect(tool.provider.NamesAndRoles.getMembers(tokenB, { pages: false })).rejects.toThrow(/404/);
      // Org A's context is unaffected.
      const rosterA = await tool.provider.NamesAndRoles.getMembers(tool.launches[tool.launches.length - 1], {
        pages: false,
      });
      expect(rosterA.members.map((m) => m.user_id)).toContain(learner.user.id);
      // Org B's routes from org A's owner, and from B's student (too low a role).
      await owner.agent.get(`/api/v1/organizations/${orgB}/lti/deployments`).expect(404);
      await learnerB.agent.get(`/api/v1/organizations/${orgB}/lti/deployments`).expect(403);
    });
  });

  describe('token endpoint (RFC 6749 errors)', () => {
    let keyTool: { id: string; client_id: string };
    let privateKey: CryptoKey;
    const assertion = async (over: Record<string, unknown> = {}, key: CryptoKey = privateKey) =>
      new SignJWT({ jti: `j-${Math.random()}`, ...over })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(keyTool.client_id)
        .setSubject(keyTool.client_id)
        .setAudience(`${t.baseUrl}/api/v1/lti/token`)
        .setIssuedAt()
        .setExpirationTime(typeof over.exp === 'number' ? over.exp : '60s')
        .sign(key);
    const tokenRequest = (fields: Record<string, string>) =>
      t
        .client()
        .post('/api/v1/lti/token')
        .type('form')
        .send({
          grant_type: 'client_credentials',
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          scope: `${AGS}score`,
          ...fields,
        });

    beforeAll(async () => {
      const pair = await generateKeyPair('RS256', { extractable: true });
      privateKey = pair.privateKey;
      const jwk = await exportJWK(pair.publicKey);
      const res = await admin.agent
        .post('/api/v1/admin/lti/tools')
        .send({
          name: 'Key tool',
          initiate_login_url: `${tool.url}/login`,
          redirect_uris: [`${tool.url}/`],
          target_link_uri: `${tool.url}/`,
          public_jwk: { kty: jwk.kty, n: jwk.n, e: jwk.e },
          scopes: [`${AGS}score`],
        })
        .expect(201);
      keyTool = res.body;
    });

    it('grants the intersection of scopes; a reused jti is invalid_grant', async () => {
      const jwt = await assertion();
      const ok = await tokenRequest({ client_assertion: jwt, scope: `${AGS}score ${AGS}lineitem` }).expect(200);
      expect(ok.body).toEqual({
        access_token: expect.any(String),
        token_type: 'Bearer',
        expires_in: 3600,
        scope: `${AGS}score`,
      });
      expect(ok.headers['cache-control']).toBe('no-store');
      const [row] = await t.db.query(`SELECT token_hash FROM lti_access_tokens WHERE tool_id = $1`, [keyTool.id]);
      expect(row.token_hash).not.toBe(ok.body.access_token);
      const replay = await tokenRequest({ client_assertion: jwt }).expect(400);
      expect(replay.body.error).toBe('invalid_grant');
    });

    it('refuses a bad signature (invalid_client), an expired assertion (invalid_grant), no scope (invalid_scope), a grant', async () => {
      const other = (await generateKeyPair('RS256')).privateKey;
      expect((await tokenRequest({ client_assertion: await assertion({}, other) }).expect(401)).body.error).toBe(
        'invalid_client',
      );
      const expired = await assertion({ exp: Math.floor(Date.now() / 1000) - 120 });
      expect((await tokenRequest({ client_assertion: expired }).expect(400)).body.error).toBe('invalid_grant');
      const noScope = await tokenRequest({ client_assertion: await assertion(), scope: `${AGS}lineitem` }).expect(400);
      expect(noScope.body.error).toBe('invalid_scope');
      const grant = await tokenRequest({ client_assertion: await assertion(), grant_type: 'password' }).expect(400);
      expect(grant.body.error).toBe('unsupported_grant_type');
    });

    it('60 token requests per minute per tool: the 61st is 429 with Retry-After', async () => {
      await t.app.get(RateLimitService).reset(LTI_TOKEN_TOOL, keyTool.id);
      const other = (await generateKeyPair('RS256')).privateKey;
      for (let i = 0; i < 60; i++) {
        const res = await tokenRequest({ client_assertion: await assertion({}, other) });
        expect(res.status).toBe(401);
      }
      const over = await tokenRequest({ client_assertion: await assertion() }).expect(429);
      expect(over.body.error).toBe('invalid_request');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      await t.app.get(RateLimitService).reset(LTI_TOKEN_TOOL, keyTool.id);
    });

    it('a token of a tool without a deployment in the context’s organization gets 404', async () => {
      const ok = await tokenRequest({ client_assertion: await assertion() }).expect(200);
      const token = tool.launches[tool.launches.length - 1];
      const lineItem = (token.platformContext.endpoint as { lineitem: string }).lineitem;
      const res = await t
        .client()
        .post(`${new URL(lineItem).pathname}/scores`)
        .set('Authorization', `Bearer ${ok.body.access_token}`)
        .set('Content-Type', 'application/vnd.ims.lis.v1.score+json')
        .send(
          JSON.stringify({
            userId: learner.user.id,
            activityProgress: 'Completed',
            gradingProgress: 'FullyGraded',
            timestamp: new Date().toISOString(),
          }),
        )
        .expect(404);
      expect(res.body.error).toBe('not_found');
      const anon = await t
        .client()
        .get(`${new URL(lineItem).pathname}`)
        .expect(401);
      expect(anon.body.error).toBe('invalid_token');
    });

    it('a token whose tool is disabled after it was used is refused at the next score (401), as before its first', async () => {
      const ok = await tokenRequest({ client_assertion: await assertion() }).expect(200);
      const lineItem = (tool.launches[tool.launches.length - 1].platformContext.endpoint as { lineitem: string })
        .lineitem;
      const score = () =>
        t
          .client()
          .post(`${new URL(lineItem).pathname}/scores`)
          .set('Authorization', `Bearer ${ok.body.access_token}`)
          .set('Content-Type', 'application/vnd.ims.lis.v1.score+json')
          .send(
            JSON.stringify({
              userId: learner.user.id,
              activityProgress: 'Completed',
              gradingProgress: 'FullyGraded',
              timestamp: new Date().toISOString(),
            }),
          );
      expect((await score().expect(404)).body.error).toBe('not_found'); // the token is good (no deployment here)
      await admin.agent.patch(`/api/v1/admin/lti/tools/${keyTool.id}`).send({ enabled: false }).expect(200);
      try {
        expect((await score().expect(401)).body.error).toBe('invalid_token');
        expect((await score().expect(401)).body.error).toBe('invalid_token');
      } finally {
        await admin.agent.patch(`/api/v1/admin/lti/tools/${keyTool.id}`).send({ enabled: true }).expect(200);
      }
      expect((await score().expect(404)).body.error).toBe('not_found');
    });

    it('AGS and NRPS calls count against the tool’s own limit: the last allowed answers, one past is 429', async () => {
      const limits = t.app.get(RateLimitService);
      const budget = ltiServiceBudget(t.config.lti.servicePerMinute);
      const ok = await tokenRequest({ client_assertion: await assertion() }).expect(200);
      const lineItem = (tool.launches[tool.launches.length - 1].platformContext.endpoint as { lineitem: string })
        .lineitem;
      const read = () =>
        t.client().get(new URL(lineItem).pathname).set('Authorization', `Bearer ${ok.body.access_token}`);
      await limits.reset(budget, keyTool.id);
      // Everything but the last request of the minute spent (as a busy grade passback would).
      await limits.consume(budget, keyTool.id, t.config.lti.servicePerMinute - 1);
      expect((await read()).status).toBe(403); // counted, then refused for its scope (score only): not the limit
      const over = await read().expect(429);
      expect(over.body).toEqual({ error: 'rate_limited', error_description: expect.any(String) });
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      await limits.reset(budget, keyTool.id);
    });
  });

  describe('refusals', () => {
    it('ltijs refuses a tampered (bad signature) and an expired id_token', async () => {
      const url = await authorizeUrl(learner);
      const page = await learner.agent.get(`${url.pathname}${url.search}`).expect(200);
      const form = parseFormPost(page.text);
      const [h, p, sig] = form.fields.id_token.split('.');
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
      claims.sub = owner.user.id;
      const tampered = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
      const bad = await fetch(form.action, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form.fields, id_token: tampered }),
      });
      expect(bad.status).toBe(401);
      // The same claims signed by the platform's key 6 minutes ago: expired.
      const { iat: _iat, exp: _exp, ...rest } = decodeJwt(form.fields.id_token);
      t.clock.advance(-6 * 60 * 1000);
      let old: string;
      try {
        old = await t.app.get(LtiKeysService).sign({ ...rest, nonce: `old-${t.suffix}` }, 300);
      } finally {
        t.clock.reset();
      }
      const expired = await fetch(form.action, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ ...form.fields, id_token: old }),
      });
      expect(expired.status).toBe(401);
    });

    it('a replayed nonce, another person’s session and a bad request go to the redirect URI as OIDC errors', async () => {
      const url = await authorizeUrl(learner);
      url.searchParams.set('nonce', `fixed-${t.suffix}`);
      const first = parseFormPost((await learner.agent.get(`${url.pathname}${url.search}`).expect(200)).text);
      expect(first.fields.id_token).toBeDefined();
      const again = parseFormPost((await learner.agent.get(`${url.pathname}${url.search}`).expect(200)).text);
      expect(again.fields).toEqual({
        error: 'invalid_request',
        error_description: expect.stringContaining('nonce'),
        state: url.searchParams.get('state'),
      });
      url.searchParams.set('nonce', `other-${t.suffix}`);
      const wrongPerson = parseFormPost((await owner.agent.get(`${url.pathname}${url.search}`).expect(200)).text);
      expect(wrongPerson.fields.error).toBe('login_required');
      const anonymous = parseFormPost((await t.client().get(`${url.pathname}${url.search}`).expect(200)).text);
      expect(anonymous.fields.error).toBe('login_required');
      url.searchParams.set('response_mode', 'fragment');
      const badMode = parseFormPost((await learner.agent.get(`${url.pathname}${url.search}`).expect(200)).text);
      expect(badMode.fields.error).toBe('invalid_request');
    });

    it('an unregistered redirect URI is a 400 page, not a redirect', async () => {
      const url = await authorizeUrl(learner);
      url.searchParams.set('redirect_uri', 'https://evil.example/');
      const res = await learner.agent.get(`${url.pathname}${url.search}`).expect(400);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.text).not.toContain('id_token');
    });

    it('a learner not enrolled gets 403 not_enrolled; a disabled deployment or tool 409 lti_tool_unavailable', async () => {
      const other = await adult(t);
      await addMember(t, orgA, other.user.id, 'student');
      const path = `/api/v1/organizations/${orgA}/courses/${courseId}/lessons/${lessonId}/lti/launch`;
      expect((await other.agent.get(path).expect(403)).body.error.code).toBe('not_enrolled');
      // Enrolled, but a minor without guardian consent.
      await other.agent.post(`/api/v1/organizations/${orgA}/courses/${courseId}/enroll`).expect(201);
      await t.db.query(`UPDATE users SET age_bracket = 'under_18' WHERE id = $1`, [other.user.id]);
      expect((await other.agent.get(path).expect(403)).body.error.code).toBe('guardian_consent_required');

      await stepUpByEmail(t, owner);
      await owner.agent
        .put(`/api/v1/organizations/${orgA}/lti/deployments/${toolId}`)
        .send({ enabled: false })
        .expect(200);
      expect((await learner.agent.get(path).expect(409)).body.error.code).toBe('lti_tool_unavailable');
      const lesson = await learner.agent.get(`/api/v1/organizations/${orgA}/courses/${courseId}/lessons/${lessonId}`);
      expect(lesson.body.lti.available).toBe(false);
      const [audit] = await t.db.query(
        `SELECT organization_id, metadata FROM audit_log WHERE action = 'lti_deployment.updated' ORDER BY created_at DESC LIMIT 1`,
      );
      expect(audit).toEqual({
        organization_id: orgA,
        metadata: { enabled: false, send_name: false, send_email: false },
      });
      await owner.agent
        .put(`/api/v1/organizations/${orgA}/lti/deployments/${toolId}`)
        .send({ enabled: true })
        .expect(200);

      await admin.agent.patch(`/api/v1/admin/lti/tools/${toolId}`).send({ enabled: false }).expect(200);
      expect((await learner.agent.get(path).expect(409)).body.error.code).toBe('lti_tool_unavailable');
      await admin.agent.patch(`/api/v1/admin/lti/tools/${toolId}`).send({ enabled: true }).expect(200);
      await learner.agent.get(path).expect(302);
    });

    it('privacy: names and emails only when the deployment sends them', async () => {
      await stepUpByEmail(t, owner);
      await owner.agent
        .put(`/api/v1/organizations/${orgA}/lti/deployments/${toolId}`)
        .send({ privacy: { send_name: true, send_email: true } })
        .expect(200);
      const res = await launch(learner);
      const claims = decodeJwt(res.idToken);
      expect(claims.name).toBe('Test Person');
      expect(claims.given_name).toBe('Test');
      expect(claims.email).toBe(learner.email);
      expect((claims[`${CLAIM}custom`] as Record<string, string>).name).toBe('Test Person');
      await owner.agent
        .put(`/api/v1/organizations/${orgA}/lti/deployments/${toolId}`)
        .send({ privacy: { send_name: false, send_email: false } })
        .expect(200);
    });
  });

  describe('deep linking', () => {
    it('ltijs answers a deep-linking request; each ltiResourceLink becomes a lesson of the course (303)', async () => {
      tool.deepLinkItems = [
        {
          type: 'ltiResourceLink',
          title: 'Picked lab',
          text: 'From the tool',
          url: `${tool.url}/`,
          lineItem: { scoreMaximum: 20, label: 'Lab score' },
        },
        { type: 'html', html: '<p>skipped</p>' },
      ];
      const res = await launch(admin, `/api/v1/editor/courses/${courseId}/lti/deep-linking?tool_id=${toolId}`);
      const form = parseFormPost(res.body.text as string);
      expect(form.action).toBe(`${t.baseUrl}/api/v1/lti/deep-linking/return`);
      const back = await admin.agent.post('/api/v1/lti/deep-linking/return').type('form').send(form.fields).expect(303);
      expect(back.headers.location).toBe(`http://web.test/editor/courses/${courseId}?lti_added=1`);
      const course = await admin.agent.get(`/api/v1/editor/courses/${courseId}`).expect(200);
      const added = course.body.lessons.find((l: { title: string }) => l.title === 'Picked lab');
      expect(added).toMatchObject({
        content_md: 'From the tool',
        lti: { tool_id: toolId, line_item: { score_maximum: 20, label: 'Lab score' } },
      });
      const replay = await admin.agent
        .post('/api/v1/lti/deep-linking/return')
        .type('form')
        .send(form.fields)
        .expect(400);
      expect(replay.text).toContain('replayed');
      const [audit] = await t.db.query(`SELECT metadata FROM audit_log WHERE action = 'lti.deep_link_received'`);
      // ltijs itself drops the item of a type the request did not accept (`html`), so nothing is skipped here.
      expect(audit.metadata).toEqual({ tool_id: toolId, added: 1, skipped: 0 });
    });
  });

  describe('dynamic registration', () => {
    it('ltijs registers itself through its registration URL; the token is single use', async () => {
      const started = await admin.agent
        .post('/api/v1/admin/lti/registrations')
        .send({ initiation_url: `${tool.url}/register` })
        .expect(201);
      const launchUrl = new URL(started.body.launch_url);
      const config = await t
        .client()
        .get(new URL(launchUrl.searchParams.get('openid_configuration') as string).pathname)
        .expect(200);
      expect(config.body['https://purl.imsglobal.org/spec/lti-platform-configuration']).toMatchObject({
        product_family_code: 'learning-platform',
        messages_supported: [{ type: 'LtiResourceLinkRequest' }, { type: 'LtiDeepLinkingRequest' }],
      });
      const res = await fetch(launchUrl, { redirect: 'manual' });
      expect(await res.text()).toContain('org.imsglobal.lti.close');
      const tools = await admin.agent.get('/api/v1/admin/lti/tools').expect(200);
      const dynamic = tools.body.items.find((i: { registered_by: string }) => i.registered_by === 'dynamic');
      expect(dynamic).toMatchObject({
        name: 'ltijs test tool',
        jwks_url: `${tool.url}/keys`,
        initiate_login_url: `${tool.url}/login`,
      });
      const [audit] = await t.db.query(
        `SELECT actor_id FROM audit_log WHERE action = 'lti_tool.registered' AND target_id = $1`,
        [dynamic.id],
      );
      expect(audit.actor_id).toBe(admin.user.id);
      // Used: the configuration is gone and the token refused.
      await t
        .client()
        .get(new URL(launchUrl.searchParams.get('openid_configuration') as string).pathname)
        .expect(404);
      const again = await t
        .client()
        .post(`/api/v1/lti/registrations/${started.body.id}/register`)
        .set('Authorization', `Bearer ${launchUrl.searchParams.get('registration_token')}`)
        .send({})
        .expect(401);
      expect(again.body.error).toBe('invalid_token');

      // The dynamically registered tool launches too.
      const lesson = await admin.agent
        .post(`/api/v1/editor/courses/${courseId}/lessons`)
        .send({ title: 'Dynamic lab', lti: { tool_id: dynamic.id } })
        .expect(201);
      const before = tool.launches.length;
      const launched = await launch(
        learner,
        `/api/v1/organizations/${orgA}/courses/${courseId}/lessons/${lesson.body.id}/lti/launch`,
      );
      expect(launched.status).toBe(200);
      expect(tool.launches.length).toBe(before + 1);
      expect(decodeJwt(launched.idToken).aud).toBe(dynamic.client_id);
    });
  });

  describe('keys rotation', () => {
    it('rotates (step-up, audited); the old key stays in the JWKS 7 days', async () => {
      const before = (await t.client().get('/api/v1/lti/jwks').expect(200)).body.keys.map(
        (k: { kid: string }) => k.kid,
      );
      const res = await admin.agent.post('/api/v1/admin/lti/keys/rotate').expect(200);
      const after = (await t.client().get('/api/v1/lti/jwks').expect(200)).body.keys.map((k: { kid: string }) => k.kid);
      expect(after).toEqual(expect.arrayContaining([...before, res.body.kid]));
      const [audit] = await t.db.query(`SELECT organization_id FROM audit_log WHERE action = 'lti_key.rotated'`);
      expect(audit.organization_id).toBeNull();
      const launched = await launch(learner);
      expect(launched.status).toBe(200);
      expect(decodeProtectedHeader(launched.idToken).kid).toBe(res.body.kid);
      t.clock.advance(8 * 24 * 3600 * 1000);
      try {
        const later = (await t.client().get('/api/v1/lti/jwks').expect(200)).body.keys.map(
          (k: { kid: string }) => k.kid,
        );
        expect(later).toEqual([res.body.kid]);
      } finally {
        t.clock.reset();
      }
    });
  });

  describe('retention', () => {
    it('the daily prune drops launches after 90 days and expired nonces and tokens', async () => {
      const before = await t.db.query(`SELECT count(*)::int AS n FROM lti_launches WHERE organization_id = $1`, [orgA]);
      expect(before[0].n).toBeGreaterThan(0);
      await t.app.get(LtiMaintenance).prune();
      const kept = await t.db.query(`SELECT count(*)::int AS n FROM lti_launches WHERE organization_id = $1`, [orgA]);
      expect(kept[0].n).toBe(before[0].n);
      t.clock.advance(91 * 24 * 3600 * 1000);
      try {
        await t.app.get(LtiMaintenance).prune();
      } finally {
        t.clock.reset();
      }
      const [left] = await t.db.query(
        `SELECT (SELECT count(*)::int FROM lti_launches) AS launches, (SELECT count(*)::int FROM lti_used_nonces) AS nonces,
                (SELECT count(*)::int FROM lti_access_tokens) AS tokens`,
      );
      expect(left).toEqual({ launches: 0, nonces: 0, tokens: 0 });
    });
  });
});
