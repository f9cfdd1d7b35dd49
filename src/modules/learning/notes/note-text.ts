import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false });

/** A note's Markdown as plain text (markdown-it renders, sanitize-html keeps only the text), whitespace collapsed. */
export function plainText(source: string, max: number): string {
  const text = sanitizeHtml(markdown.render(source), {
    allowedTags: [],
    allowedAttributes: {},
    // Keep the text of every element, including code blocks; entities are decoded below.
    nonTextTags: ['style', 'script', 'textarea', 'option'],
  })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
  return [...text].slice(0, max).join('');
}

/** A title on one line (a heading of the export must not break into Markdown of its own). */
export function oneLine(title: string): string {
  return title.replace(/[\r\n]+/g, ' ').trim();
}

/** A safe file-name part: lower-case letters, digits and hyphens. */
export function fileSlug(slug: string): string {
  return (
    slug
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'notes'
  );
}
