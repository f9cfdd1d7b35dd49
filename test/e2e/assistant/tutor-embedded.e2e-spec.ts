import type { Credential } from '@/core/auth/credential';
import { AiUsageService } from '@/modules/assistant/ai-usage';
import { EditorService } from '@/modules/learning/editor';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { ProgressService } from '@/modules/learning/progress';
import { QuizProposalsService, TutorService } from '@/modules/assistant/tutor';
import { UsersService } from '@/modules/identity/users';
import { createTestApp, type TestApp } from '../../support/test-app';
import { PYTHON_LESSONS } from '../../support/tutor-fixtures';
import { waitUntil } from '../../support/wait';

/**
 * The tutor's SQL on the embedded PostgreSQL (PGlite, PostgreSQL 18) as well as on the server (15): passages written
 * by the editor, the OR query of lexemes and its ranking, metering and quota sums, a quiz proposal job run
 * in-process. Driven through the services, since the embedded mode has no mail to sign in with.
 */
describe('tutor on the embedded database', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ embedded: true, redis: false, smtp: false });
    // PGlite runs every migration in WebAssembly on start: about 15 s alone, several times that on a busy machine.
  }, 240_000);
  afterAll(() => t.close());

  it('answers from the passages, meters the call and runs a quiz proposal', async () => {
    const users = t.app.get(UsersService);
    const { user: author } = await users.findOrCreate('author@embedded.test', 'en');
    const { user: learner } = await users.findOrCreate('learner@embedded.test', 'en');
    const editor = t.app.get(EditorService);
    const course = await editor.create({ title: 'Python basics', language: 'en', level: 'beginner' }, author.id);
    const lessons: { id: string }[] = [];
    for (const lesson of PYTHON_LESSONS) lessons.push(await editor.createLesson(course.id, lesson));
    await editor.publish(course.id, author.id);

    const credential: Credential = {
      kind: 'session',
      userId: learner.id,
      sessionId: null,
      tokenId: null,
      organizationId: null,
      access: 'write',
      impersonatorId: null,
      platformRoles: [],
      minor: false,
    };
    const { organization } = await t.app
      .get(OrganizationsService)
      .create({ ...credential, userId: author.id }, { name: 'Embedded org' }, undefined);
    await t.app.get(OrganizationsService).addMember(organization.id, learner.id, 'student', null);
    const member = { organizationId: organization.id, userId: learner.id, role: 'student' as const };
    await t.app.get(ProgressService).enroll(member, course.id);

    const tutor = t.app.get(TutorService);
    const conversation = await tutor.create(member, credential, { course_id: course.id, lesson_id: lessons[1].id });
    const answer = await tutor.prepareAnswer(member, credential, conversation.id, 'How do I add an item to a list?');
    const events = [];
    for await (const event of answer.events(new AbortController().signal)) events.push(event);
    // The header, one line per passage found (each followed by its citation), the footer.
    expect(events.map((e) => e.event)).toEqual([
      'start',
      'delta',
      ...['delta', 'citation', 'delta', 'citation'], // the lists and loops lessons
      'delta',
      'done',
    ]);
    expect(events[3].data).toMatchObject({ index: 1, lesson_id: lessons[1].id });

    const month = await t.app.get(AiUsageService).organizationMonth(organization.id);
    expect(month.requests).toBe(1);
    await t.app.get(AiUsageService).checkQuota(organization.id, learner.id);

    const proposal = await t.app
      .get(QuizProposalsService)
      .create(course.id, lessons[1].id, { count: 2, kinds: ['true_false'] }, author.id);
    const done = await waitUntil(async () => {
      const p = await t.app.get(QuizProposalsService).get(course.id, lessons[1].id, proposal.id);
      return ['ready', 'failed'].includes(p.status) ? p : null;
    });
    expect(done).toMatchObject({ status: 'ready', provider: 'local' });
  }, 120_000);
});
