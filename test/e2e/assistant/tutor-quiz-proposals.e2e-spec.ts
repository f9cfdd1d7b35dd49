import { quizProblems } from '@/modules/learning/editor';
import { makeCourse, type MadeCourse, ONE_QUESTION_QUIZ } from '../../cross-tenant/learning.routes';
import { signIn, type SignedIn } from '../../support/auth';
import { adult } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { PYTHON_LESSONS } from '../../support/tutor-fixtures';
import { waitUntil } from '../../support/wait';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** A lesson long enough for the local generator: repeated key terms in sentences of 40..240 characters. */
const RICH_LESSON = {
  title: 'Lists in depth',
  content_md: [
    '# Lists',
    '',
    'A list stores several values in order, and every value of a list has an index.',
    'You append a value to the end of a list with the append method of the list.',
    'A tuple is like a list, but a tuple cannot change after it is created.',
    '',
    '## Slicing',
    '',
    'Slicing a list returns a new list with a range of its values.',
    'The index of the first value of a list is zero, and negative indexes count from the end.',
    'A dictionary maps keys to values, while a list maps each index to a value.',
  ].join('\n'),
};

describe('AI quiz proposals with the local generator', () => {
  let t: TestApp;
  let editor: SignedIn;
  let course: MadeCourse;

  const path = (lesson: number, c: MadeCourse = course): string =>
    `/api/v1/editor/courses/${c.id}/lessons/${c.lessons[lesson].id}/quiz-proposals`;
  const finished = (lesson: number, id: string, c: MadeCourse = course) =>
    waitUntil(
      async () => {
        const res = await editor.agent.get(`${path(lesson, c)}/${id}`).expect(200);
        return ['ready', 'failed'].includes(res.body.status) ? res.body : null;
      },
      { what: 'the proposal to finish' },
    );
  const propose = async (lesson: number, body: object = {}, c: MadeCourse = course) => {
    const res = await editor.agent.post(path(lesson, c)).send(body).expect(202);
    return finished(lesson, res.body.id as string, c);
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: 'editor@platform.test,second@platform.test' } });
    editor = await signIn(t, 'editor@platform.test');
    course = await makeCourse(t, editor.user.id, {
      title: 'Python basics',
      lessons: [
        RICH_LESSON,
        ...PYTHON_LESSONS,
        { title: 'Empty' },
        { title: 'Quizzed', content_md: RICH_LESSON.content_md },
      ],
    });
  });
  afterAll(() => t.close());

  it('202 queued; the job writes valid, deterministic questions resting on passages of the lesson; metered as platform work', async () => {
    const created = await editor.agent.post(path(0)).send({ count: 4 }).expect(202);
    expect(created.body).toEqual({
      id: expect.any(String),
      course_id: course.id,
      lesson_id: course.lessons[0].id,
      status: 'queued',
      count: 4,
      kinds: ['single', 'multiple', 'true_false'],
      provider: null,
      model: null,
      questions: [],
      error_code: null,
      usage: null,
      created_by: { user_id: editor.user.id },
      created_at: expect.stringMatching(ISO),
      finished_at: null,
    });
    const ready = await finished(0, created.body.id);
    expect(ready).toMatchObject({ status: 'ready', provider: 'local', model: 'local-extractive-1', error_code: null });
    expect(ready.finished_at).toMatch(ISO);
    expect(ready.usage.input_tokens).toBeGreaterThan(0);
    expect(ready.questions).toHaveLength(4);
    const chunks: { id: string; text: string }[] = await t.db.query(
      `SELECT id, text FROM lesson_chunks WHERE lesson_id = $1`,
      [course.lessons[0].id],
    );
    ready.questions.forEach(
      (
        q: { index: number; kind: string; source: { chunk_id: string; snippet: string }; accepted_at: null },
        i: number,
      ) => {
        expect(q.index).toBe(i + 1);
        expect(['single', 'true_false']).toContain(q.kind);
        expect(chunks.map((c) => c.id)).toContain(q.source.chunk_id);
        expect(q.source.snippet.length).toBeLessThanOrEqual(300);
        expect(q.accepted_at).toBeNull();
        expect(quizProblems({ passing_score: 70, questions: [q as never] })).toEqual([]);
      },
    );
    // The same lesson gives the same questions (seeded by the lesson id).
    const again = await propose(0, { count: 4 });
    expect(again.questions).toEqual(ready.questions);
    const [row] = await t.db.query(
      `SELECT organization_id, user_id, feature, provider, input_tokens, output_tokens, status FROM ai_usage
       WHERE feature = 'quiz_proposal' ORDER BY occurred_at LIMIT 1`,
    );
    expect(row).toEqual({
      organization_id: null,
      user_id: editor.user.id,
      feature: 'quiz_proposal',
      provider: 'local',
      input_tokens: ready.usage.input_tokens,
      output_tokens: ready.usage.output_tokens,
      status: 'ok',
    });
  });

  it('kinds and count are honoured; asking only for `multiple` (not written locally) fails with ai_invalid_output', async () => {
    const tf = await propose(0, { count: 2, kinds: ['true_false'] });
    expect(tf.questions.map((q: { kind: string }) => q.kind)).toEqual(['true_false', 'true_false']);
    const multiple = await propose(0, { kinds: ['multiple'] });
    expect(multiple).toMatchObject({ status: 'failed', error_code: 'ai_invalid_output', questions: [] });
  });

  it('accepting appends the chosen questions to the lesson quiz through the editor rules; each question once', async () => {
    const proposal = await propose(0, { count: 3 });
    const accepted = await editor.agent
      .post(`${path(0)}/${proposal.id}/accept`)
      .send({ indexes: [3, 1] })
      .expect(200);
    expect(accepted.body).toMatchObject({ id: course.lessons[0].id, course_id: course.id });
    expect(accepted.body.quiz.passing_score).toBe(70);
    expect(accepted.body.quiz.questions.map((q: { prompt: string }) => q.prompt)).toEqual([
      proposal.questions[2].prompt,
      proposal.questions[0].prompt,
    ]);
    expect(
      accepted.body.quiz.questions[0].options.map((o: { text: string; correct: boolean }) => [o.text, o.correct]),
    ).toEqual(proposal.questions[2].options.map((o: { text: string; correct: boolean }) => [o.text, o.correct]));
    const read = (await editor.agent.get(`${path(0)}/${proposal.id}`).expect(200)).body;
    expect(read.questions.map((q: { accepted_at: string | null }) => q.accepted_at !== null)).toEqual([
      true,
      false,
      true,
    ]);
    const twice = await editor.agent
      .post(`${path(0)}/${proposal.id}/accept`)
      .send({ indexes: [2, 3] })
      .expect(409);
    expect(twice.body.error.code).toBe('proposal_question_accepted');
    // The earlier questions keep their ids; a given passing score replaces the quiz's.
    const kept = accepted.body.quiz.questions.map((q: { id: string }) => q.id);
    const more = await editor.agent
      .post(`${path(0)}/${proposal.id}/accept`)
      .send({ indexes: [2], passing_score: 55 })
      .expect(200);
    expect(more.body.quiz.passing_score).toBe(55);
    expect(more.body.quiz.questions.slice(0, 2).map((q: { id: string }) => q.id)).toEqual(kept);
    expect(more.body.quiz.questions).toHaveLength(3);
  });

  it('appends after an existing quiz; above 50 questions is 422 and nothing changes', async () => {
    const lesson = course.lessons.length - 1; // "Quizzed"
    const many = {
      passing_score: 80,
      questions: Array.from({ length: 49 }, (_, i) => ({ ...ONE_QUESTION_QUIZ.questions[0], prompt: `Q${i}` })),
    };
    await editor.agent
      .patch(`/api/v1/editor/courses/${course.id}/lessons/${course.lessons[lesson].id}`)
      .send({ quiz: many })
      .expect(200);
    const proposal = await propose(lesson, { count: 2 });
    const tooMany = await editor.agent
      .post(`${path(lesson)}/${proposal.id}/accept`)
      .send({ indexes: [1, 2] })
      .expect(422);
    expect(tooMany.body.error.details).toEqual([
      { field: 'quiz.questions', message: 'a quiz has between 1 and 50 questions' },
    ]);
    const read = (await editor.agent.get(`${path(lesson)}/${proposal.id}`).expect(200)).body;
    expect(read.questions.every((q: { accepted_at: string | null }) => q.accepted_at === null)).toBe(true);
    const one = await editor.agent
      .post(`${path(lesson)}/${proposal.id}/accept`)
      .send({ indexes: [2] })
      .expect(200);
    expect(one.body.quiz.passing_score).toBe(80);
    expect(one.body.quiz.questions).toHaveLength(50);
    expect(one.body.quiz.questions[49].prompt).toBe(proposal.questions[1].prompt);
  });

  it('409 proposal_not_ready for a failed proposal; 422 for indexes it does not have or malformed', async () => {
    const failed = await propose(0, { kinds: ['multiple'] });
    const res = await editor.agent
      .post(`${path(0)}/${failed.id}/accept`)
      .send({ indexes: [1] })
      .expect(409);
    expect(res.body.error.code).toBe('proposal_not_ready');
    const ready = await propose(0, { count: 2 });
    for (const body of [
      { indexes: [3] },
      { indexes: [] },
      { indexes: [1, 1] },
      { indexes: [0] },
      { indexes: [11] },
      {},
      { indexes: [1], passing_score: 101 },
    ]) {
      expect(
        (
          await editor.agent
            .post(`${path(0)}/${ready.id}/accept`)
            .send(body)
            .expect(422)
        ).body.error.code,
      ).toBe('validation_error');
    }
  });

  it('409 lesson_empty for a lesson without text; 404 for a lesson of another course; 422 for bad input', async () => {
    const empty = PYTHON_LESSONS.length + 1;
    expect((await editor.agent.post(path(empty)).send({}).expect(409)).body.error.code).toBe('lesson_empty');
    const other = await makeCourse(t, editor.user.id, { title: 'Other' });
    await editor.agent
      .post(`/api/v1/editor/courses/${other.id}/lessons/${course.lessons[0].id}/quiz-proposals`)
      .send({})
      .expect(404);
    await editor.agent.post(`/api/v1/editor/courses/${course.id}/lessons/nope/quiz-proposals`).send({}).expect(404);
    for (const body of [
      { count: 0 },
      { count: 11 },
      { kinds: [] },
      { kinds: ['essay'] },
      { kinds: ['single', 'single'] },
    ]) {
      expect((await editor.agent.post(path(0)).send(body).expect(422)).body.error.code).toBe('validation_error');
    }
  });

  it('lists the 20 most recent of the lesson, newest first; reads and deletes one; 404 elsewhere', async () => {
    const a = await propose(1, { count: 1 });
    const b = await propose(1, { count: 1 });
    const list = (await editor.agent.get(path(1)).expect(200)).body;
    expect(list.items.map((p: { id: string }) => p.id).slice(0, 2)).toEqual([b.id, a.id]);
    await editor.agent.get(`${path(0)}/${a.id}`).expect(404); // another lesson
    await editor.agent.get(`${path(1)}/not-a-uuid`).expect(404);
    await editor.agent.delete(`${path(1)}/${a.id}`).expect(204);
    await editor.agent.get(`${path(1)}/${a.id}`).expect(404);
    await editor.agent.delete(`${path(1)}/${a.id}`).expect(404);
  });

  it('403 without the editor role', async () => {
    const someone = await adult(t);
    for (const [method, url] of [
      ['post', path(0)],
      ['get', path(0)],
    ] as const) {
      expect((await someone.agent[method](url).send({}).expect(403)).body.error.code).toBe('forbidden');
    }
  });

  it('20 proposals per hour per account, then 429 with Retry-After', async () => {
    const second = await signIn(t, 'second@platform.test');
    for (let i = 0; i < 20; i++) await second.agent.post(path(2)).send({ count: 1 }).expect(202);
    const refused = await second.agent.post(path(2)).send({ count: 1 }).expect(429);
    expect(refused.body.error.code).toBe('too_many_requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const list = (await second.agent.get(path(2)).expect(200)).body;
    expect(list.items).toHaveLength(20);
  });
});
