import type { QuizInputDto } from '@/modules/learning/editor';
import { FlashcardsService } from '@/modules/practice/flashcards';
import { GamesService } from '@/modules/practice/games';
import { NotesService } from '@/modules/learning/notes';
import { ProgressService } from '@/modules/learning/progress';
import type { OrgFixture } from '../support/tenancy';
import type { TestApp } from '../support/test-app';
import { makeCourse } from './learning.routes';
import { ALL_ROLES, type ScopedRoute } from './route';

const base = (o: OrgFixture): string => `/api/v1/organizations/${o.id}`;
const student = (o: OrgFixture) => ({
  organizationId: o.id,
  userId: o.people.student.user.id,
  role: 'student' as const,
});

const FIVE: QuizInputDto = {
  passing_score: 50,
  questions: Array.from({ length: 5 }, (_, i) => ({
    prompt: `Practice ${i + 1}?`,
    kind: 'single' as const,
    options: [
      { text: 'yes', correct: true },
      { text: 'no', correct: false },
    ],
  })),
};

/**
 * Everything the student needs, once per organization: a course with a 5-question quiz they are enrolled in, a note
 * on its lesson, personal decks with cards, a game in progress. Ids under `o.ids.practice*`.
 */
async function practice(t: TestApp, o: OrgFixture): Promise<void> {
  if (o.ids.practiceCourse) return;
  const course = await makeCourse(t, o.people.owner.user.id, {
    title: `Practice ${o.id.slice(0, 8)}`,
    lessons: [{ title: 'Practice lesson', quiz: FIVE }],
  });
  o.ids.practiceCourse = course.id;
  o.ids.practiceLesson = course.lessons[0].id;
  const me = student(o);
  await t.app.get(ProgressService).enroll(me, course.id);
  await t.app.get(NotesService).save(me, course.id, course.lessons[0].id, { content_md: 'My note' });
  const cards = t.app.get(FlashcardsService);
  for (const key of ['deck', 'dropDeck']) {
    o.ids[`practice_${key}`] = (await cards.createDeck(me, { title: key })).id;
  }
  for (const key of ['card', 'dropCard']) {
    o.ids[`practice_${key}`] = (await cards.addCard(me, o.ids.practice_deck, { front_md: key, back_md: 'b' })).id;
  }
  const game = await t.app.get(GamesService).start(me, { mode: 'survival', course_id: course.id });
  o.ids.practiceGame = game.id;
  o.ids.practiceQuestion = game.current_question!.id;
}

const deck = (o: OrgFixture): string => `${base(o)}/flashcards/decks/${o.ids.practice_deck}`;
const note = (o: OrgFixture): string =>
  `${base(o)}/courses/${o.ids.practiceCourse}/lessons/${o.ids.practiceLesson}/note`;
const game = (o: OrgFixture): string => `${base(o)}/games/${o.ids.practiceGame}`;

/** Flashcards (6.5), notes (10) and games (7.2): every member may practise; everything is the caller's own. */
export const practiceRoutes: ScopedRoute[] = [
  {
    name: 'flashcard due queue',
    method: 'get',
    path: (o) => `${base(o)}/flashcards/due`,
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  {
    name: 'review a flashcard',
    method: 'post',
    path: (o) => `${base(o)}/flashcards/cards/${o.ids.practice_card}/reviews`,
    body: () => ({ grade: 4 }),
    roles: ALL_ROLES,
    ok: 201,
    setup: practice,
  },
  {
    name: 'flashcard decks',
    method: 'get',
    path: (o) => `${base(o)}/flashcards/decks`,
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  {
    name: 'create a flashcard deck',
    method: 'post',
    path: (o) => `${base(o)}/flashcards/decks`,
    body: () => ({ title: 'New deck' }),
    roles: ALL_ROLES,
    ok: 201,
  },
  { name: 'a flashcard deck', method: 'get', path: deck, roles: ALL_ROLES, ok: 200, setup: practice },
  {
    name: 'rename a flashcard deck',
    method: 'patch',
    path: deck,
    body: () => ({ title: 'Renamed' }),
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  {
    name: 'delete a flashcard deck',
    method: 'delete',
    path: (o) => `${base(o)}/flashcards/decks/${o.ids.practice_dropDeck}`,
    roles: ALL_ROLES,
    ok: 204,
    setup: practice,
  },
  {
    name: 'cards of a deck',
    method: 'get',
    path: (o) => `${deck(o)}/cards`,
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  {
    name: 'add a card',
    method: 'post',
    path: (o) => `${deck(o)}/cards`,
    body: () => ({ front_md: 'f', back_md: 'b' }),
    roles: ALL_ROLES,
    ok: 201,
    setup: practice,
  },
  {
    name: 'change a card',
    method: 'patch',
    path: (o) => `${deck(o)}/cards/${o.ids.practice_card}`,
    body: () => ({ back_md: 'changed' }),
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  {
    name: 'delete a card',
    method: 'delete',
    path: (o) => `${deck(o)}/cards/${o.ids.practice_dropCard}`,
    roles: ALL_ROLES,
    ok: 204,
    setup: practice,
  },
  { name: 'a lesson note', method: 'get', path: note, roles: ALL_ROLES, ok: 200, setup: practice },
  {
    name: 'save a lesson note',
    method: 'put',
    path: note,
    body: () => ({ content_md: 'Saved again' }),
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  { name: 'notes', method: 'get', path: (o) => `${base(o)}/notes`, roles: ALL_ROLES, ok: 200, setup: practice },
  {
    name: 'notes export',
    method: 'get',
    path: (o) => `${base(o)}/notes/export`,
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  { name: 'delete a lesson note', method: 'delete', path: note, roles: ALL_ROLES, ok: 204, setup: practice },
  { name: 'a game', method: 'get', path: game, roles: ALL_ROLES, ok: 200, setup: practice },
  {
    name: 'answer a game question',
    method: 'post',
    path: (o) => `${game(o)}/answers`,
    body: (o) => ({ question_id: o.ids.practiceQuestion, option_ids: [] }),
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  {
    name: 'abandon a game',
    method: 'post',
    path: (o) => `${game(o)}/abandon`,
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  { name: 'games', method: 'get', path: (o) => `${base(o)}/games`, roles: ALL_ROLES, ok: 200, setup: practice },
  {
    name: 'game leaderboard',
    method: 'get',
    path: (o) => `${base(o)}/games/leaderboard?mode=survival`,
    roles: ALL_ROLES,
    ok: 200,
    setup: practice,
  },
  {
    name: 'start a game',
    method: 'post',
    path: (o) => `${base(o)}/games`,
    body: (o) => ({ mode: 'risk', course_id: o.ids.practiceCourse }),
    roles: ALL_ROLES,
    ok: 201,
    setup: practice,
  },
];
