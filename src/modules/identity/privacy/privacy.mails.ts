import { defineMailTemplate } from '@/core/mail/mail-template';

/** The transactional emails of privacy (extensions-v2 17.3, 17.5, 26.5). */

const day = (d: Date): string => d.toISOString().slice(0, 10);
const minute = (d: Date): string => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

export const EXPORT_READY = defineMailTemplate<{ url: string; expiresAt: Date }>('privacy.export_ready', {
  es: (p) => ({
    subject: 'Tu copia de datos está lista',
    heading: 'Tu copia de datos está lista',
    paragraphs: [
      'Hemos preparado el archivo con tus datos personales que pediste.',
      'Descárgalo desde tu configuración de privacidad; te pediremos que confirmes que eres tú.',
    ],
    button: { label: 'Ir a privacidad', url: p.url },
    footer: `El archivo se borra el ${day(p.expiresAt)} (UTC).`,
  }),
  en: (p) => ({
    subject: 'Your data export is ready',
    heading: 'Your data export is ready',
    paragraphs: [
      'The file with your personal data that you asked for is ready.',
      'Download it from your privacy settings; we will ask you to confirm it is you.',
    ],
    button: { label: 'Go to privacy', url: p.url },
    footer: `The file is deleted on ${day(p.expiresAt)} (UTC).`,
  }),
});

export const ERASURE_SCHEDULED = defineMailTemplate<{ url: string; scheduledFor: Date }>('privacy.erasure_scheduled', {
  es: (p) => ({
    subject: 'Tu cuenta se borrará en 14 días',
    heading: 'Has pedido borrar tu cuenta',
    paragraphs: [
      `Tu cuenta y tus datos personales se borrarán el ${minute(p.scheduledFor)}.`,
      'Hasta entonces tu cuenta funciona con normalidad y puedes cancelar el borrado desde tu configuración de privacidad.',
    ],
    button: { label: 'Cancelar el borrado', url: p.url },
    footer: 'Si no lo has pedido tú, entra y cancélalo cuanto antes.',
  }),
  en: (p) => ({
    subject: 'Your account will be erased in 14 days',
    heading: 'You asked to erase your account',
    paragraphs: [
      `Your account and personal data will be erased on ${minute(p.scheduledFor)}.`,
      'Until then your account works as usual and you can cancel the erasure from your privacy settings.',
    ],
    button: { label: 'Cancel the erasure', url: p.url },
    footer: 'If you did not ask for this, sign in and cancel it right away.',
  }),
});

export const ERASURE_REMINDER = defineMailTemplate<{ url: string; scheduledFor: Date }>('privacy.erasure_reminder', {
  es: (p) => ({
    subject: 'Tu cuenta se borrará mañana',
    heading: 'Tu cuenta se borrará mañana',
    paragraphs: [
      `El borrado que pediste se hará el ${minute(p.scheduledFor)}.`,
      'Aún puedes cancelarlo desde tu configuración de privacidad.',
    ],
    button: { label: 'Cancelar el borrado', url: p.url },
  }),
  en: (p) => ({
    subject: 'Your account will be erased tomorrow',
    heading: 'Your account will be erased tomorrow',
    paragraphs: [
      `The erasure you asked for happens on ${minute(p.scheduledFor)}.`,
      'You can still cancel it from your privacy settings.',
    ],
    button: { label: 'Cancel the erasure', url: p.url },
  }),
});

export const ERASURE_CANCELLED = defineMailTemplate<Record<string, never>>('privacy.erasure_cancelled', {
  es: () => ({
    subject: 'Has cancelado el borrado de tu cuenta',
    heading: 'Borrado cancelado',
    paragraphs: ['Tu cuenta no se borrará. No tienes que hacer nada más.'],
    footer: 'Si no lo has cancelado tú, revisa las sesiones abiertas de tu cuenta.',
  }),
  en: () => ({
    subject: 'You cancelled the erasure of your account',
    heading: 'Erasure cancelled',
    paragraphs: ['Your account will not be erased. There is nothing else to do.'],
    footer: 'If you did not cancel it, review the open sessions of your account.',
  }),
});

export const ERASURE_COMPLETED = defineMailTemplate<Record<string, never>>('privacy.erasure_completed', {
  es: () => ({
    subject: 'Tu cuenta se ha borrado',
    heading: 'Tu cuenta se ha borrado',
    paragraphs: [
      'Hemos borrado tu cuenta y tus datos personales, como pediste.',
      'Los certificados emitidos siguen pudiendo verificarse, sin tu nombre salvo que pidieras conservarlo. Puedes volver a registrarte con esta dirección cuando quieras, como una cuenta nueva.',
    ],
  }),
  en: () => ({
    subject: 'Your account was erased',
    heading: 'Your account was erased',
    paragraphs: [
      'We erased your account and your personal data, as you asked.',
      'Issued certificates can still be verified, without your name unless you chose to keep it. You can sign up again with this address whenever you like, as a new account.',
    ],
  }),
});

export const GUARDIAN_CONSENT_REQUEST = defineMailTemplate<{
  learnerName: string | null;
  url: string;
  expiresAt: Date;
}>('privacy.guardian_consent_request', {
  es: (p) => ({
    subject: 'Te piden tu consentimiento como tutor legal',
    heading: 'Consentimiento de tutor legal',
    paragraphs: [
      `${p.learnerName ?? 'Un menor'} te ha indicado como su madre, padre o tutor legal en nuestra plataforma de aprendizaje.`,
      'Para que pueda aprender (inscribirse en cursos, hacer cuestionarios y exámenes) necesitamos tu consentimiento. Abre el enlace para ver los detalles y decidir.',
    ],
    button: { label: 'Ver y decidir', url: p.url },
    footer: `El enlace caduca el ${day(p.expiresAt)} (UTC). Si no conoces a esta persona, ignora este mensaje.`,
  }),
  en: (p) => ({
    subject: 'Your consent as a guardian is requested',
    heading: 'Guardian consent',
    paragraphs: [
      `${p.learnerName ?? 'A minor'} named you as their parent or legal guardian on our learning platform.`,
      'They need your consent to learn (enroll in courses, take quizzes and exams). Open the link to see the details and decide.',
    ],
    button: { label: 'Review and decide', url: p.url },
    footer: `The link expires on ${day(p.expiresAt)} (UTC). If you do not know this person, ignore this message.`,
  }),
});

export const GUARDIAN_CONSENT_GRANTED = defineMailTemplate<{ learnerName: string | null; revokeUrl: string }>(
  'privacy.guardian_consent_granted',
  {
    es: (p) => ({
      subject: 'Has dado tu consentimiento',
      heading: 'Consentimiento registrado',
      paragraphs: [
        `Has dado tu consentimiento para que ${p.learnerName ?? 'el menor'} use la plataforma de aprendizaje.`,
        'Puedes retirarlo en cualquier momento con el enlace de abajo (válido durante un año).',
      ],
      button: { label: 'Retirar el consentimiento', url: p.revokeUrl },
    }),
    en: (p) => ({
      subject: 'You gave your consent',
      heading: 'Consent recorded',
      paragraphs: [
        `You consented to ${p.learnerName ?? 'the minor'} using the learning platform.`,
        'You can withdraw it at any time with the link below (valid for one year).',
      ],
      button: { label: 'Withdraw consent', url: p.revokeUrl },
    }),
  },
);
