import type { OrgRole } from '@/core/auth/tenancy';
import { defineMailTemplate, type Locale } from '@/core/mail/mail-template';

const ROLE_NAMES: Record<Locale, Record<OrgRole, string>> = {
  es: { owner: 'propietario', admin: 'administrador', teacher: 'docente', student: 'estudiante' },
  en: { owner: 'owner', admin: 'administrator', teacher: 'teacher', student: 'student' },
};

export interface InvitationMailParams {
  organizationName: string;
  role: OrgRole;
  /** `{web_url}/invitations/{token}`. */
  url: string;
  /** The inviter's display name, when they have one (never their email). */
  inviterName: string | null;
  expiresAt: Date;
}

const day = (d: Date): string => d.toISOString().slice(0, 10);

export const INVITATION = defineMailTemplate<InvitationMailParams>('invitations.invitation', {
  es: (p) => ({
    subject: `Invitación a ${p.organizationName}`,
    heading: `Te han invitado a ${p.organizationName}`,
    paragraphs: [
      p.inviterName
        ? `${p.inviterName} te invita a unirte a ${p.organizationName} como ${ROLE_NAMES.es[p.role]}.`
        : `Te invitan a unirte a ${p.organizationName} como ${ROLE_NAMES.es[p.role]}.`,
      'Abre la invitación para aceptarla. Si aún no tienes cuenta, la crearás con un código que te enviaremos a esta dirección.',
    ],
    button: { label: 'Ver la invitación', url: p.url },
    footer: `La invitación caduca el ${day(p.expiresAt)} (UTC). Si no esperabas este mensaje, ignóralo.`,
  }),
  en: (p) => ({
    subject: `Invitation to ${p.organizationName}`,
    heading: `You are invited to ${p.organizationName}`,
    paragraphs: [
      p.inviterName
        ? `${p.inviterName} invites you to join ${p.organizationName} as ${ROLE_NAMES.en[p.role]}.`
        : `You are invited to join ${p.organizationName} as ${ROLE_NAMES.en[p.role]}.`,
      "Open the invitation to accept it. If you don't have an account yet, you will create one with a code we send to this address.",
    ],
    button: { label: 'View the invitation', url: p.url },
    footer: `The invitation expires on ${day(p.expiresAt)} (UTC). If you did not expect this message, ignore it.`,
  }),
});

export const INVITATION_CODE = defineMailTemplate<{ code: string; organizationName: string }>(
  'invitations.invitation_code',
  {
    es: (p) => ({
      subject: `Tu código para unirte a ${p.organizationName}: ${p.code}`,
      heading: `Únete a ${p.organizationName}`,
      paragraphs: ['Escribe este código para aceptar la invitación:'],
      code: p.code,
      footer: 'El código caduca en 10 minutos. Si no lo has pedido tú, ignora este mensaje.',
    }),
    en: (p) => ({
      subject: `Your code to join ${p.organizationName}: ${p.code}`,
      heading: `Join ${p.organizationName}`,
      paragraphs: ['Enter this code to accept the invitation:'],
      code: p.code,
      footer: 'The code expires in 10 minutes. If you did not ask for it, ignore this message.',
    }),
  },
);
