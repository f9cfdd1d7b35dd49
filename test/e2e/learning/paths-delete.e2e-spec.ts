import { randomBytes } from 'node:crypto';
import { signIn, type SignedIn } from '../../support/auth';
import { addMember, adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';

/** extensions-v2 16.5: deleting a learning path, refused once a record refers to it. */
describe('path deletion', () => {
  let t: TestApp;
  let editor: SignedIn;
  let owner: SignedIn;
  let org: string;
  let courseId: string;

  async function path(kind: 'path' | 'program' = 'program'): Promise<string> {
    const res = await editor.agent
      .post('/api/v1/editor/paths')
      .send({
        title: 'To delete',
        slug: `d-${randomBytes(4).toString('hex')}`,
        kind,
        courses: [{ course_id: courseId }],
      })
      .expect(201);
    return res.body.id as string;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'path-editor@platform.test' } });
    editor = await signIn(t, 'path-editor@platform.test');
    owner = await adult(t);
    org = await createOrganization(t, owner, 'Paths Org');
    const [row] = await t.db.query(
      `INSERT INTO courses (slug, title, language, level, status) VALUES ($1, 'C', 'es', 'beginner', 'published') RETURNING id`,
      [`c-${randomBytes(5).toString('hex')}`],
    );
    courseId = row.id;
  });
  afterAll(() => t.close());

  it('deletes an unused path (204, audited); a second delete is 404', async () => {
    const id = await path('path');
    await editor.agent.delete(`/api/v1/editor/paths/${id}`).expect(204);
    await editor.agent.get(`/api/v1/editor/paths/${id}`).expect(404);
    await editor.agent.delete(`/api/v1/editor/paths/${id}`).expect(404);
    await editor.agent.delete('/api/v1/editor/paths/not-a-uuid').expect(404);
    const [entry] = await t.db.query(
      `SELECT actor_id, organization_id FROM audit_log WHERE action = 'path.deleted' AND target_id = $1`,
      [id],
    );
    expect(entry).toEqual({ actor_id: editor.user.id, organization_id: null });
  });

  it('409 path_in_use with a program completion, a badge or a certificate; the path stays', async () => {
    const learner = await adult(t);
    await addMember(t, org, learner.user.id, 'student');
    const withCompletion = await path();
    await t.db.query(`INSERT INTO program_completions (organization_id, user_id, path_id) VALUES ($1, $2, $3)`, [
      org,
      learner.user.id,
      withCompletion,
    ]);
    const withBadge = await path();
    await t.db.query(`INSERT INTO badge_awards (organization_id, user_id, path_id, name) VALUES ($1, $2, $3, 'B')`, [
      org,
      learner.user.id,
      withBadge,
    ]);
    const withCertificate = await path();
    await t.db.query(
      `INSERT INTO issued_certificates (code, type, organization_id, user_id, holder_name, path_id, title, issued_at)
       VALUES ($1, 'program', $2, $3, 'L', $4, 'P', now())`,
      [`PRG-${randomBytes(2).toString('hex').toUpperCase()}-TEST`, org, learner.user.id, withCertificate],
    );
    for (const id of [withCompletion, withBadge, withCertificate]) {
      const res = await editor.agent.delete(`/api/v1/editor/paths/${id}`);
      expect([res.status, res.body.error.code]).toEqual([409, 'path_in_use']);
      await editor.agent.get(`/api/v1/editor/paths/${id}`).expect(200);
    }
  });

  it('editors only', async () => {
    const id = await path();
    await owner.agent.delete(`/api/v1/editor/paths/${id}`).expect(403);
  });
});
