import { BASIC_MARKDOWN_TAGS, safeMarkdownRenderer } from '@/core/markdown/safe-markdown';

/**
 * Post and comment bodies (extensions-v2 11.1): Markdown written by members and shown to colleagues. markdown-it
 * renders without raw HTML (tags show as text) and refuses dangerous link schemes itself (`javascript:`,
 * `vbscript:`, `file:`, non-image `data:`); sanitize-html then applies an allow-list as a second, independent line:
 * only these tags, attributes and URL schemes reach a browser, and every link gets `rel="nofollow noopener ugc"`.
 * No images: a member's post must not make every reader's browser fetch an address of the author's choosing.
 */
export const renderSocialHtml = safeMarkdownRenderer({
  tags: BASIC_MARKDOWN_TAGS,
  attributes: { a: ['href', 'rel'], ol: ['start'] },
  links: { rel: 'nofollow noopener ugc', newTab: false },
});
