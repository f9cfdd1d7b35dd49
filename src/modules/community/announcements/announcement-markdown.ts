import { markdownParser, RICH_MARKDOWN_TAGS, safeMarkdownRenderer } from '@/core/markdown/safe-markdown';

/**
 * Announcement bodies are markdown written by admins and shown to everyone of the audience: rendered without raw
 * HTML (markdown-it shows it as text), with markdown-it's link validation (no `javascript:`, `vbscript:`, `file:`,
 * non-image `data:`), then passed through sanitize-html with a short allow-list as a second, independent line:
 * whatever markdown-it emits, only these tags, attributes and URL schemes reach a browser.
 */
export const renderAnnouncementHtml = safeMarkdownRenderer({
  tags: RICH_MARKDOWN_TAGS,
  attributes: { a: ['href', 'title', 'rel', 'target'], ol: ['start'], th: ['style'], td: ['style'] },
  styles: { th: { 'text-align': [/^(left|right|center)$/] }, td: { 'text-align': [/^(left|right|center)$/] } },
  links: { rel: 'noopener noreferrer nofollow', newTab: true },
});

/**
 * The body as plain paragraphs for an email (one per block: paragraph, heading, list item, quote, code), without
 * markdown syntax; a link keeps its address after its text so it survives a plain-text mail client.
 */
export function announcementParagraphs(source: string): string[] {
  const paragraphs: string[] = [];
  for (const token of markdownParser.parse(source, {})) {
    if (token.type === 'fence' || token.type === 'code_block') {
      if (token.content.trim()) paragraphs.push(token.content.trimEnd());
      continue;
    }
    if (token.type !== 'inline') continue;
    let text = '';
    let href: string | null = null;
    for (const child of token.children ?? []) {
      if (child.type === 'text' || child.type === 'code_inline') text += child.content;
      else if (child.type === 'softbreak' || child.type === 'hardbreak') text += '\n';
      else if (child.type === 'link_open') href = String(child.attrGet('href') ?? '') || null;
      else if (child.type === 'link_close' && href) {
        if (!text.endsWith(href)) text += ` (${href})`;
        href = null;
      }
    }
    if (text.trim()) paragraphs.push(text.trim());
  }
  return paragraphs;
}
