import { defineMailTemplate } from '@/core/mail/mail-template';

export interface EndpointDisabledParams {
  organizationName: string;
  url: string;
  reason: 'failing' | 'gone';
  /** The organization's webhook settings page. */
  settingsUrl: string;
}

/** Owners and admins are told when an endpoint is disabled (extensions-v2 25.3, 26.5; transactional). */
export const ENDPOINT_DISABLED = defineMailTemplate<EndpointDisabledParams>('webhooks.endpoint_disabled', {
  es: (p) => ({
    subject: `Webhook desactivado en ${p.organizationName}`,
    heading: 'Hemos desactivado un webhook',
    paragraphs: [
      p.reason === 'gone'
        ? `El destino ${p.url} respondió 410 (ya no existe), así que hemos dejado de enviarle eventos.`
        : `Todas las entregas a ${p.url} han fallado durante 5 días, así que hemos dejado de enviarle eventos.`,
      'Cuando el destino vuelva a funcionar, actívalo de nuevo y reenvía las entregas que necesites desde el registro de entregas.',
    ],
    button: { label: 'Ver los webhooks', url: p.settingsUrl },
  }),
  en: (p) => ({
    subject: `Webhook disabled in ${p.organizationName}`,
    heading: 'We disabled a webhook endpoint',
    paragraphs: [
      p.reason === 'gone'
        ? `The endpoint ${p.url} answered 410 (gone), so we stopped sending it events.`
        : `Every delivery to ${p.url} has failed for 5 days, so we stopped sending it events.`,
      'Once the endpoint works again, enable it and redeliver what you need from the delivery log.',
    ],
    button: { label: 'View webhooks', url: p.settingsUrl },
  }),
});
