import { defineMailTemplate } from '@/core/mail/mail-template';

interface TicketMail {
  number: number;
  subject: string;
  url: string;
}

export const TICKET_RECEIVED = defineMailTemplate<TicketMail>('support.ticket_received', {
  es: (p) => ({
    subject: `Hemos recibido tu consulta #${p.number}`,
    heading: 'Hemos recibido tu consulta',
    paragraphs: [`Tu consulta «${p.subject}» tiene el número ${p.number}. Te responderemos lo antes posible.`],
    button: { label: 'Ver la consulta', url: p.url },
  }),
  en: (p) => ({
    subject: `We received your request #${p.number}`,
    heading: 'We received your request',
    paragraphs: [`Your request "${p.subject}" has number ${p.number}. We will answer as soon as we can.`],
    button: { label: 'View the request', url: p.url },
  }),
});

export const NEW_TICKET = defineMailTemplate<TicketMail & { category: string }>('support.new_ticket', {
  es: (p) => ({
    subject: `Nueva consulta #${p.number} (${p.category})`,
    heading: `Nueva consulta #${p.number}`,
    paragraphs: [`Asunto: ${p.subject}`, `Categoría: ${p.category}`],
    button: { label: 'Abrir en el panel', url: p.url },
  }),
  en: (p) => ({
    subject: `New support request #${p.number} (${p.category})`,
    heading: `New support request #${p.number}`,
    paragraphs: [`Subject: ${p.subject}`, `Category: ${p.category}`],
    button: { label: 'Open in the desk', url: p.url },
  }),
});

export const SUPPORT_REPLY = defineMailTemplate<TicketMail & { reply: string }>('support.reply', {
  es: (p) => ({
    subject: `Respuesta a tu consulta #${p.number}: ${p.subject}`,
    heading: 'Te hemos respondido',
    paragraphs: [p.reply],
    button: { label: 'Responder', url: p.url },
    footer: 'Si no respondes en 14 días, cerraremos la consulta.',
  }),
  en: (p) => ({
    subject: `Reply to your request #${p.number}: ${p.subject}`,
    heading: 'We replied to your request',
    paragraphs: [p.reply],
    button: { label: 'Reply', url: p.url },
    footer: 'If you do not answer within 14 days, we will close the request.',
  }),
});
