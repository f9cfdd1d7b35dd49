import { BASIC_MARKDOWN_TAGS, safeMarkdownRenderer } from '@/core/markdown/safe-markdown';

/**
 * Ticket messages are markdown written by people and by staff: rendered without raw HTML (markdown-it shows it as
 * text) and with its link validation, then through sanitize-html with a short allow-list (no images: a message
 * must not load anything from elsewhere when staff read it).
 */
export const renderSupportHtml = safeMarkdownRenderer({
  tags: BASIC_MARKDOWN_TAGS,
  attributes: { a: ['href', 'rel', 'target'], ol: ['start'] },
  links: { rel: 'noopener noreferrer nofollow', newTab: true },
});
