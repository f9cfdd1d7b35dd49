import { defineMailTemplate } from '@/core/mail/mail-template';

const tenMinutesEs = 'El código caduca en 10 minutos. Si no lo has pedido tú, ignora este mensaje.';
const tenMinutesEn = 'The code expires in 10 minutes. If you did not ask for it, ignore this message.';

export const SIGN_IN_CODE = defineMailTemplate<{ code: string }>('auth.sign_in_code', {
  es: (p) => ({
    subject: `Tu código de acceso: ${p.code}`,
    heading: 'Tu código de acceso',
    paragraphs: ['Escribe este código para entrar en la plataforma:'],
    code: p.code,
    footer: tenMinutesEs,
  }),
  en: (p) => ({
    subject: `Your sign-in code: ${p.code}`,
    heading: 'Your sign-in code',
    paragraphs: ['Enter this code to sign in to the platform:'],
    code: p.code,
    footer: tenMinutesEn,
  }),
});

export const STEP_UP_CODE = defineMailTemplate<{ code: string }>('auth.step_up_code', {
  es: (p) => ({
    subject: `Confirma que eres tú: ${p.code}`,
    heading: 'Confirma que eres tú',
    paragraphs: ['Vas a hacer un cambio sensible en tu cuenta. Escribe este código para confirmarlo:'],
    code: p.code,
    footer: tenMinutesEs,
  }),
  en: (p) => ({
    subject: `Confirm it is you: ${p.code}`,
    heading: 'Confirm it is you',
    paragraphs: ['You are about to make a sensitive change to your account. Enter this code to confirm it:'],
    code: p.code,
    footer: tenMinutesEn,
  }),
});

export const EMAIL_CHANGE_CODE = defineMailTemplate<{ code: string }>('auth.email_change_code', {
  es: (p) => ({
    subject: `Confirma tu nueva dirección: ${p.code}`,
    heading: 'Confirma tu nueva dirección de correo',
    paragraphs: ['Alguien ha pedido usar esta dirección en su cuenta. Si has sido tú, escribe este código:'],
    code: p.code,
    footer: tenMinutesEs,
  }),
  en: (p) => ({
    subject: `Confirm your new address: ${p.code}`,
    heading: 'Confirm your new email address',
    paragraphs: ['Someone asked to use this address for their account. If it was you, enter this code:'],
    code: p.code,
    footer: tenMinutesEn,
  }),
});

export const EMAIL_CHANGED_NOTICE = defineMailTemplate<{ newEmailMasked: string }>('auth.email_changed', {
  es: (p) => ({
    subject: 'Tu dirección de correo ha cambiado',
    heading: 'Tu dirección de correo ha cambiado',
    paragraphs: [
      `La dirección de tu cuenta es ahora ${p.newEmailMasked}. Las demás sesiones se han cerrado.`,
      'Si no has hecho este cambio, contacta con el soporte de tu institución de inmediato.',
    ],
  }),
  en: (p) => ({
    subject: 'Your email address has changed',
    heading: 'Your email address has changed',
    paragraphs: [
      `Your account's address is now ${p.newEmailMasked}. Your other sessions were signed out.`,
      "If you did not make this change, contact your institution's support right away.",
    ],
  }),
});

export const TWO_FACTOR_ENABLED = defineMailTemplate<Record<string, never>>('auth.two_factor_enabled', {
  es: () => ({
    subject: 'Verificación en dos pasos activada',
    heading: 'Has activado la verificación en dos pasos',
    paragraphs: [
      'A partir de ahora, al entrar te pediremos un código de tu aplicación de autenticación.',
      'Guarda tus códigos de recuperación en un lugar seguro. Si no has sido tú, contacta con el soporte.',
    ],
  }),
  en: () => ({
    subject: 'Two-factor authentication enabled',
    heading: 'You enabled two-factor authentication',
    paragraphs: [
      'From now on, signing in asks for a code from your authenticator app.',
      'Keep your recovery codes somewhere safe. If this was not you, contact support.',
    ],
  }),
});

export const TWO_FACTOR_DISABLED = defineMailTemplate<Record<string, never>>('auth.two_factor_disabled', {
  es: () => ({
    subject: 'Verificación en dos pasos desactivada',
    heading: 'Has desactivado la verificación en dos pasos',
    paragraphs: [
      'Tu cuenta ya no pide un segundo código al entrar. Si no has sido tú, contacta con el soporte de inmediato.',
    ],
  }),
  en: () => ({
    subject: 'Two-factor authentication disabled',
    heading: 'You disabled two-factor authentication',
    paragraphs: [
      'Your account no longer asks for a second code at sign-in. If this was not you, contact support right away.',
    ],
  }),
});
