import { defineMailTemplate, type Locale, type MailTemplate } from '@/core/mail/mail-template';
import type { Category, EmailCategory } from './notification-categories';

/** What a notification says, written in the recipient's language when it is created (extensions-v2 13.1). */
export interface Written {
  title: string;
  body: string;
}

/** The facts each category's text is written from (ids and figures; names only of courses and organizations). */
export type ContentParams =
  | { category: 'course_complete'; course_title: string }
  | { category: 'badge_earned'; badge_code: string }
  | { category: 'streak_reminder' }
  | {
      category: 'weekly_summary';
      week: string;
      streak: number;
      organizations: { name: string; xp: number; lessons: number; reviews: number; in_progress: number }[];
    }
  | { category: 'new_course'; course_title: string }
  | { category: 'duels'; kind: 'challenged' | 'accepted' | 'declined' }
  | { category: 'social'; kind: 'comment' | 'removed' | 'warned' }
  | { category: 'exams'; kind: 'reviewed' | 'closed'; passed: boolean; voided: boolean }
  | { category: 'support' }
  | { category: 'reports'; status: 'completed' | 'failed' };

type Writer = (p: ContentParams) => Written;

const summaryLine = (
  locale: Locale,
  o: { name: string; xp: number; lessons: number; reviews: number; in_progress: number },
): string =>
  locale === 'es'
    ? `${o.name}: ${o.xp} XP, ${o.lessons} lecciones, ${o.reviews} repasos, ${o.in_progress} cursos en curso`
    : `${o.name}: ${o.xp} XP, ${o.lessons} lessons, ${o.reviews} reviews, ${o.in_progress} courses in progress`;

const es: Writer = (p) => {
  switch (p.category) {
    case 'course_complete':
      return { title: 'Curso completado', body: `Has completado «${p.course_title}». ¡Enhorabuena!` };
    case 'badge_earned':
      return { title: 'Nueva insignia', body: `Has conseguido la insignia ${p.badge_code}.` };
    case 'streak_reminder':
      return {
        title: 'No pierdas tu racha',
        body: 'Aún no has estudiado hoy. Dedica unos minutos para mantener tu racha.',
      };
    case 'weekly_summary':
      return {
        title: `Tu resumen semanal (${p.week})`,
        body: [`Racha actual: ${p.streak} días.`, ...p.organizations.map((o) => summaryLine('es', o))].join('\n'),
      };
    case 'new_course':
      return { title: 'Nuevo curso disponible', body: `Ya puedes empezar «${p.course_title}».` };
    case 'duels':
      return p.kind === 'challenged'
        ? { title: 'Te han retado a un duelo', body: 'Acepta o rechaza el reto en las próximas 24 horas.' }
        : p.kind === 'accepted'
          ? { title: 'Reto aceptado', body: 'Han aceptado tu reto. ¡Empieza el duelo!' }
          : { title: 'Reto rechazado', body: 'Han rechazado tu reto a un duelo.' };
    case 'social':
      return p.kind === 'comment'
        ? { title: 'Nuevo comentario', body: 'Han comentado tu publicación.' }
        : p.kind === 'removed'
          ? { title: 'Contenido retirado', body: 'Un moderador ha retirado tu contenido.' }
          : { title: 'Aviso de moderación', body: 'Un moderador te ha enviado un aviso sobre tu contenido.' };
    case 'exams':
      return p.kind === 'closed'
        ? { title: 'Examen cerrado', body: 'Tu examen se cerró al acabar el tiempo y se ha corregido.' }
        : {
            title: 'Examen revisado',
            body: p.voided
              ? 'Tu examen ha sido anulado tras la revisión.'
              : p.passed
                ? 'Tu examen ha sido revisado: aprobado.'
                : 'Tu examen ha sido revisado: no aprobado.',
          };
    case 'support':
      return { title: 'Respuesta de soporte', body: 'El equipo de soporte ha respondido a tu consulta.' };
    case 'reports':
      return p.status === 'completed'
        ? { title: 'Informe listo', body: 'Tu informe está listo para descargar.' }
        : { title: 'Informe fallido', body: 'No se ha podido generar tu informe.' };
  }
};

