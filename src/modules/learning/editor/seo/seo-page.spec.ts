import { JSDOM } from 'jsdom';
import {
  canonicalUrl,
  isoDuration,
  markdownText,
  renderCoursePage,
  type SeoCourse,
  scriptJson,
  truncate,
} from './seo-page';

const course = (over: Partial<SeoCourse> = {}): SeoCourse => ({
  slug: 'intro-python',
  title: 'Intro <script>alert("t")</script> & "Python"',
  summary: 'Learn <b>Python</b> & more',
  description_md: '# Welcome\n\nSome **bold** text, a [link](https://example.org) and <img src=x onerror=alert(1)>.',
  language: 'en',
  level: 'beginner',
  tags: ['python', '</script><script>alert(1)</script>'],
  estimated_minutes: 90,
  lessons: [
    { position: 1, title: 'First <lesson>', estimated_minutes: 10 },
    { position: 2, title: 'Second', estimated_minutes: 0 },
  ],
  ...over,
});

function parse(html: string): Document {
  return new JSDOM(html).window.document;
}

describe('renderCoursePage', () => {
  it('escapes the title and summary and keeps them as text', () => {
    const doc = parse(renderCoursePage(course(), 'https://web.example/'));
    expect(doc.querySelector('h1')?.textContent).toBe('Intro <script>alert("t")</script> & "Python"');
    expect(doc.querySelector('title')?.textContent).toBe(
      'Intro <script>alert("t")</script> & "Python" · Learning Platform',
    );
    expect(doc.querySelector('.summary')?.textContent).toBe('Learn <b>Python</b> & more');
    // The only script is the JSON-LD one, and the only image would come from raw HTML: none.
    expect(doc.querySelectorAll('script')).toHaveLength(1);
    expect(doc.querySelectorAll('img, b')).toHaveLength(0);
  });

  it('renders the description from markdown without passing raw HTML through', () => {
    const html = renderCoursePage(course(), 'https://web.example');
    const doc = parse(html);
    const section = doc.querySelector('.description')!;
    expect(section.querySelector('h1')?.textContent).toBe('Welcome');
    expect(section.querySelector('strong')?.textContent).toBe('bold');
    expect(section.querySelector('a')?.getAttribute('href')).toBe('https://example.org');
    expect(section.querySelector('a')?.getAttribute('rel')).toBe('nofollow noopener');
    expect(section.textContent).toContain('<img src=x onerror=alert(1)>');
    expect(html).not.toContain('<img');
  });

  it('drops javascript: links', () => {
    const doc = parse(
      renderCoursePage(course({ description_md: '[x](javascript:alert(1)) [y](JAVASCRIPT:alert(1))' }), 'https://w'),
    );
    expect(doc.querySelectorAll('.description a')).toHaveLength(0);
  });

  it('has a canonical link, meta description, robots and the lesson outline', () => {
    const doc = parse(renderCoursePage(course(), 'https://web.example/'));
    expect(doc.querySelector('link[rel=canonical]')?.getAttribute('href')).toBe(
      'https://web.example/courses/intro-python',
    );
    expect(doc.querySelector('meta[name=description]')?.getAttribute('content')).toBe('Learn <b>Python</b> & more');
    expect(doc.querySelector('meta[name=robots]')?.getAttribute('content')).toBe('index, follow');
    expect(doc.documentElement.getAttribute('lang')).toBe('en');
    expect([...doc.querySelectorAll('.outline li')].map((li) => li.textContent)).toEqual([
      'First <lesson> (10 min)',
      'Second',
    ]);
  });

  it('embeds schema.org Course JSON-LD that parses, with the platform as provider', () => {
    const doc = parse(renderCoursePage(course(), 'https://web.example/'));
    const data = JSON.parse(doc.querySelector('script[type="application/ld+json"]')!.textContent);
    expect(data).toEqual({
      '@context': 'https://schema.org',
      '@type': 'Course',
      name: 'Intro <script>alert("t")</script> & "Python"',
      description: 'Learn <b>Python</b> & more',
      url: 'https://web.example/courses/intro-python',
      inLanguage: 'en',
      educationalLevel: 'beginner',
      keywords: 'python, </script><script>alert(1)</script>',
      timeRequired: 'PT1H30M',
      provider: { '@type': 'Organization', name: 'Learning Platform', url: 'https://web.example' },
      hasCourseInstance: { '@type': 'CourseInstance', courseMode: 'online', courseWorkload: 'PT1H30M' },
      syllabusSections: [
        { '@type': 'Syllabus', name: 'First <lesson>', position: 1, timeRequired: 'PT10M' },
        { '@type': 'Syllabus', name: 'Second', position: 2 },
      ],
    });
  });

  it('uses Spanish labels for Spanish courses and falls back to the description for the meta description', () => {
    const html = renderCoursePage(
      course({ language: 'es', summary: '  ', description_md: '## Hola\n\nAprende *mucho* `código`.' }),
      'https://w',
    );
    const doc = parse(html);
    expect(doc.documentElement.getAttribute('lang')).toBe('es');
    expect(doc.querySelector('.outline h2')?.textContent).toBe('Contenido del curso');
    expect(doc.querySelector('.facts')?.textContent).toContain('Nivel: Principiante');
    expect(doc.querySelector('meta[name=description]')?.getAttribute('content')).toBe('Hola Aprende mucho código.');
    expect(doc.querySelector('.summary')).toBeNull();
  });

  it('is deterministic: the same course gives the same bytes', () => {
    expect(renderCoursePage(course(), 'https://w')).toBe(renderCoursePage(course(), 'https://w'));
  });
});

describe('SEO helpers', () => {
  it('scriptJson cannot close the script element', () => {
    const out = scriptJson({ a: '</script><!-- & \u2028' });
    expect(out).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(out)).toEqual({ a: '</script><!-- & \u2028' });
  });

  it('truncate keeps 160 characters at most, cut at a word', () => {
    expect(truncate('short')).toBe('short');
    const long = 'word '.repeat(60);
    const out = truncate(long);
    expect(out.length).toBeLessThanOrEqual(160);
    expect(out.endsWith('word…')).toBe(true);
    expect(truncate('x'.repeat(160))).toBe('x'.repeat(160));
    expect(truncate('x'.repeat(161))).toBe(`${'x'.repeat(159)}…`);
  });

  it('markdownText keeps the words only', () => {
    expect(markdownText('# T\n\n- a **b**\n- [c](http://x)\n\n```\ncode\n```')).toBe('T a b c code');
  });

  it('isoDuration and canonicalUrl', () => {
    expect([isoDuration(0), isoDuration(45), isoDuration(60), isoDuration(135)]).toEqual([
      'PT0M',
      'PT45M',
      'PT1H',
      'PT2H15M',
    ]);
    expect(canonicalUrl('https://w.example//', 'a-b')).toBe('https://w.example/courses/a-b');
  });
});
