import { defineMailTemplate } from '@/core/mail/mail-template';
import { defineSchedule } from '@/core/queue/schedule';
import { bodyField, type RateLimitPolicy } from '@/core/rate-limit/rate-limit';

/** 20: forms, 5 per hour per client address and 3 per day per email (contact and demo count together). */
export const FORM_IP: RateLimitPolicy = { name: 'public.form.ip', points: 5, durationSeconds: 3600, key: 'ip' };
export const FORM_EMAIL: RateLimitPolicy = {
  name: 'public.form.email',
  points: 3,
  durationSeconds: 86_400,
  key: bodyField('email', 'email address'),
};
/** 20: the public catalog, 120 per minute per client address. */
export const CATALOG_IP: RateLimitPolicy = { name: 'public.catalog.ip', points: 120, durationSeconds: 60, key: 'ip' };

/** 26.2: 180 days after handling, 365 days after arrival. */
export const PRUNE_CONTACT_REQUESTS = defineSchedule({ name: 'public.prune_contact_requests', cron: '45 4 * * *' });

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
