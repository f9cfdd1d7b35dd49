import { randomUUID } from 'node:crypto';
import { signIn, type SignedIn } from '../../support/auth';
import { advance, enroll, member } from '../../support/exams';
import { adult, bearer, createOrganization, personalToken } from '../../support/tenancy';
import { waitUntil } from '../../support/wait';
import { createTestApp, type TestApp } from '../../support/test-app';
import { makeCourse, type MadeCourse } from '../../cross-tenant/learning.routes';

const EDITOR = 'flash-editor@platform.test';

/**
 * Flashcards (extensions-v2 section 6, FSRS of 6.4 / 25.1): course decks written by editors, personal decks, the due
 * queue, reviews with SM-2 and FSRS, the review log, settings and the replay on a scheduler change.
 */
describe('flashcards', () => {
  let t: TestApp;
  let editor: SignedIn;
  let owner: SignedIn;
  let orgId: string;
  let course: MadeCourse;
  let otherCourse: MadeCourse;
  let learner: SignedIn;
  let stranger: SignedIn; // a member of the organization, not enrolled

  const ed = (courseId: string): string => `/api/v1/editor/courses/${courseId}/flashcards`;
  const org = (): string => `/api/v1/organizations/${orgId}/flashcards`;
  /** Waits for the background rescheduling after a change of scheduler (extensions-v3 6.5). */
  const rescheduled = (s: SignedIn): Promise<unknown> =>
    waitUntil(async () => !(await s.agent.get('/api/v1/me/flashcards/settings').expect(200)).body.rescheduling, {
      what: 'the rescheduling job',
    });

  async function editorCard(courseId: string, body: object): Promise<{ id: string; deck_id: string }> {
    const res = await editor.agent.post(ed(courseId)).send(body).expect(201);
    return res.body;
  }

  beforeAll(async () => {
    t = await createTestApp({ env: { PLATFORM_ADMIN_EMAILS: EDITOR } });
    editor = await signIn(t, EDITOR);
    owner = await adult(t);
    orgId = await createOrganization(t, owner, 'Flash Org');
    course = await makeCourse(t, owner.user.id, {
      title: 'Biology flash',
      lessons: [{ title: 'Cells' }, { title: 'Genes' }],
    });
    otherCourse = await makeCourse(t, owner.user.id, { title: 'Another course' });
    learner = await member(t, orgId);
    stranger = await member(t, orgId);
    await enroll(learner, orgId, course.id);
  });
  afterAll(() => t.close());

  describe('editor: the course deck', () => {
    it('403 forbidden without the editor role, 404 for an unknown course', async () => {
      const res = await learner.agent.get(ed(course.id)).expect(403);
      expect(res.body.error.code).toBe('forbidden');
      await editor.agent.get(ed(randomUUID())).expect(404);
      await editor.agent.post(ed(randomUUID())).send({ front_md: 'a', back_md: 'b' }).expect(404);
      await editor.agent.get(ed('not-a-uuid')).expect(404);
    });

    it('renders Markdown without raw HTML and sanitizes links; a lesson of another course is 422', async () => {
      const card = await editor.agent
        .post(ed(otherCourse.id))
        .send({
          front_md: '**Bold** <script>alert(1)</script> [x](javascript:alert(1)) <img src=x onerror=alert(1)>',
          back_md: '[site](https://example.org)',
        })
        .expect(201);
      expect(card.body.front_html).toContain('<strong>Bold</strong>');
      expect(card.body.front_html).not.toMatch(/<script|<img|href="javascript/i);
      expect(card.body.front_html).toContain('&lt;script&gt;');
      expect(card.body.back_html).toBe(
        '<p><a href="https://example.org" rel="noopener noreferrer nofollow" target="_blank">site</a></p>',
      );
      expect(card.body.state).toBeNull();
      const bad = await editor.agent
        .post(ed(otherCourse.id))
        .send({ front_md: 'a', back_md: 'b', lesson_id: course.lessons[0].id })
        .expect(422);
      expect(bad.body.error.details[0].field).toBe('lesson_id');
      await editor.agent.post(ed(otherCourse.id)).send({ front_md: '', back_md: 'b' }).expect(422);
      await editor.agent
        .post(ed(otherCourse.id))
        .send({ front_md: 'x'.repeat(2001), back_md: 'b' })
        .expect(422);
      await editor.agent
        .post(ed(otherCourse.id))
        .send({ front_md: 'x'.repeat(2000), back_md: 'b' })
        .expect(201);
    });

    it('lists by lesson position (cards without a lesson last), then position; PATCH and DELETE', async () => {
      const c1 = await editorCard(course.id, { front_md: 'Q genes', back_md: 'A', lesson_id: course.lessons[1].id });
      const c2 = await editorCard(course.id, { front_md: 'Q cells', back_md: 'A', lesson_id: course.lessons[0].id });
      const c3 = await editorCard(course.id, { front_md: 'Q free', back_md: 'A' });
      const c4 = await editorCard(course.id, {
        front_md: 'Q cells 0',
        back_md: 'A',
        lesson_id: course.lessons[0].id,
        position: 1,
      });
      const list = await editor.agent.get(ed(course.id)).expect(200);
      expect(list.body.items.map((c: { id: string }) => c.id)).toEqual([c4.id, c2.id, c1.id, c3.id]);
      expect(list.body.total).toBe(4);
      expect(new Set(list.body.items.map((c: { deck_id: string }) => c.deck_id)).size).toBe(1);

      const patched = await editor.agent
        .patch(`${ed(course.id)}/${c3.id}`)
        .send({ back_md: '*new*', lesson_id: course.lessons[0].id })
        .expect(200);
      expect([patched.body.back_html, patched.body.lesson_id]).toEqual(['<p><em>new</em></p>', course.lessons[0].id]);
      const cleared = await editor.agent
        .patch(`${ed(course.id)}/${c3.id}`)
        .send({ lesson_id: null })
        .expect(200);
      expect(cleared.body.lesson_id).toBeNull();
      await editor.agent
        .patch(`${ed(course.id)}/${c3.id}`)
        .send({ front_md: null })
        .expect(422);
      await editor.agent
        .patch(`${ed(otherCourse.id)}/${c3.id}`)
        .send({ back_md: 'x' })
        .expect(404);
    });

    it('409 deck_full at 2 000 cards (exactly at the limit: the last one fits)', async () => {
      const made = await makeCourse(t, owner.user.id, { title: 'Full deck course' });
      const first = await editorCard(made.id, { front_md: 'first', back_md: 'b' });
      await t.db.query(
        `INSERT INTO flashcards (deck_id, position, front_md, back_md, front_html, back_html)
         SELECT $1, g, 'f', 'b', '<p>f</p>', '<p>b</p>' FROM generate_series(2, 1999) g`,
        [first.deck_id],
      );
      await t.db.query(`UPDATE flashcard_decks SET cards_count = 1999 WHERE id = $1`, [first.deck_id]);
      await editorCard(made.id, { front_md: '2000th', back_md: 'b' });
      const full = await editor.agent.post(ed(made.id)).send({ front_md: 'one more', back_md: 'b' }).expect(409);
      expect(full.body.error.code).toBe('deck_full');
    });
  });

  describe('decks', () => {
    it('lists course decks of enrolled courses with cards, then personal decks; counts are the caller’s', async () => {
      const mine = await learner.agent.post(`${org()}/decks`).send({ title: 'My words' }).expect(201);
      expect(mine.body).toMatchObject({ kind: 'personal', course_id: null, title: 'My words', description: null });
      const list = await learner.agent.get(`${org()}/decks`).expect(200);
      expect(list.body.items.map((d: { kind: string; title: string }) => [d.kind, d.title])).toEqual([
        ['course', 'Biology flash'],
        ['personal', 'My words'],
      ]);
      expect(list.body.items[0]).toMatchObject({ cards_count: 4, due_count: 0, new_count: 4 });
      const personalOnly = await learner.agent.get(`${org()}/decks?kind=personal`).expect(200);
      expect(personalOnly.body.total).toBe(1);
      await learner.agent.get(`${org()}/decks?kind=other`).expect(422);
      // Not enrolled: no course deck; another person's decks are never listed.
      const theirs = await stranger.agent.get(`${org()}/decks`).expect(200);
      expect(theirs.body).toEqual({ items: [], total: 0, limit: 50, offset: 0 });
    });

    it('a course deck: 403 not_enrolled for a member not enrolled, never written through the organization', async () => {
      const deckId = (await editor.agent.get(ed(course.id)).expect(200)).body.items[0].deck_id;
      const got = await learner.agent.get(`${org()}/decks/${deckId}`).expect(200);
      expect(got.body).toMatchObject({ kind: 'course', course_id: course.id, title: 'Biology flash' });
      const refused = await stranger.agent.get(`${org()}/decks/${deckId}`).expect(403);
      expect(refused.body.error.code).toBe('not_enrolled');
      for (const res of [
        await learner.agent.patch(`${org()}/decks/${deckId}`).send({ title: 'x' }),
        await learner.agent.delete(`${org()}/decks/${deckId}`),
        await learner.agent.post(`${org()}/decks/${deckId}/cards`).send({ front_md: 'a', back_md: 'b' }),
      ]) {
        expect([res.status, res.body.error?.code]).toEqual([403, 'forbidden']);
      }
    });

    it('another person’s personal deck is 404 for reads and writes; its cards stay out of reach', async () => {
      const deck = (await learner.agent.post(`${org()}/decks`).send({ title: 'Private' }).expect(201)).body;
      const card = (
        await learner.agent
          .post(`${org()}/decks/${deck.id}/cards`)
          .send({ front_md: 'secret', back_md: 'b' })
          .expect(201)
      ).body;
      for (const res of [
        await stranger.agent.get(`${org()}/decks/${deck.id}`),
        await stranger.agent.get(`${org()}/decks/${deck.id}/cards`),
        await stranger.agent.patch(`${org()}/decks/${deck.id}`).send({ title: 'mine' }),
        await stranger.agent.delete(`${org()}/decks/${deck.id}`),
        await stranger.agent.patch(`${org()}/decks/${deck.id}/cards/${card.id}`).send({ back_md: 'x' }),
        await stranger.agent.delete(`${org()}/decks/${deck.id}/cards/${card.id}`),
        await stranger.agent.post(`${org()}/cards/${card.id}/reviews`).send({ grade: 4 }),
        await stranger.agent.get(`${org()}/due?deck_id=${deck.id}`),
      ]) {
        expect([res.status, res.body.error?.code]).toEqual([404, 'not_found']);
      }
      const due = await stranger.agent.get(`${org()}/due`).expect(200);
      expect(due.body.items).toEqual([]);
    });

    it('a personal deck belongs to one organization: the same person reaches it from another one as 404', async () => {
      const deck = (await learner.agent.post(`${org()}/decks`).send({ title: 'Here only' }).expect(201)).body;
      const elsewhere = await createOrganization(t, learner, 'Learner elsewhere');
      const there = `/api/v1/organizations/${elsewhere}/flashcards`;
      await learner.agent.get(`${there}/decks/${deck.id}`).expect(404);
      await learner.agent.post(`${there}/decks/${deck.id}/cards`).send({ front_md: 'a', back_md: 'b' }).expect(404);
      expect((await learner.agent.get(`${there}/decks`).expect(200)).body.total).toBe(0);
      await learner.agent.delete(`${org()}/decks/${deck.id}`).expect(204);
    });

    it('settings are personal: a bearer token of the person reads them', async () => {
      const token = await personalToken(t, learner, orgId, 'read');
      const res = await bearer(t, token).get('/api/v1/me/flashcards/settings').expect(200);
      expect(res.body).toEqual({
        scheduler: 'sm2',
        desired_retention: 0.9,
        new_cards_per_day: 20,
        rescheduling: false,
      });
      const write = await bearer(t, token).put('/api/v1/me/flashcards/settings').send({ new_cards_per_day: 5 });
      expect([write.status, write.body.error.code]).toEqual([403, 'credential_read_only']);
    });

    it('PATCH and DELETE of a personal deck; cards with their states go with it', async () => {
      const deck = (await learner.agent.post(`${org()}/decks`).send({ title: 'Temp', description: 'd' }).expect(201))
        .body;
      const patched = await learner.agent
        .patch(`${org()}/decks/${deck.id}`)
        .send({ title: 'Renamed', description: null })
        .expect(200);
      expect([patched.body.title, patched.body.description]).toEqual(['Renamed', null]);
      await learner.agent.patch(`${org()}/decks/${deck.id}`).send({ title: '' }).expect(422);
      await learner.agent
        .patch(`${org()}/decks/${deck.id}`)
        .send({ title: 'x'.repeat(121) })
        .expect(422);
      const card = (
        await learner.agent.post(`${org()}/decks/${deck.id}/cards`).send({ front_md: 'a', back_md: 'b' }).expect(201)
      ).body;
      await learner.agent.post(`${org()}/cards/${card.id}/reviews`).send({ grade: 4 }).expect(201);
      await learner.agent.delete(`${org()}/decks/${deck.id}`).expect(204);
      await learner.agent.delete(`${org()}/decks/${deck.id}`).expect(404);
      const left = await t.db.query(
        `SELECT (SELECT count(*)::int FROM flashcards WHERE id = $1) AS cards,
                (SELECT count(*)::int FROM flashcard_states WHERE card_id = $1) AS states,
                (SELECT count(*)::int FROM flashcard_reviews WHERE card_id = $1) AS reviews`,
        [card.id],
      );
      expect(left).toEqual([{ cards: 0, states: 0, reviews: 0 }]);
    });

    it('409 deck_limit_reached at 100 personal decks per person and organization (the 100th fits)', async () => {
      const person = await member(t, orgId);
      await t.db.query(
        `INSERT INTO flashcard_decks (kind, organization_id, user_id, title)
         SELECT 'personal', $1, $2, 'deck ' || g FROM generate_series(1, 99) g`,
        [orgId, person.user.id],
      );
      await person.agent.post(`${org()}/decks`).send({ title: 'Hundredth' }).expect(201);
      const res = await person.agent.post(`${org()}/decks`).send({ title: 'One more' }).expect(409);
      expect(res.body.error.code).toBe('deck_limit_reached');
      // Another organization has its own count.
      const other = await createOrganization(t, person, 'Second org');
      await person.agent
        .post(`/api/v1/organizations/${other}/flashcards/decks`)
        .send({ title: 'Elsewhere' })
        .expect(201);
    });

    it('409 deck_full at 5 000 cards in a personal deck (the 5 000th fits)', async () => {
      const deck = (await learner.agent.post(`${org()}/decks`).send({ title: 'Big' }).expect(201)).body;
      await t.db.query(
        `INSERT INTO flashcards (deck_id, position, front_md, back_md, front_html, back_html)
         SELECT $1, g, 'f', 'b', '<p>f</p>', '<p>b</p>' FROM generate_series(1, 4999) g`,
        [deck.id],
      );
      await t.db.query(`UPDATE flashcard_decks SET cards_count = 4999 WHERE id = $1`, [deck.id]);
      await learner.agent.post(`${org()}/decks/${deck.id}/cards`).send({ front_md: 'last', back_md: 'b' }).expect(201);
      const res = await learner.agent.post(`${org()}/decks/${deck.id}/cards`).send({ front_md: 'x', back_md: 'b' });
      expect([res.status, res.body.error.code]).toEqual([409, 'deck_full']);
      await learner.agent.delete(`${org()}/decks/${deck.id}`).expect(204);
    });
  });

  describe('studying', () => {
    let person: SignedIn;
    let deckId: string;
    let cards: string[];

    beforeAll(async () => {
      person = await member(t, orgId);
      await person.agent.patch('/api/v1/me/profile').send({ time_zone: 'Europe/Madrid' }).expect(200);
      deckId = (await person.agent.post(`${org()}/decks`).send({ title: 'Study' }).expect(201)).body.id;
      cards = [];
      for (const i of [1, 2, 3]) {
        cards.push(
          (
            await person.agent
              .post(`${org()}/decks/${deckId}/cards`)
              .send({ front_md: `front ${i}`, back_md: `back ${i}` })
              .expect(201)
          ).body.id,
        );
      }
    });

    it('reviews with SM-2 (the spec’s vectors), keeps the log, publishes flashcard.reviewed in the transaction', async () => {
      const grades = [5, 5, 4, 3, 2, 4, 5, 0, 1];
      const expected = [
        [1, 1, 2.6],
        [2, 6, 2.7],
        [3, 16, 2.7],
        [4, 43, 2.56],
        [0, 1, 2.24],
        [1, 1, 2.24],
        [2, 6, 2.34],
        [0, 1, 1.54],
        [0, 1, 1.3],
      ];
      const seen: number[][] = [];
      let last: { state: { reviews: number; lapses: number; due_on: string; due_at: string } } | null = null;
      for (const grade of grades) {
        const res = await person.agent.post(`${org()}/cards/${cards[0]}/reviews`).send({ grade }).expect(201);
        expect(res.body).toMatchObject({ card_id: cards[0], grade, scheduler: 'sm2' });
        seen.push([res.body.state.sm2.repetitions, res.body.state.sm2.interval_days, res.body.state.sm2.ease_factor]);
        last = res.body;
      }
      expect(seen).toEqual(expected);
      // Lapses: grades below 3 after a correct answer: 2, 0, 1.
      expect([last!.state.reviews, last!.state.lapses]).toEqual([9, 3]);
      // due_on = local date (Madrid) + 1; due_at = its start in Madrid.
      const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid' }).format(t.clock.now());
      const tomorrow = new Date(`${today}T12:00:00Z`);
      tomorrow.setUTCDate(tomorrow.getUTCDate() + 1);
      const dueOn = tomorrow.toISOString().slice(0, 10);
      expect(last!.state.due_on).toBe(dueOn);
      const offset = new Date(`${dueOn}T00:00:00Z`).getTime() - new Date(last!.state.due_at).getTime();
      expect([3_600_000, 7_200_000]).toContain(offset);

      const log = await t.db.query(
        `SELECT grade, scheduler, state_before IS NULL AS first FROM flashcard_reviews WHERE card_id = $1 ORDER BY reviewed_at, id`,
        [cards[0]],
      );
      expect(log.map((r: { grade: number }) => r.grade)).toEqual(grades);
      expect(log[0].first).toBe(true);
      const events = await t.db.query(
        `SELECT organization_id, actor_id, payload FROM domain_events WHERE name = 'flashcard.reviewed' AND actor_id = $1`,
        [person.user.id],
      );
      expect(events).toHaveLength(grades.length);
      expect(events[0]).toMatchObject({
        organization_id: orgId,
        payload: { user_id: person.user.id, card_id: cards[0], deck_id: deckId },
      });
    });

    it('a repeated client_review_id answers 200 with the first review and changes nothing', async () => {
      const clientId = randomUUID();
      const first = await person.agent
        .post(`${org()}/cards/${cards[1]}/reviews`)
        .send({ grade: 4, client_review_id: clientId, duration_ms: 1500 })
        .expect(201);
      const again = await person.agent
        .post(`${org()}/cards/${cards[1]}/reviews`)
        .send({ grade: 1, client_review_id: clientId })
        .expect(200);
      expect(again.body).toEqual(first.body);
      const rows = await t.db.query(`SELECT count(*)::int AS n FROM flashcard_reviews WHERE card_id = $1`, [cards[1]]);
      expect(rows[0].n).toBe(1);
    });

    it('concurrent reviews with one client_review_id write one review; concurrent reviews of a card all count', async () => {
      const clientId = randomUUID();
      const same = await Promise.all(
        [1, 2, 3, 4].map(() =>
          person.agent.post(`${org()}/cards/${cards[2]}/reviews`).send({ grade: 5, client_review_id: clientId }),
        ),
      );
      expect(same.map((r) => r.status).sort()).toEqual([200, 200, 200, 201]);
      expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
      const parallel = await Promise.all(
        [4, 4, 4].map((grade) => person.agent.post(`${org()}/cards/${cards[2]}/reviews`).send({ grade })),
      );
      expect(parallel.map((r) => r.status)).toEqual([201, 201, 201]);
      const [row] = await t.db.query(
        `SELECT s.reviews, (SELECT count(*)::int FROM flashcard_reviews r WHERE r.card_id = s.card_id) AS logged
         FROM flashcard_states s WHERE s.card_id = $1`,
        [cards[2]],
      );
      expect(row).toEqual({ reviews: 4, logged: 4 });
      // Undo for the queue test below: the card is new again.
      await t.db.query(`DELETE FROM flashcard_reviews WHERE card_id = $1`, [cards[2]]);
      await t.db.query(`DELETE FROM flashcard_states WHERE card_id = $1`, [cards[2]]);
    });

    it('422 for a grade outside 0..5, a bad duration or an unknown field; 404 for an unknown card', async () => {
      for (const body of [
        { grade: 6 },
        { grade: -1 },
        { grade: 2.5 },
        { grade: 3, duration_ms: 600001 },
        {},
        { grade: 3, at: 'x' },
      ]) {
        await person.agent.post(`${org()}/cards/${cards[2]}/reviews`).send(body).expect(422);
      }
      await person.agent.post(`${org()}/cards/${randomUUID()}/reviews`).send({ grade: 3 }).expect(404);
      await person.agent.post(`${org()}/cards/nope/reviews`).send({ grade: 3 }).expect(404);
    });

    it('the due queue: due cards first by due_at, then new cards up to the new cards left today', async () => {
      const before = await person.agent.get(`${org()}/due`).expect(200);
      // Two reviewed (first today), one new; the default is 20 new cards a day.
      expect(before.body).toMatchObject({ due_total: 0, new_total: 1, new_remaining_today: 18 });
      expect(before.body.items.map((c: { id: string }) => c.id)).toEqual([cards[2]]);
      await person.agent.put('/api/v1/me/flashcards/settings').send({ new_cards_per_day: 2 }).expect(200);
      const none = await person.agent.get(`${org()}/due`).expect(200);
      expect(none.body).toMatchObject({ items: [], due_total: 0, new_total: 1, new_remaining_today: 0 });

      // Two days later both reviewed cards are due (same due_at: by card id), and a new day allows new cards again.
      await advance(t, 2 * 86_400_000, person, editor, learner, stranger);
      const later = await person.agent.get(`${org()}/due?limit=2`).expect(200);
      expect(later.body.items.map((c: { id: string }) => c.id)).toEqual([cards[0], cards[1]].sort());
      expect(later.body).toMatchObject({ due_total: 2, new_total: 1, new_remaining_today: 2 });
      const all = await person.agent.get(`${org()}/due?deck_id=${deckId}`).expect(200);
      expect(all.body.items.map((c: { id: string }) => c.id)).toEqual([...[cards[0], cards[1]].sort(), cards[2]]);
      expect(all.body.items[0].state.sm2).not.toBeNull();
      expect(all.body.items[2].state).toBeNull();
      await person.agent.get(`${org()}/due?limit=101`).expect(422);
      await person.agent.get(`${org()}/due?limit=0`).expect(422);
      await person.agent.get(`${org()}/due?deck_id=${randomUUID()}`).expect(404);
    });

    it('course cards: studied by enrolled members only (403 not_enrolled), each with their own state', async () => {
      const courseCard = (await editor.agent.get(ed(course.id)).expect(200)).body.items[0].id;
      const refused = await stranger.agent.post(`${org()}/cards/${courseCard}/reviews`).send({ grade: 4 });
      expect([refused.status, refused.body.error.code]).toEqual([403, 'not_enrolled']);
      await learner.agent.post(`${org()}/cards/${courseCard}/reviews`).send({ grade: 4 }).expect(201);
      const deckId2 = (await editor.agent.get(ed(course.id)).expect(200)).body.items[0].deck_id;
      const mine = await learner.agent.get(`${org()}/decks/${deckId2}/cards`).expect(200);
      expect(mine.body.items.find((c: { id: string }) => c.id === courseCard).state.reviews).toBe(1);
      // Editing the card keeps the learners' states.
      await editor.agent
        .patch(`${ed(course.id)}/${courseCard}`)
        .send({ front_md: 'edited' })
        .expect(200);
      const after = await learner.agent.get(`${org()}/decks/${deckId2}/cards`).expect(200);
      expect(after.body.items.find((c: { id: string }) => c.id === courseCard).state.reviews).toBe(1);
      // Deleting it removes everyone's states and logs.
      await editor.agent.delete(`${ed(course.id)}/${courseCard}`).expect(204);
      await editor.agent.delete(`${ed(course.id)}/${courseCard}`).expect(404);
      const counted = await learner.agent.get(`${org()}/decks/${deckId2}`).expect(200);
      expect(counted.body.cards_count).toBe(3);
      const rows = await t.db.query(
        `SELECT (SELECT count(*)::int FROM flashcard_states WHERE card_id = $1) + (SELECT count(*)::int FROM flashcard_reviews WHERE card_id = $1) AS n`,
        [courseCard],
      );
      expect(rows[0].n).toBe(0);
    });

    it('settings: defaults, validation, and a change of scheduler replays the review log (history kept)', async () => {
      const fresh = await member(t, orgId);
      expect((await fresh.agent.get('/api/v1/me/flashcards/settings').expect(200)).body).toEqual({
        scheduler: 'sm2',
        desired_retention: 0.9,
        new_cards_per_day: 20,
        rescheduling: false,
      });
      for (const body of [
        { desired_retention: 0.69 },
        { desired_retention: 0.98 },
        { desired_retention: 0.905 },
        { new_cards_per_day: 201 },
        { new_cards_per_day: -1 },
        { scheduler: 'anki' },
        { scheduler: null },
      ]) {
        await fresh.agent.put('/api/v1/me/flashcards/settings').send(body).expect(422);
      }
      const edges = await fresh.agent
        .put('/api/v1/me/flashcards/settings')
        .send({ desired_retention: 0.97, new_cards_per_day: 200 })
        .expect(200);
      expect(edges.body).toEqual({
        scheduler: 'sm2',
        desired_retention: 0.97,
        new_cards_per_day: 200,
        rescheduling: false,
        rescheduled_cards: 0,
      });

      const logBefore = await t.db.query(`SELECT count(*)::int AS n FROM flashcard_reviews WHERE user_id = $1`, [
        person.user.id,
      ]);
      const toFsrs = await person.agent.put('/api/v1/me/flashcards/settings').send({ scheduler: 'fsrs' }).expect(200);
      expect(toFsrs.body).toMatchObject({
        scheduler: 'fsrs',
        desired_retention: 0.9,
        new_cards_per_day: 2,
        rescheduling: true,
        rescheduled_cards: 2,
      });
      await rescheduled(person);
      const cardsNow = await person.agent.get(`${org()}/decks/${deckId}/cards`).expect(200);
      const first = cardsNow.body.items.find((c: { id: string }) => c.id === cards[0]).state;
      expect(first).toMatchObject({ scheduler: 'fsrs', reviews: 9, lapses: 3, sm2: null });
      expect(first.fsrs.state).toMatch(/^(review|relearning)$/);
      expect(first.fsrs.retrievability).toBeGreaterThan(0);
      expect(first.fsrs.retrievability).toBeLessThanOrEqual(1);
      const logAfter = await t.db.query(`SELECT count(*)::int AS n FROM flashcard_reviews WHERE user_id = $1`, [
        person.user.id,
      ]);
      expect(logAfter).toEqual(logBefore);

      // A new review continues under FSRS.
      const next = await person.agent.post(`${org()}/cards/${cards[1]}/reviews`).send({ grade: 5 }).expect(201);
      expect(next.body.scheduler).toBe('fsrs');
      expect(next.body.state.reviews).toBe(2);

      // Retention under FSRS reschedules too; an unchanged value does not; back to SM-2 replays the same vectors.
      const stricter = await person.agent
        .put('/api/v1/me/flashcards/settings')
        .send({ desired_retention: 0.95 })
        .expect(200);
      expect(stricter.body.rescheduled_cards).toBe(2);
      await rescheduled(person);
      const same = await person.agent
        .put('/api/v1/me/flashcards/settings')
        .send({ desired_retention: 0.95 })
        .expect(200);
      expect(same.body.rescheduled_cards).toBe(0);
      await person.agent.put('/api/v1/me/flashcards/settings').send({ scheduler: 'sm2' }).expect(200);
      await rescheduled(person);
      const back = await person.agent.get(`${org()}/decks/${deckId}/cards`).expect(200);
      const replayed = back.body.items.find((c: { id: string }) => c.id === cards[0]).state;
      expect(replayed.sm2).toEqual({ repetitions: 0, ease_factor: 1.3, interval_days: 1 });
      expect([replayed.reviews, replayed.lapses, replayed.fsrs]).toEqual([9, 3, null]);
    });
  });
});
