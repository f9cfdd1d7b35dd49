import type { Locale } from '@/core/mail/mail-template';

/** Localized text. */
export type Text = Record<Locale, string>;

export interface SystemBadge {
  code: string;
  name: Text;
  description: Text;
  icon: string;
  /** Progress target, or null for badges without progress (5.2). */
  target: number | null;
}

/** The system badges of extensions-v2 5.2, in the order the list shows them. */
export const SYSTEM_BADGES: readonly SystemBadge[] = [
  b('first_lesson', 'Primera lección', 'First lesson', 'Completa tu primera lección', 'Complete your first lesson', 1),
  b('first_course', 'Primer curso', 'First course', 'Completa tu primer curso', 'Complete your first course', 1),
  b('five_courses', 'Cinco cursos', 'Five courses', 'Completa cinco cursos', 'Complete five courses', 5),
  b(
    'quiz_ace',
    'As del cuestionario',
    'Quiz ace',
    'Aprueba un cuestionario con 100',
    'Pass a quiz with a score of 100',
    null,
  ),
  b('exam_passed', 'Examen aprobado', 'Exam passed', 'Aprueba tu primer examen', 'Pass your first exam', 1),
  b('streak_7', 'Racha de 7 días', '7-day streak', 'Aprende 7 días seguidos', 'Learn 7 days in a row', 7),
  b('streak_30', 'Racha de 30 días', '30-day streak', 'Aprende 30 días seguidos', 'Learn 30 days in a row', 30),
  b('streak_100', 'Racha de 100 días', '100-day streak', 'Aprende 100 días seguidos', 'Learn 100 days in a row', 100),
  b('reviews_100', '100 repasos', '100 reviews', 'Repasa 100 tarjetas', 'Review 100 flashcards', 100),
  b('reviews_1000', '1 000 repasos', '1,000 reviews', 'Repasa 1 000 tarjetas', 'Review 1,000 flashcards', 1000),
  b('first_duel_win', 'Primera victoria', 'First duel win', 'Gana tu primer duelo', 'Win your first duel', 1),
  b('duels_10', 'Duelista', 'Ten duel wins', 'Gana 10 duelos', 'Win 10 duels', 10),
  b('level_10', 'Nivel 10', 'Level 10', 'Alcanza el nivel 10', 'Reach level 10', 4500),
  b(
    'challenge_podium',
    'En el podio',
    'On the podium',
    'Termina un desafío entre los tres primeros',
    'Finish a challenge in the top three',
    null,
  ),
];

function b(code: string, es: string, en: string, des: string, den: string, target: number | null): SystemBadge {
  return {
    code,
    name: { es, en },
    description: { es: des, en: den },
    icon: `badge-${code.replace(/_/g, '-')}`,
    target,
  };
}

/** Counted badges decided from a member's counts after a write: [code, count, threshold]. */
export const BADGE_THRESHOLDS: readonly [string, 'courses' | 'reviews' | 'duels_won', number][] = [
  ['first_course', 'courses', 1],
  ['five_courses', 'courses', 5],
  ['reviews_100', 'reviews', 100],
  ['reviews_1000', 'reviews', 1000],
  ['first_duel_win', 'duels_won', 1],
  ['duels_10', 'duels_won', 10],
];

export interface TitleDef {
  code: string;
  name: Text;
  requirement: { type: 'level' | 'badge'; value: number | string };
}

/** Titles of 5.3. */
export const TITLES: readonly TitleDef[] = [
  t('novice', 'Novato', 'Novice', 'level', 1),
  t('apprentice', 'Aprendiz', 'Apprentice', 'level', 5),
  t('scholar', 'Erudito', 'Scholar', 'level', 10),
  t('expert', 'Experto', 'Expert', 'level', 20),
  t('master', 'Maestro', 'Master', 'level', 35),
  t('legend', 'Leyenda', 'Legend', 'level', 50),
  t('marathoner', 'Maratonista', 'Marathoner', 'badge', 'streak_30'),
  t('memory_keeper', 'Guardián de la memoria', 'Memory keeper', 'badge', 'reviews_1000'),
  t('duelist', 'Duelista', 'Duelist', 'badge', 'duels_10'),
];

function t(code: string, es: string, en: string, type: 'level' | 'badge', value: number | string): TitleDef {
  return { code, name: { es, en }, requirement: { type, value } };
}

export interface MissionDef {
  code: string;
  period: 'day' | 'week';
  target: number;
  reward: number;
  title: Text;
  description: Text;
  counts: 'lessons_completed' | 'xp_learning' | 'reviews' | 'active_days' | 'plays';
}

/** The six missions of 5.4. */
export const MISSIONS: readonly MissionDef[] = [
  m(
    'daily_lesson',
    'day',
    1,
    10,
    'lessons_completed',
    'Lección del día',
    'Lesson of the day',
    'Completa 1 lección',
    'Complete 1 lesson',
  ),
  m(
    'daily_xp_50',
    'day',
    50,
    15,
    'xp_learning',
    '50 XP hoy',
    '50 XP today',
    'Gana 50 XP aprendiendo',
    'Earn 50 XP learning',
  ),
  m(
    'daily_reviews_10',
    'day',
    10,
    10,
    'reviews',
    '10 repasos',
    '10 reviews',
    'Repasa 10 tarjetas',
    'Review 10 flashcards',
  ),
  m(
    'weekly_lessons_5',
    'week',
    5,
    40,
    'lessons_completed',
    '5 lecciones',
    '5 lessons',
    'Completa 5 lecciones esta semana',
    'Complete 5 lessons this week',
  ),
  m(
    'weekly_active_5',
    'week',
    5,
    50,
    'active_days',
    '5 días activos',
    '5 active days',
    'Aprende 5 días esta semana',
    'Learn on 5 days this week',
  ),
  m(
    'weekly_play_3',
    'week',
    3,
    30,
    'plays',
    'A jugar',
    'Play time',
    'Termina 3 juegos o duelos',
    'Finish 3 games or duels',
  ),
];

function m(
  code: string,
  period: 'day' | 'week',
  target: number,
  reward: number,
  counts: MissionDef['counts'],
  es: string,
  en: string,
  des: string,
  den: string,
): MissionDef {
  return { code, period, target, reward, counts, title: { es, en }, description: { es: des, en: den } };
}
