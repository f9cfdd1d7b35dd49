import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/**
 * Card faces are Markdown (6.1): rendered by markdown-it with raw HTML off (shown as text) and its link validation,
 * then passed through sanitize-html's allow-list as a second, independent line, so only these tags, attributes and
 * URL schemes ever reach a browser. Links open in a new tab without a window reference or a referrer.
 */
const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'strong',
    'em',
    's',
    'code',
    'pre',
    'blockquote',
    'ul',
    'ol',
    'li',
    'a',
    'hr',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'sub',
    'sup',
  ],
  allowedAttributes: { a: ['href', 'title', 'rel', 'target'], ol: ['start'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowedSchemesAppliedToAttributes: ['href'],
  allowProtocolRelative: false,
  transformTags: {
    a: sanitizeHtml.simpleTransform('a', { rel: 'noopener noreferrer nofollow', target: '_blank' }),
  },
};

export function renderCardHtml(source: string): string {
  return sanitizeHtml(markdown.render(source), SANITIZE).trim();
}
