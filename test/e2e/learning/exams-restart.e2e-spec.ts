import { Client } from 'pg';
import { makeCourse } from '../../cross-tenant/learning.routes';
import { answerKey, enroll, makeExam, member, openWindow, questions, type SessionBody } from '../../support/exams';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { ADMIN_DATABASE_URL, databaseUrl, templateDatabase } from '../../support/test-env';
import { waitUntil } from '../../support/wait';

const MINUTE = 60_000;

/*
 * Its own file: two application instances in one jest process share process-wide registries (passport's
 * strategies), so the second one must not outlive a suite that keeps using the first.
 */
describe('exam sessions across a worker restart', () => {
  it('the close job is durable in the outbox: a new process on the same database closes and grades the session', async () => {
    // Both processes share one database (created here, so closing the first one does not drop it).
    const dbName = `${templateDatabase().replace(/_tpl$/, '')}_restart_${Date.now().toString(36)}`;
    const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${dbName}" TEMPLATE "${templateDatabase()}"`);
    let first: TestApp | undefined;
    let second: TestApp | undefined;
    try {
      first = await createTestApp({ databaseName: dbName });
      const o = await adult(first);
      const org = await createOrganization(first, o, 'Restart');
      const course = await makeCourse(first, o.user.id, { title: 'Restart course' });
      const exam = await makeExam(first, course.id, o.user.id, {
        duration_minutes: 1,
        questions_per_attempt: 3,
        questions: questions(3),
      });
      await openWindow(first, org, o.user.id, exam.id);
      const s = await member(first, org);
      await enroll(s, org, course.id);
      const base = `/api/v1/organizations/${org}/exams/${exam.id}/sessions`;
      const body: SessionBody = (await s.agent.post(base).expect(201)).body;
      const key = answerKey(exam);
      for (const q of body.questions.slice(0, 2)) {
        await s.agent
          .put(`${base}/${body.id}/answers/${q.id}`)
          .send({ option_ids: key.get(q.id)!.right, seq: 1 })
          .expect(200);
      }
      // The process goes away before the deadline: its delayed job was only in its (now lost) Redis queue.
      await first.close();
      first = undefined;
      const db = new Client({ connectionString: databaseUrl(dbName) });
      await db.connect();
      try {
        const [job] = (
          await db.query(`SELECT id, status, run_after FROM jobs WHERE dedupe_key = $1`, [`exams.close:${body.id}`])
        ).rows;
        expect(job.status).toBe('pending');
        expect(new Date(job.run_after).toISOString()).toBe(new Date(Date.parse(body.deadline_at) + 2000).toISOString());
        // The new process's clock starts past the deadline: its recovery sweep finds the job due and runs it.
        expect((await db.query(`SELECT status FROM exam_sessions WHERE id = $1`, [body.id])).rows[0].status).toBe(
          'in_progress',
        );
        second = await createTestApp({ databaseName: dbName, clockOffsetMs: 2 * MINUTE });
        await waitUntil(
          async () =>
            (await db.query(`SELECT status FROM exam_sessions WHERE id = $1`, [body.id])).rows[0].status ===
            'submitted',
          { what: 'the new process to close the session' },
        );
        const [closed] = (
          await db.query(`SELECT submitted_by, score, passed, submitted_at FROM exam_sessions WHERE id = $1`, [body.id])
        ).rows;
        expect(closed).toMatchObject({ submitted_by: 'deadline', score: 67, passed: true });
        expect(new Date(closed.submitted_at).toISOString()).toBe(body.deadline_at);
        const [done] = (await db.query(`SELECT status FROM jobs WHERE id = $1`, [job.id])).rows;
        expect(done.status).toBe('completed');
        const events = (
          await db.query(
            `SELECT payload FROM domain_events WHERE name = 'exam.submitted' AND payload->>'session_id' = $1`,
            [body.id],
          )
        ).rows;
        expect(events.map((e) => e.payload.submitted_by)).toEqual(['deadline']);
      } finally {
        await db.end();
      }
    } finally {
      await second?.close();
      await first?.close();
      await admin.query(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
