import MarkdownIt from 'markdown-it';

/** Shown as the provider of every course (schema.org) and in page titles. */
export const PLATFORM_NAME = 'Learning Platform';
const META_DESCRIPTION_MAX = 160;

export interface SeoCourse {
  slug: string;
  title: string;
  summary: string;
  description_md: string;
  language: 'es' | 'en';
  level: 'beginner' | 'intermediate' | 'advanced';
  tags: string[];
  estimated_minutes: number;
  lessons: { position: number; title: string; estimated_minutes: number }[];
}

const LABELS = {
  es: {
    level: { beginner: 'Principiante', intermediate: 'Intermedio', advanced: 'Avanzado' },
    levelLabel: 'Nivel',
    duration: 'Duración',
    lessons: 'Lecciones',
    outline: 'Contenido del curso',
    start: 'Empieza el curso',
    minutes: (n: number) => `${n} min`,
  },
  en: {
    level: { beginner: 'Beginner', intermediate: 'Intermediate', advanced: 'Advanced' },
    levelLabel: 'Level',
    duration: 'Duration',
    lessons: 'Lessons',
    outline: 'Course outline',
    start: 'Start the course',
    minutes: (n: number) => `${n} min`,
  },
} as const;

/**
 * Markdown as authored by editors, rendered without raw HTML (it is shown escaped, never passed through), with
 * markdown-it's link validation (no `javascript:`, `vbscript:`, `file:` or non-image `data:` URLs) and no
 * typographic rewriting, so the page shows what was written.
 */
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });
const defaultLinkOpen =
  markdown.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
markdown.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  // Links in course descriptions are the editors' references, not endorsements.
  tokens[idx].attrSet('rel', 'nofollow noopener');
  return defaultLinkOpen(tokens, idx, options, env, self);
};

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** JSON for a `<script>` element: nothing in it can close the element or open a comment. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export function renderMarkdown(source: string): string {
  return markdown.render(source);
}

/** The words of a markdown text, without its syntax (for the meta description). */
export function markdownText(source: string): string {
  const words: string[] = [];
  for (const token of markdown.parse(source, {})) {
    for (const child of token.children ?? []) {
      if (child.type === 'text' || child.type === 'code_inline') words.push(child.content);
      else if (child.type === 'softbreak' || child.type === 'hardbreak') words.push(' ');
    }
    if (token.type === 'code_block' || token.type === 'fence') words.push(token.content);
    if (token.block && token.nesting === -1) words.push(' ');
  }
  return words.join('').replace(/\s+/g, ' ').trim();
}

/** At most `max` characters, cut at a word boundary with an ellipsis when it had to be shortened. */
export function truncate(text: string, max = META_DESCRIPTION_MAX): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  if (clean.length <= max) return clean;
  const cut = clean.slice(0, max - 1);
  const boundary = cut.lastIndexOf(' ');
  return `${(boundary > max / 2 ? cut.slice(0, boundary) : cut).replace(/[\s.,;:!?-]+$/, '')}…`;
}

export function canonicalUrl(webUrl: string, slug: string): string {
  return `${webUrl.replace(/\/+$/, '')}/courses/${encodeURIComponent(slug)}`;
}

/** ISO 8601 duration of minutes (`PT1H30M`). */
export function isoDuration(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `PT${h ? `${h}H` : ''}${m || !h ? `${m}M` : ''}`;
}

/**
 * The static, indexable page of a published course: escaped title and summary, the description rendered from
 * markdown safely, the lesson outline, a canonical link to the web front end's course page, a meta description and
 * schema.org `Course` JSON-LD with the platform as provider. Deterministic (no dates), so an unchanged course gives
 * the same bytes and the rebuild can skip it.
 */
export function renderCoursePage(course: SeoCourse, webUrl: string): string {
  const t = LABELS[course.language];
  const canonical = canonicalUrl(webUrl, course.slug);
  const description = truncate(course.summary.trim() || markdownText(course.description_md) || course.title);
  const jsonLd = {
    '@context': 'https://schema.org',
    '@type': 'Course',
    name: course.title,
    description,
    url: canonical,
    inLanguage: course.language,
    educationalLevel: course.level,
    ...(course.tags.length ? { keywords: course.tags.join(', ') } : {}),
    ...(course.estimated_minutes > 0 ? { timeRequired: isoDuration(course.estimated_minutes) } : {}),
    provider: { '@type': 'Organization', name: PLATFORM_NAME, url: webUrl.replace(/\/+$/, '') },
    hasCourseInstance: {
      '@type': 'CourseInstance',
      courseMode: 'online',
      ...(course.estimated_minutes > 0 ? { courseWorkload: isoDuration(course.estimated_minutes) } : {}),
    },
    syllabusSections: course.lessons.map((l) => ({
      '@type': 'Syllabus',
      name: l.title,
      position: l.position,
      ...(l.estimated_minutes > 0 ? { timeRequired: isoDuration(l.estimated_minutes) } : {}),
    })),
  };
  const title = escapeHtml(course.title);
  const facts = [
    `<li>${t.levelLabel}: ${escapeHtml(t.level[course.level])}</li>`,
    course.estimated_minutes > 0 ? `<li>${t.duration}: ${escapeHtml(t.minutes(course.estimated_minutes))}</li>` : '',
    `<li>${t.lessons}: ${course.lessons.length}</li>`,
  ].filter(Boolean);
  const outline = course.lessons
    .map(
      (l) =>
        `<li>${escapeHtml(l.title)}${l.estimated_minutes > 0 ? ` <span>(${escapeHtml(t.minutes(l.estimated_minutes))})</span>` : ''}</li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="${course.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${escapeHtml(PLATFORM_NAME)}</title>
<meta name="description" content="${escapeHtml(description)}">
<meta name="robots" content="index, follow">
<link rel="canonical" href="${escapeHtml(canonical)}">
<meta property="og:type" content="website">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${escapeHtml(description)}">
<meta property="og:url" content="${escapeHtml(canonical)}">
<script type="application/ld+json">${scriptJson(jsonLd)}</script>
</head>
<body>
<main>
<article>
<h1>${title}</h1>
${course.summary.trim() ? `<p class="summary">${escapeHtml(course.summary.trim())}</p>\n` : ''}<ul class="facts">
${facts.join('\n')}
</ul>
<section class="description">
${renderMarkdown(course.description_md)}</section>
<section class="outline">
<h2>${t.outline}</h2>
<ol>
${outline}
</ol>
</section>
<p><a href="${escapeHtml(canonical)}">${t.start}</a></p>
</article>
</main>
</body>
</html>
`;
}