const en: Writer = (p) => {
  switch (p.category) {
    case 'course_complete':
      return { title: 'Course completed', body: `You completed “${p.course_title}”. Congratulations!` };
    case 'badge_earned':
      return { title: 'New badge', body: `You earned the badge ${p.badge_code}.` };
    case 'streak_reminder':
      return {
        title: 'Keep your streak',
        body: 'You have not studied today yet. A few minutes keep your streak going.',
      };
    case 'weekly_summary':
      return {
        title: `Your weekly summary (${p.week})`,
        body: [`Current streak: ${p.streak} days.`, ...p.organizations.map((o) => summaryLine('en', o))].join('\n'),
      };
    case 'new_course':
      return { title: 'New course available', body: `You can now start “${p.course_title}”.` };
    case 'duels':
      return p.kind === 'challenged'
        ? { title: 'You were challenged to a duel', body: 'Accept or decline within 24 hours.' }
        : p.kind === 'accepted'
          ? { title: 'Challenge accepted', body: 'Your challenge was accepted. The duel is on!' }
          : { title: 'Challenge declined', body: 'Your duel challenge was declined.' };
    case 'social':
      return p.kind === 'comment'
        ? { title: 'New comment', body: 'Someone commented on your post.' }
        : p.kind === 'removed'
          ? { title: 'Content removed', body: 'A moderator removed your content.' }
          : { title: 'Moderator warning', body: 'A moderator sent you a warning about your content.' };
    case 'exams':
      return p.kind === 'closed'
        ? { title: 'Exam closed', body: 'Your exam closed when time ran out and was graded.' }
        : {
            title: 'Exam reviewed',
            body: p.voided
              ? 'Your exam was voided after review.'
              : p.passed
                ? 'Your exam was reviewed: passed.'
                : 'Your exam was reviewed: not passed.',
          };
    case 'support':
      return { title: 'Support replied', body: 'The support team replied to your request.' };
    case 'reports':
      return p.status === 'completed'
        ? { title: 'Report ready', body: 'Your report is ready to download.' }
        : { title: 'Report failed', body: 'Your report could not be generated.' };
  }
};

export function write(locale: Locale, params: ContentParams): Written {
  return locale === 'en' ? en(params) : es(params);
}

/** What every notification email is made of: the written text, the link, the unsubscribe link of its category. */
export interface NotificationMail {
  title: string;
  body: string;
  url: string;
  unsubscribeUrl: string;
  settingsUrl: string;
}

const template = (name: EmailCategory, esButton: string, enButton: string): MailTemplate<NotificationMail> =>
  defineMailTemplate<NotificationMail>(`notifications.${name}`, {
    es: (p) => ({
      subject: p.title,
      heading: p.title,
      paragraphs: p.body.split('\n'),
      button: { label: esButton, url: p.url },
      footer:
        `Recibes este correo por tus preferencias de notificaciones (${p.settingsUrl}). ` +
        `Darte de baja de este tipo de correo: ${p.unsubscribeUrl}`,
    }),
    en: (p) => ({
      subject: p.title,
      heading: p.title,
      paragraphs: p.body.split('\n'),
      button: { label: enButton, url: p.url },
      footer:
        `You receive this email because of your notification settings (${p.settingsUrl}). ` +
        `Unsubscribe from emails like this: ${p.unsubscribeUrl}`,
    }),
  });

/** The five templates of 26.5, one per email category. */
export const NOTIFICATION_MAILS: Readonly<Record<EmailCategory, MailTemplate<NotificationMail>>> = {
  course_complete: template('course_complete', 'Ver el curso', 'View the course'),
  badge_earned: template('badge_earned', 'Ver mis insignias', 'View my badges'),
  streak_reminder: template('streak_reminder', 'Estudiar ahora', 'Study now'),
  weekly_summary: template('weekly_summary', 'Abrir la plataforma', 'Open the platform'),
  new_course: template('new_course', 'Ver el curso', 'View the course'),
};

/** The category names of the unsubscribe page. */
export const CATEGORY_LABELS: Readonly<Record<Locale, Record<EmailCategory | 'all', string>>> = {
  es: {
    course_complete: 'cursos completados',
    badge_earned: 'insignias conseguidas',
    streak_reminder: 'recordatorios de racha',
    weekly_summary: 'resumen semanal',
    new_course: 'cursos nuevos',
    all: 'todos los correos de notificaciones y novedades',
  },
  en: {
    course_complete: 'completed courses',
    badge_earned: 'badges earned',
    streak_reminder: 'streak reminders',
    weekly_summary: 'weekly summary',
    new_course: 'new courses',
    all: 'every notification and product news email',
  },
};

export type { Category };
