import { defineMailTemplate } from '@/core/mail/mail-template';

interface ReportMail {
  type: string;
  url: string;
  organization: string;
}

const TYPE_NAMES = {
  es: {
    progress: 'progreso',
    certificates: 'certificados',
    engagement: 'participación',
    exams: 'exámenes',
    lti_results: 'resultados de herramientas LTI',
  },
  en: {
    progress: 'progress',
    certificates: 'certificates',
    engagement: 'engagement',
    exams: 'exams',
    lti_results: 'LTI tool results',
  },
} as const;

const typeName = (lang: 'es' | 'en', type: string): string =>
  (TYPE_NAMES[lang] as Record<string, string>)[type] ?? type;

export const REPORT_READY = defineMailTemplate<ReportMail>('reports.ready', {
  es: (p) => ({
    subject: `Tu informe de ${typeName('es', p.type)} está listo`,
    heading: 'Tu informe está listo',
    paragraphs: [
      `El informe de ${typeName('es', p.type)} de ${p.organization} que pediste está listo para descargar.`,
      'El archivo se borrará dentro de 7 días.',
    ],
    button: { label: 'Ver el informe', url: p.url },
  }),
  en: (p) => ({
    subject: `Your ${typeName('en', p.type)} report is ready`,
    heading: 'Your report is ready',
    paragraphs: [
      `The ${typeName('en', p.type)} report of ${p.organization} you asked for is ready to download.`,
      'The file will be deleted in 7 days.',
    ],
    button: { label: 'View the report', url: p.url },
  }),
});

export const REPORT_FAILED = defineMailTemplate<ReportMail & { tooLarge: boolean }>('reports.failed', {
  es: (p) => ({
    subject: `No hemos podido generar tu informe de ${typeName('es', p.type)}`,
    heading: 'No hemos podido generar tu informe',
    paragraphs: [
      p.tooLarge
        ? 'El informe tendría más de 200 000 filas. Acota los filtros (cohorte, curso o fechas) y pídelo de nuevo.'
        : 'Ha ocurrido un error al generarlo. Vuelve a pedirlo dentro de un rato.',
    ],
    button: { label: 'Ver el informe', url: p.url },
  }),
  en: (p) => ({
    subject: `We could not build your ${typeName('en', p.type)} report`,
    heading: 'We could not build your report',
    paragraphs: [
      p.tooLarge
        ? 'The report would have more than 200,000 rows. Narrow the filters (cohort, course or dates) and ask again.'
        : 'Something went wrong while building it. Please ask again in a while.',
    ],
    button: { label: 'View the report', url: p.url },
  }),
});
