import { containsBlockedTerm } from './blocked-terms';
import { renderSocialHtml } from './social-markdown';

describe('social markdown', () => {
  it('renders ordinary markdown', () => {
    expect(renderSocialHtml('**Hola** _mundo_')).toBe('<p><strong>Hola</strong> <em>mundo</em></p>');
  });

  it('shows raw HTML as text: no script, no event handler', () => {
    const html = renderSocialHtml('<script>alert(1)</script> <img src=x onerror=alert(1)> <b onclick="x()">b</b>');
    expect(html).not.toMatch(/<(script|img|b)\b/i);
    // Handlers survive only as escaped text, never as an attribute of an element.
    expect(html).not.toMatch(/<[^>]*\son\w+=/i);
    expect(html).toContain('&lt;script&gt;');
  });

  it('leaves javascript:, vbscript: and data: links without an address', () => {
    for (const href of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'vbscript:msgbox(1)',
      'data:text/html,<script>',
    ]) {
      const html = renderSocialHtml(`[click](${href})`);
      expect(html).not.toMatch(/href="(javascript|vbscript|data):/i);
      expect(html).not.toMatch(/<a [^>]*href=/i);
    }
    // An entity-encoded scheme is decoded by markdown-it before its check.
    expect(renderSocialHtml('[x](&#106;avascript:alert(1))')).not.toMatch(/href=/);
  });

  it('gives links rel="nofollow noopener ugc" and keeps only http(s) and mailto', () => {
    expect(renderSocialHtml('[site](https://example.com)')).toBe(
      '<p><a href="https://example.com" rel="nofollow noopener ugc">site</a></p>',
    );
    expect(renderSocialHtml('https://example.com/a')).toContain('rel="nofollow noopener ugc"');
    expect(renderSocialHtml('[x](ftp://example.com)')).not.toMatch(/href=/);
  });

  it('drops images and headings but keeps their text', () => {
    expect(renderSocialHtml('![alt](https://example.com/a.png)')).not.toMatch(/<img/);
    expect(renderSocialHtml('# Title')).toBe('Title');
  });
});

describe('blocked terms', () => {
  it('matches whole words, case- and accent-insensitively', () => {
    expect(containsBlockedTerm('Esto es una ESTAFA total', ['estafa'])).toBe(true);
    expect(containsBlockedTerm('una estáfa', ['ESTAFA'])).toBe(true);
    expect(containsBlockedTerm('una estafa', ['estáfa'])).toBe(true);
    expect(containsBlockedTerm('estafador', ['estafa'])).toBe(false);
    expect(containsBlockedTerm('class', ['ass'])).toBe(false);
    expect(containsBlockedTerm('compra ya, barato', ['compra ya'])).toBe(true);
    expect(containsBlockedTerm('compra   Ya', ['compra ya'])).toBe(true);
    expect(containsBlockedTerm('a.b+c', ['b+c'])).toBe(true);
    expect(containsBlockedTerm('nothing here', [])).toBe(false);
  });
});
