import { randomUUID } from 'node:crypto';
import { NOTES_EXPORT_MAX_BYTES } from '@/modules/learning/notes';
import type { SignedIn } from '../../support/auth';
import { enroll, member } from '../../support/exams';
import { adult, createOrganization } from '../../support/tenancy';
import { createTestApp, type TestApp } from '../../support/test-app';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';

const LIMIT = 4000;

/** Personal notes per lesson (extensions-v2 section 10): private, versioned, listed, exported as Markdown. */
describe('notes', () => {
  let t: TestApp;
  let orgId: string;
  let orgSlug: string;
  let algebra: MadeCourse;
  let biology: MadeCourse;
  let learner: SignedIn;
  let other: SignedIn;

  const note = (c: MadeCourse, lesson: number): string =>
    `/api/v1/organizations/${orgId}/courses/${c.id}/lessons/${c.lessons[lesson].id}/note`;
  const base = (): string => `/api/v1/organizations/${orgId}`;

  beforeAll(async () => {
    t = await createTestApp({ overrides: [{ provide: NOTES_EXPORT_MAX_BYTES, useValue: LIMIT }] });
    const owner = await adult(t);
    orgId = await createOrganization(t, owner, 'Notes Org');
    orgSlug = (await t.db.query(`SELECT slug FROM organizations WHERE id = $1`, [orgId]))[0].slug;
    algebra = await makeCourse(t, owner.user.id, {
      title: 'Álgebra básica',
      lessons: [{ title: 'Ecuaciones' }, { title: 'Funciones' }, { title: 'Matrices' }],
    });
    biology = await makeCourse(t, owner.user.id, { title: 'Biology', lessons: [{ title: 'Cells' }] });
    learner = await member(t, orgId);
    other = await member(t, orgId);
    await enroll(learner, orgId, algebra.id);
    await enroll(learner, orgId, biology.id);
    await enroll(other, orgId, algebra.id);
  });
  afterAll(() => t.close());

  it('404 when there is none; PUT creates (version 1) and replaces (version 2); GET answers it', async () => {
    await learner.agent.get(note(algebra, 0)).expect(404);
    const created = await learner.agent
      .put(note(algebra, 0))
      .send({ content_md: '# Mis apuntes\n\nx = 2' })
      .expect(200);
    expect(created.body).toMatchObject({
      lesson_id: algebra.lessons[0].id,
      course_id: algebra.id,
      content_md: '# Mis apuntes\n\nx = 2',
      version: 1,
    });
    const replaced = await learner.agent.put(note(algebra, 0)).send({ content_md: 'Ecuación resuelta' }).expect(200);
    expect(replaced.body.version).toBe(2);
    expect(replaced.body.created_at).toBe(created.body.created_at);
    expect((await learner.agent.get(note(algebra, 0)).expect(200)).body).toEqual(replaced.body);
  });

  it('409 note_version_conflict when base_version differs (nothing changes); the right base saves', async () => {
    const res = await learner.agent.put(note(algebra, 0)).send({ content_md: 'stale', base_version: 1 }).expect(409);
    expect(res.body.error.code).toBe('note_version_conflict');
    expect((await learner.agent.get(note(algebra, 0))).body.content_md).toBe('Ecuación resuelta');
    const ok = await learner.agent
      .put(note(algebra, 0))
      .send({ content_md: 'Ecuación: x² = 4', base_version: 2 })
      .expect(200);
    expect(ok.body.version).toBe(3);
  });

  it('two devices saving from the same version at once: one is saved, the other gets 409', async () => {
    const start = await learner.agent.put(note(algebra, 1)).send({ content_md: 'v1' }).expect(200);
    const both = await Promise.all(
      ['device A', 'device B'].map((content_md) =>
        learner.agent.put(note(algebra, 1)).send({ content_md, base_version: start.body.version }),
      ),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await learner.agent.get(note(algebra, 1))).body.version).toBe(start.body.version + 1);
    await learner.agent.delete(note(algebra, 1)).expect(204);
  });

  it('limits: 1..20 000 characters, base_version an integer', async () => {
    for (const body of [
      { content_md: '' },
      { content_md: 'x'.repeat(20001) },
      {},
      { content_md: 'a', base_version: 'x' },
    ]) {
      await learner.agent.put(note(biology, 0)).send(body).expect(422);
    }
    await learner.agent
      .put(note(biology, 0))
      .send({ content_md: 'y'.repeat(20000) })
      .expect(200);
    await learner.agent.delete(note(biology, 0)).expect(204);
  });

  it('private to its author; a lesson of another course or an unknown one is 404; not enrolled is 403', async () => {
    await other.agent.get(note(algebra, 0)).expect(404);
    await other.agent.put(note(algebra, 0)).send({ content_md: 'mine' }).expect(200);
    expect((await learner.agent.get(note(algebra, 0))).body.content_md).toBe('Ecuación: x² = 4');
    const notEnrolled = await other.agent.get(note(biology, 0)).expect(403);
    expect(notEnrolled.body.error.code).toBe('not_enrolled');
    await other.agent.put(note(biology, 0)).send({ content_md: 'x' }).expect(403);
    await learner.agent.get(`${base()}/courses/${algebra.id}/lessons/${biology.lessons[0].id}/note`).expect(404);
    await learner.agent.get(`${base()}/courses/${algebra.id}/lessons/${randomUUID()}/note`).expect(404);
    await learner.agent.get(`${base()}/courses/${randomUUID()}/lessons/${algebra.lessons[0].id}/note`).expect(404);
    await other.agent.delete(note(algebra, 0)).expect(204);
  });

  it('DELETE is idempotent', async () => {
    await learner.agent.put(note(algebra, 2)).send({ content_md: 'to delete' }).expect(200);
    await learner.agent.delete(note(algebra, 2)).expect(204);
    await learner.agent.delete(note(algebra, 2)).expect(204);
    await learner.agent.get(note(algebra, 2)).expect(404);
  });

  it('lists most recently updated first, with plain-text excerpts; filters by course and by q (accents, case)', async () => {
    t.clock.advance(1000);
    await learner.agent
      .put(note(biology, 0))
      .send({ content_md: '**Mitochondria** are _the_ [powerhouse](https://x.org)' })
      .expect(200);
    t.clock.advance(1000);
    await learner.agent
      .put(note(algebra, 1))
      .send({ content_md: `Funciones: ${'f(x) '.repeat(60)}` })
      .expect(200);
    const list = await learner.agent.get(`${base()}/notes`).expect(200);
    expect(list.body.total).toBe(3);
    expect(list.body.items.map((n: { lesson_id: string }) => n.lesson_id)).toEqual([
      algebra.lessons[1].id,
      biology.lessons[0].id,
      algebra.lessons[0].id,
    ]);
    expect(list.body.items[1]).toMatchObject({
      lesson_title: 'Cells',
      lesson_position: 1,
      course_id: biology.id,
      course_title: 'Biology',
      excerpt: 'Mitochondria are the powerhouse',
      version: 1,
    });
    expect([...list.body.items[0].excerpt]).toHaveLength(200);
    const byCourse = await learner.agent.get(`${base()}/notes?course_id=${algebra.id}`).expect(200);
    expect(byCourse.body.total).toBe(2);
    const q = await learner.agent.get(`${base()}/notes?q=${encodeURIComponent('ECUACION')}`).expect(200);
    expect(q.body.items.map((n: { lesson_id: string }) => n.lesson_id)).toEqual([algebra.lessons[0].id]);
    const literal = await learner.agent.get(`${base()}/notes?q=${encodeURIComponent('%')}`).expect(200);
    expect(literal.body.total).toBe(0);
    await learner.agent.get(`${base()}/notes?q=${'x'.repeat(101)}`).expect(422);
    await learner.agent.get(`${base()}/notes?course_id=nope`).expect(422);
    expect((await other.agent.get(`${base()}/notes`).expect(200)).body.total).toBe(0);
  });

  it('exports Markdown: courses by title, lessons by position, a safe file name, private no-store', async () => {
    const res = await learner.agent.get(`${base()}/notes/export`).expect(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="notes-${orgSlug}.md"`);
    expect(res.headers['cache-control']).toBe('private, no-store');
    const text = res.text;
    expect(text).toBe(
      [
        '# Álgebra básica\n',
        '## 1. Ecuaciones\n\nEcuación: x² = 4\n',
        `## 2. Funciones\n\nFunciones: ${'f(x) '.repeat(60).trimEnd()}\n`,
        '# Biology\n',
        '## 1. Cells\n\n**Mitochondria** are _the_ [powerhouse](https://x.org)\n',
      ].join('\n'),
    );
    const one = await learner.agent.get(`${base()}/notes/export?course_id=${biology.id}`).expect(200);
    expect(one.headers['content-disposition']).toBe(`attachment; filename="notes-${biology.slug}.md"`);
    expect(one.text).toBe('# Biology\n\n## 1. Cells\n\n**Mitochondria** are _the_ [powerhouse](https://x.org)\n');
    await learner.agent.get(`${base()}/notes/export?course_id=${randomUUID()}`).expect(404);
    await learner.agent.get(`${base()}/notes/export?course_id=x`).expect(422);
  });

  it('413 export_too_large above the limit (exactly at it: served)', async () => {
    const person = await member(t, orgId);
    await enroll(person, orgId, biology.id);
    const head = '# Biology\n\n## 1. Cells\n\n';
    const fill = LIMIT - Buffer.byteLength(head) - 1; // the note ends with a newline
    await person.agent
      .put(note(biology, 0))
      .send({ content_md: 'n'.repeat(fill) })
      .expect(200);
    const at = await person.agent.get(`${base()}/notes/export`).expect(200);
    expect(Buffer.byteLength(at.text)).toBe(LIMIT);
    await person.agent
      .put(note(biology, 0))
      .send({ content_md: 'n'.repeat(fill + 1) })
      .expect(200);
    const over = await person.agent.get(`${base()}/notes/export`).expect(413);
    expect(over.body.error.code).toBe('export_too_large');
  });
});
