import type { Credential } from '@/core/auth/credential';
import { EditorService } from '@/modules/learning/editor';
import { FlashcardsService } from '@/modules/practice/flashcards';
import { GamesService } from '@/modules/practice/games';
import { NotesService } from '@/modules/learning/notes';
import { OrganizationsService } from '@/modules/tenancy/organizations';
import { ProgressService } from '@/modules/learning/progress';
import { UsersService } from '@/modules/identity/users';
import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * The practice areas' SQL on the embedded PostgreSQL (PGlite, PostgreSQL 18) as well as on the server (15): the
 * queue, a review under the advisory lock, a scheduler replay, notes with the accent-insensitive search and the
 * export, a game with its snapshot of questions. Driven through the services (no mail to sign in with).
 */
describe('practice on the embedded database', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ embedded: true, redis: false, smtp: false });
  }, 240_000);
  afterAll(() => t.close());

  it('flashcards, notes and games work on PGlite', async () => {
    const users = t.app.get(UsersService);
    const { user: author } = await users.findOrCreate('author@practice.test', 'en');
    const { user: learner } = await users.findOrCreate('learner@practice.test', 'en');
    const editor = t.app.get(EditorService);
    const course = await editor.create({ title: 'Álgebra', language: 'es', level: 'beginner' }, author.id);
    const lesson = await editor.createLesson(course.id, {
      title: 'Ecuaciones',
      quiz: {
        passing_score: 50,
        questions: Array.from({ length: 5 }, (_, i) => ({
          prompt: `P${i}?`,
          kind: 'single' as const,
          options: [
            { text: 'sí', correct: true },
            { text: 'no', correct: false },
          ],
        })),
      },
    });
    await editor.publish(course.id, author.id);
    const credential: Credential = {
      kind: 'session',
      userId: author.id,
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
      .create(credential, { name: 'Practice org' }, undefined);
    await t.app.get(OrganizationsService).addMember(organization.id, learner.id, 'student', null);
    const member = { organizationId: organization.id, userId: learner.id, role: 'student' as const };
    await t.app.get(ProgressService).enroll(member, course.id);

    const cards = t.app.get(FlashcardsService);
    const courseCard = await cards.editorCreate(course.id, {
      front_md: '**x** = 2',
      back_md: 'sí',
      lesson_id: lesson.id,
    });
    const deck = await cards.createDeck(member, { title: 'Mío' });
    const mine = await cards.addCard(member, deck.id, { front_md: 'uno', back_md: 'one' });
    const queue = await cards.due(member, { limit: 20 });
    expect(queue).toMatchObject({ due_total: 0, new_total: 2, new_remaining_today: 20 });
    expect(queue.items.map((c) => c.id)).toEqual([courseCard.id, mine.id]);
    const reviewed = await cards.review(member, mine.id, { grade: 5 });
    expect(reviewed.review.state.sm2).toEqual({ repetitions: 1, ease_factor: 2.6, interval_days: 1 });
    const switched = await cards.updateSettings(learner.id, { scheduler: 'fsrs' });
    expect(switched.rescheduled_cards).toBe(1);
    expect((await cards.due(member, { limit: 20 })).new_remaining_today).toBe(19);

    const notes = t.app.get(NotesService);
    await notes.save(member, course.id, lesson.id, { content_md: 'Ecuación de *segundo* grado' });
    const found = await notes.list(member, { q: 'ECUACION', limit: 50, offset: 0 });
    expect(found.items.map((n) => n.excerpt)).toEqual(['Ecuación de segundo grado']);
    const file = await notes.export(member, {});
    expect(file.body).toBe('# Álgebra\n\n## 1. Ecuaciones\n\nEcuación de *segundo* grado\n');

    const games = t.app.get(GamesService);
    const game = await games.start(member, { mode: 'risk', course_id: course.id });
    const result = await games.answer(member, game.id, {
      question_id: game.current_question!.id,
      option_ids: [],
      wager: 10,
    });
    expect([result.correct, result.game.points]).toEqual([false, 90]);
    const board = await games.leaderboard(member, { mode: 'risk', period: 'all', limit: 50, offset: 0 });
    expect(board.total).toBe(0);
  });
});
