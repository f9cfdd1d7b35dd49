import { announcementParagraphs, renderAnnouncementHtml } from './announcement-markdown';

describe('announcement markdown', () => {
  it('renders markdown to HTML', () => {
    expect(renderAnnouncementHtml('Hola **mundo**\n\n- uno\n- dos')).toBe(
      '<p>Hola <strong>mundo</strong></p>\n<ul>\n<li>uno</li>\n<li>dos</li>\n</ul>',
    );
  });

  it('shows raw HTML as text, never as markup', () => {
    const html = renderAnnouncementHtml('<script>alert(1)</script> <img src=x onerror=alert(1)> <b>b</b>');
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('&lt;script&gt;');
  });

  it('drops dangerous links and marks the others', () => {
    expect(renderAnnouncementHtml('[x](javascript:alert(1))')).not.toContain('href');
    expect(renderAnnouncementHtml('[x](vbscript:msgbox)')).not.toContain('href');
    expect(renderAnnouncementHtml('[x](data:text/html;base64,PHNjcmlwdD4=)')).not.toContain('href');
    expect(renderAnnouncementHtml('[docs](https://example.org/a?b=1)')).toBe(
      '<p><a href="https://example.org/a?b=1" rel="noopener noreferrer nofollow" target="_blank">docs</a></p>',
    );
    expect(renderAnnouncementHtml('mail [us](mailto:help@example.org)')).toContain('href="mailto:help@example.org"');
  });

  it('never lets an attribute through that the allow-list does not name', () => {
    const html = renderAnnouncementHtml('[x](https://example.org "t\\" onmouseover=\\"alert(1)")');
    // The quote stays inside the title: the element's attributes are exactly the allowed ones.
    const attributes = [...(/<a ([^>]*)>/.exec(html)?.[1] ?? '').matchAll(/([a-z-]+)="[^"]*"/g)].map((m) => m[1]);
    expect(attributes).toEqual(['href', 'title', 'rel', 'target']);
  });

  it('gives plain paragraphs for email, links with their address', () => {
    expect(
      announcementParagraphs(
        '# Aviso\n\nEl **sábado** no habrá servicio.\nGracias.\n\n- Ver [estado](https://status.example.org)\n- https://example.org\n\n```\nnpm run\n```',
      ),
    ).toEqual([
      'Aviso',
      'El sábado no habrá servicio.\nGracias.',
      'Ver estado (https://status.example.org)',
      'https://example.org',
      'npm run',
    ]);
    expect(announcementParagraphs('')).toEqual([]);
    expect(announcementParagraphs('<b>raw</b>')).toEqual(['<b>raw</b>']);
  });
});
