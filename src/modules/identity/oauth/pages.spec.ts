import { consentPage, errorPage, escapeHtml } from './pages';

describe('server-rendered OAuth pages', () => {
  it('escapes every HTML-significant character', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('renders the consent form with escaped values and a CSP that forbids framing and scripts', () => {
    const page = consentPage({
      clientName: '<script>alert(1)</script>',
      clientUri: 'https://tool.example/"><b>',
      redirectUri: 'https://tool.example/cb',
      requestId: 'req"1',
      csrfToken: 'tok<',
      decisionUrl: 'https://api.example/api/v1/oauth/authorize/decision',
      organizations: [{ id: 'o1', name: 'A & B <Uni>', role: 'student', canWrite: false }],
    });
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('<script>');
    expect(page.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.html).toContain('A &amp; B &lt;Uni&gt;');
    expect(page.html).toContain('value="req&quot;1"');
    expect(page.html).toContain('value="tok&lt;"');
    expect(page.html).not.toContain('"><b>');
    expect(page.csp).toContain("frame-ancestors 'none'");
    expect(page.csp).toContain("default-src 'none'");
    expect(page.csp).toContain("form-action 'self' https://tool.example");
    expect(page.csp).not.toContain('script-src');
  });

  it('renders an error page with the status given', () => {
    const page = errorPage(400, 'Bad <request>', 'Unknown client');
    expect(page.status).toBe(400);
    expect(page.html).toContain('Bad &lt;request&gt;');
  });
});
