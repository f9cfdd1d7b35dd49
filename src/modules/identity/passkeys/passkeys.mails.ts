import { defineMailTemplate } from '@/core/mail/mail-template';

/** Security notices of the passkeys area: a passkey added, removed, or disabled because it was cloned. */

export const PASSKEY_ADDED = defineMailTemplate<{ passkeyName: string }>('passkeys.added', {
  es: (p) => ({
    subject: 'Se ha añadido una llave de acceso a tu cuenta',
    heading: 'Nueva llave de acceso',
    paragraphs: [
      `Se ha añadido la llave de acceso «${p.passkeyName}» a tu cuenta. Ya puedes entrar con ella sin código.`,
      'Si no has sido tú, elimínala en Seguridad y contacta con el soporte de tu institución.',
    ],
  }),
  en: (p) => ({
    subject: 'A passkey was added to your account',
    heading: 'New passkey',
    paragraphs: [
      `The passkey "${p.passkeyName}" was added to your account. You can now sign in with it without a code.`,
      "If this was not you, remove it under Security and contact your institution's support.",
    ],
  }),
});

export const PASSKEY_REMOVED = defineMailTemplate<{ passkeyName: string }>('passkeys.removed', {
  es: (p) => ({
    subject: 'Se ha eliminado una llave de acceso de tu cuenta',
    heading: 'Llave de acceso eliminada',
    paragraphs: [
      `La llave de acceso «${p.passkeyName}» ya no sirve para entrar en tu cuenta.`,
      'Si no has sido tú, contacta con el soporte de tu institución de inmediato.',
    ],
  }),
  en: (p) => ({
    subject: 'A passkey was removed from your account',
    heading: 'Passkey removed',
    paragraphs: [
      `The passkey "${p.passkeyName}" can no longer be used to sign in to your account.`,
      "If this was not you, contact your institution's support right away.",
    ],
  }),
});

export const PASSKEY_CLONE_DETECTED = defineMailTemplate<{ passkeyName: string }>('passkeys.clone_detected', {
  es: (p) => ({
    subject: 'Hemos desactivado una llave de acceso de tu cuenta',
    heading: 'Llave de acceso desactivada',
    paragraphs: [
      `La llave de acceso «${p.passkeyName}» se ha usado desde un dispositivo que parece una copia del original, ` +
        'así que la hemos desactivado.',
      'Elimínala y añade una nueva desde un dispositivo de confianza. Si no reconoces este acceso, contacta con el ' +
        'soporte de tu institución.',
    ],
  }),
  en: (p) => ({
    subject: 'We disabled a passkey on your account',
    heading: 'Passkey disabled',
    paragraphs: [
      `The passkey "${p.passkeyName}" was used from a device that looks like a copy of the original, so we ` +
        'disabled it.',
      "Remove it and add a new one from a device you trust. If you do not recognise this, contact your institution's " +
        'support.',
    ],
  }),
});
