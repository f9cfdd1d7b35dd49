import { createHash } from 'node:crypto';
import type { Response } from 'express';

const escape = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const SUBMIT = 'document.forms[0].submit();';
const SUBMIT_HASH = `'sha256-${createHash('sha256').update(SUBMIT).digest('base64')}'`;

/**
 * The OIDC form_post answer: a page that posts `fields` to `action` at once. Its only script is the auto-submit
 * (allowed by hash), and `form-action` allows the redirect URI alone.
 */
export function sendFormPost(res: Response, action: string, fields: Record<string, string>): void {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`)
    .join('');
  const { origin, pathname } = new URL(action);
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; script-src ${SUBMIT_HASH}; form-action ${origin}${pathname}; frame-ancestors 'none'`,
  );
  res.setHeader('Cache-Control', 'no-store');
  // Written as it is (no ETag, no compression apply to this page): Express's send would only look for them.
  const html =
    `<!doctype html><html><head><meta charset="utf-8"><title>Launching…</title></head><body>` +
    `<form method="post" action="${escape(action)}">${inputs}<noscript><button type="submit">Continue</button></noscript></form>` +
    `<script>${SUBMIT}</script></body></html>`;
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(html));
  res.end(html);
}

/**
 * A redirect to `url` (an absolute URL serialized by `URL`, so already encoded), with the plain-text body Express's
 * `res.redirect` gives, without its content negotiation.
 */
export function sendRedirect(res: Response, status: 302 | 303, url: string): void {
  const body = `${status === 302 ? 'Found' : 'See Other'}. Redirecting to ${url}`;
  res.statusCode = status;
  res.setHeader('Location', url);
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** A refusal the browser shows (no redirect URI to answer at). */
export function sendErrorPage(res: Response, status: number, reason: string): void {
  res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
  res.setHeader('Cache-Control', 'no-store');
  res
    .status(status)
    .type('html')
    .send(
      `<!doctype html><html><head><meta charset="utf-8"><title>LTI error</title></head><body><h1>LTI error</h1><p>${escape(reason)}</p></body></html>`,
    );
}
