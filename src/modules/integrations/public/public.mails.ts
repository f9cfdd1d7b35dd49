import { defineMailTemplate } from '@/core/mail/mail-template';

export interface ContactMail {
  kind: 'contact' | 'demo';
  name: string;
  email: string;
  lines: string[];
  message: string | null;
}

/** To `CONTACT_INBOX` only, never to the sender (which would make the form a relay for spam). */
export const CONTACT_REQUEST = defineMailTemplate<ContactMail>('public.contact_request', {
  es: (p) => ({
    subject: p.kind === 'demo' ? `Solicitud de demo: ${p.name}` : `Mensaje de contacto: ${p.name}`,
    heading: p.kind === 'demo' ? 'Nueva solicitud de demo' : 'Nuevo mensaje de contacto',
    paragraphs: [`De: ${p.name} <${p.email}>`, ...p.lines, ...(p.message ? [p.message] : [])],
  }),
  en: (p) => ({
    subject: p.kind === 'demo' ? `Demo request: ${p.name}` : `Contact message: ${p.name}`,
    heading: p.kind === 'demo' ? 'New demo request' : 'New contact message',
    paragraphs: [`From: ${p.name} <${p.email}>`, ...p.lines, ...(p.message ? [p.message] : [])],
  }),
});
