import { AvatarSanitizer } from './avatar-sanitizer';

describe('AvatarSanitizer', () => {
  const sanitizer = new AvatarSanitizer();
  afterAll(() => sanitizer.onModuleDestroy());

  const wrap = (inner: string, rootAttrs = ''): string =>
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"${rootAttrs}>${inner}</svg>`;

  it('removes <script> with its content', () => {
    const out = sanitizer.sanitize(wrap('<script>alert(1)</script><rect width="1" height="1"/>'));
    expect(out).not.toMatch(/<script|alert/i);
    expect(out).toContain('<rect width="1" height="1"/>');
  });

  it('removes event handler attributes everywhere, the root included', () => {
    const out = sanitizer.sanitize(
      wrap('<g onclick="x()"><rect onmouseover="y()" width="1"/></g><animate onbegin="z()"/>', ' onload="w()"'),
    );
    expect(out).not.toMatch(/\son[a-z]+=/i);
    expect(out).toContain('<rect width="1"/>');
  });

  it('removes external, data: and javascript: references but keeps internal ones', () => {
    const out = sanitizer.sanitize(
      wrap(
        '<defs><g id="part"><path d="M0 0h1"/></g></defs>' +
          '<use href="#part"/>' +
          '<use xlink:href="#part"/>' +
          '<use href="https://evil.test/sprite.svg#part"/>' +
          '<use xlink:href="data:image/svg+xml,&lt;svg/&gt;"/>' +
          '<a href="javascript:alert(1)"><rect width="1"/></a>',
      ),
    );
    expect(out).toContain('<use href="#part"/>');
    expect(out).toContain('xlink:href="#part"');
    expect(out).not.toMatch(/evil\.test|data:|javascript:/);
    const hrefs = [...out.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs).toEqual(['#part', '#part']);
  });

  it('removes <image>, <foreignObject>, <metadata> and <style> with what they contain', () => {
    const out = sanitizer.sanitize(
      wrap(
        '<image href="https://evil.test/x.png" width="1"/>' +
          '<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">html inside</div></foreignObject>' +
          '<metadata><title>secret rdf</title></metadata>' +
          '<style>@import url(https://evil.test/x.css);</style>' +
          '<circle r="1"/>',
      ),
    );
    expect(out).not.toMatch(/<image|<foreignObject|<metadata|<style|html inside|secret rdf|evil\.test/i);
    expect(out).toContain('<circle r="1"/>');
  });

  it('answers well-formed XML with the SVG namespace, even for characters HTML would escape as entities', () => {
    const out = sanitizer.sanitize(wrap('<text>a\u00a0b &amp; c</text>'));
    expect(out.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(out).not.toContain('&nbsp;');
    expect(out).toContain('a\u00a0b &amp; c');
  });

  it('keeps the drawing attributes DiceBear uses (viewBox, clip-path references, transforms)', () => {
    const input = wrap(
      '<defs><clipPath id="c"><rect width="10" height="10"/></clipPath></defs>' +
        '<g clip-path="url(#c)" transform="translate(1 2)"><path fill-rule="evenodd" d="M0 0h1" fill="#ae5d29"/></g>',
    );
    const out = sanitizer.sanitize(input);
    expect(out).toContain('viewBox="0 0 10 10"');
    expect(out).toContain('<clipPath id="c">');
    expect(out).toContain('clip-path="url(#c)"');
    expect(out).toContain('transform="translate(1 2)"');
    expect(out).toContain('fill="#ae5d29"');
  });

  it('refuses input that has no <svg> root left', () => {
    expect(() => sanitizer.sanitize('<script>alert(1)</script>')).toThrow(/no <svg> root/);
  });
});
