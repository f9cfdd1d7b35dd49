import { RICH_MARKDOWN_TAGS, safeMarkdownRenderer } from '@/core/markdown/safe-markdown';

/**
 * Card faces are Markdown (6.1): rendered by markdown-it with raw HTML off (shown as text) and its link validation,
 * then passed through sanitize-html's allow-list as a second, independent line, so only these tags, attributes and
 * URL schemes ever reach a browser. Links open in a new tab without a window reference or a referrer.
 */
export const renderCardHtml = safeMarkdownRenderer({
  tags: [...RICH_MARKDOWN_TAGS, 'sub', 'sup'],
  attributes: { a: ['href', 'title', 'rel', 'target'], ol: ['start'] },
  links: { rel: 'noopener noreferrer nofollow', newTab: true },
});
