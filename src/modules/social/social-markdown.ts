import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/**
 * Post and comment bodies (extensions-v2 11.1): Markdown written by members and shown to colleagues. markdown-it
 * renders without raw HTML (tags show as text) and refuses dangerous link schemes itself (`javascript:`,
 * `vbscript:`, `file:`, non-image `data:`); sanitize-html then applies an allow-list as a second, independent line:
 * only these tags, attributes and URL schemes reach a browser, and every link gets `rel="nofollow noopener ugc"`.
 * No images: a member's post must not make every reader's browser fetch an address of the author's choosing.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'strong', 'em', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a', 'hr'],
  allowedAttributes: { a: ['href', 'rel'], ol: ['start'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  // Headings, tables and anything else are dropped as tags but keep their text.
  disallowedTagsMode: 'discard',
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'nofollow noopener ugc' }),
  },
};

export function renderSocialHtml(source: string): string {
  return sanitizeHtml(markdown.render(source), SANITIZE).trim();
}
