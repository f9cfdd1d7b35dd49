import { defineMailTemplate, renderMail, resolveLocale } from './mail-template';

describe('mail templates', () => {
  it('resolves the language: person, then organization, then es', () => {
    expect(resolveLocale('en', 'es')).toBe('en');
    expect(resolveLocale(null, 'en')).toBe('en');
    expect(resolveLocale(undefined, null)).toBe('es');
    expect(resolveLocale('fr', undefined)).toBe('es');
  });

  it('renders text and escaped HTML from one content', () => {
    const t = defineMailTemplate<{ n: string }>('t', {
      es: (p) => ({
        subject: 'S',
        heading: 'H',
        paragraphs: [p.n],
        button: { label: 'Ir', url: 'https://x.test/?a=1&b="2"' },
      }),
      en: (p) => ({ subject: 'S', heading: 'H', paragraphs: [p.n] }),
    });
    const r = renderMail(t.render('es', { n: '<i>' }), 'es');
    expect(r.text).toContain('<i>');
    expect(r.text).toContain('Ir: https://x.test/?a=1&b="2"');
    expect(r.html).toContain('&lt;i&gt;');
    expect(r.html).toContain('href="https://x.test/?a=1&amp;b=&quot;2&quot;"');
  });
});
