import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

/**
 * Markdown written by people, shown to others as HTML: markdown-it renders it with raw HTML off (tags show as text)
 * and its own link validation (no `javascript:`, `vbscript:`, `file:`, non-image `data:`); sanitize-html then
 * applies the area's allow-list as a second, independent line, so only those tags, attributes and URL schemes
 * (http, https, mailto; never protocol-relative) reach a browser, and every link gets the area's `rel` (and
 * `target="_blank"` when it opens in a new tab). Tags outside the list are dropped and keep their text.
 */
export const markdownParser = new MarkdownIt({ html: false, linkify: true, typographer: false });

/** Paragraphs, emphasis, code, quotes, lists, links and rules: what every area allows. */
export const BASIC_MARKDOWN_TAGS = [
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
] as const;

/** The basic tags plus headings and tables. */
export const RICH_MARKDOWN_TAGS = [
  ...BASIC_MARKDOWN_TAGS,
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
] as const;

export interface SafeMarkdownPolicy {
  tags: readonly string[];
  attributes: Record<string, string[]>;
  styles?: sanitizeHtml.IOptions['allowedStyles'];
  /** The `rel` of every link, and whether links open in a new tab. */
  links: { rel: string; newTab: boolean };
}

/** A renderer of Markdown to HTML under one area's allow-list. */
export function safeMarkdownRenderer(policy: SafeMarkdownPolicy): (source: string) => string {
  const options: sanitizeHtml.IOptions = {
    allowedTags: [...policy.tags],
    allowedAttributes: policy.attributes,
    ...(policy.styles ? { allowedStyles: policy.styles } : {}),
    allowedSchemes: ['http', 'https', 'mailto'],
    allowedSchemesAppliedToAttributes: ['href'],
    allowProtocolRelative: false,
    transformTags: {
      a: sanitizeHtml.simpleTransform(
        'a',
        policy.links.newTab ? { rel: policy.links.rel, target: '_blank' } : { rel: policy.links.rel },
      ),
    },
  };
  return (source) => sanitizeHtml(markdownParser.render(source), options).trim();
}
