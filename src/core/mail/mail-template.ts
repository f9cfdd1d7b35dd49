export type Locale = 'es' | 'en';
export const LOCALES: readonly Locale[] = ['es', 'en'];
export const DEFAULT_LOCALE: Locale = 'es';

/** The language of a transactional email: the person's, else the organization's, else Spanish. */
export function resolveLocale(...candidates: (string | null | undefined)[]): Locale {
  for (const c of candidates) if (c === 'es' || c === 'en') return c;
  return DEFAULT_LOCALE;
}

/** What a template produces for one language: a subject and the blocks of one simple, accessible layout. */
export interface MailContent {
  subject: string;
  heading: string;
  paragraphs: string[];
  /** A code shown large (sign-in codes). */
  code?: string;
  /** A call to action. */
  button?: { label: string; url: string };
  /** Small print under the body. */
  footer?: string;
}

export interface MailTemplate<P> {
  readonly name: string;
  render(locale: Locale, params: P): MailContent;
}

/** Declares a template with both languages; the compiler checks that neither is missing. */
export function defineMailTemplate<P>(
  name: string,
  byLocale: Record<Locale, (params: P) => MailContent>,
): MailTemplate<P> {
  return { name, render: (locale, params) => byLocale[locale](params) };
}

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/** Lays content out as plain text and as HTML; every value is escaped. */
export function renderMail(content: MailContent, locale: Locale): RenderedMail {
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((p) => [p, '']),
    ...(content.code ? [content.code, ''] : []),
    ...(content.button ? [`${content.button.label}: ${content.button.url}`, ''] : []),
    ...(content.footer ? ['--', content.footer] : []),
  ]
    .join('\n')
    .trimEnd();
  const html = `<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(content.subject)}</title></head>
<body style="margin:0;padding:24px;background:#f5f6f8;font-family:Arial,Helvetica,sans-serif;color:#1f2933">
<table role="presentation" width="100%" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:32px">
<tr><td>
<h1 style="font-size:20px;margin:0 0 16px">${escapeHtml(content.heading)}</h1>
${content.paragraphs.map((p) => `<p style="font-size:15px;line-height:1.5;margin:0 0 12px">${escapeHtml(p)}</p>`).join('\n')}
${content.code ? `<p style="font-size:32px;letter-spacing:6px;font-weight:bold;margin:24px 0">${escapeHtml(content.code)}</p>` : ''}
${content.button ? `<p style="margin:24px 0"><a href="${escapeHtml(content.button.url)}" style="background:#2f5bea;color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none">${escapeHtml(content.button.label)}</a></p>` : ''}
${content.footer ? `<p style="font-size:12px;color:#6b7280;margin-top:32px">${escapeHtml(content.footer)}</p>` : ''}
</td></tr></table></body></html>`;
  return { subject: content.subject, text, html };
}
