import { randomBytes } from 'node:crypto';
import type { Response } from 'express';

/** Escapes text for HTML element content and double-quoted attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export interface Page {
  status: number;
  html: string;
  /** The page's own Content-Security-Policy. */
  csp: string;
}

const STYLE = `
body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1b1f}
h1{font-size:1.3rem}fieldset{border:1px solid #ccd;border-radius:.5rem;margin:1rem 0;padding:.75rem}
label{display:block;margin:.35rem 0}.muted{color:#555;font-size:.9rem}
button{padding:.55rem 1.1rem;margin-right:.5rem;border-radius:.4rem;border:1px solid #557;cursor:pointer}
button[value=approve]{background:#2947a9;color:#fff}`;

function layout(title: string, body: string, formTargets: string[]): Page & { status: 0 } {
  const nonce = randomBytes(16).toString('base64');
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8">` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>` +
    `<style nonce="${nonce}">${STYLE}</style></head><body>${body}</body></html>`;
  // Not frameable (clickjacking of the approve button), no script at all, forms only to us and, because browsers
  // apply form-action to the redirect after a form post, to the client's redirect origin.
  const csp = [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `form-action 'self'${formTargets.map((t) => ` ${t}`).join('')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
  return { status: 0, html, csp };
}

export function errorPage(status: number, title: string, message: string): Page {
  const page = layout(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`, []);
  return { ...page, status };
}

export interface ConsentOrganization {
  id: string;
  name: string;
  role: string;
  /** Whether this person may grant write access here (learners may not). */
  canWrite: boolean;
}

export interface ConsentView {
  clientName: string;
  clientUri: string | null;
  redirectUri: string;
  requestId: string;
  csrfToken: string;
  decisionUrl: string;
  organizations: ConsentOrganization[];
}

export function consentPage(view: ConsentView): Page {
  const redirect = new URL(view.redirectUri);
  const e = escapeHtml;
  const hidden = (name: string, value: string): string => `<input type="hidden" name="${name}" value="${e(value)}">`;
  const organizations = view.organizations
    .map(
      (org, i) =>
        `<label><input type="radio" name="organization_id" value="${e(org.id)}"${i === 0 ? ' checked' : ''} required> ` +
        `${e(org.name)} <span class="muted">(${e(org.role)}${org.canWrite ? '' : ', read only'})</span></label>`,
    )
    .join('');
  const body =
    `<h1>${e(view.clientName)} wants to use your account</h1>` +
    `<p>It will act for you in <strong>one</strong> organization, with your role there, and send you back to ` +
    `<strong>${e(redirect.origin)}</strong>.</p>` +
    (view.clientUri ? `<p class="muted">Application site: ${e(view.clientUri)}</p>` : '') +
    `<form method="post" action="${e(view.decisionUrl)}">` +
    hidden('request_id', view.requestId) +
    hidden('csrf_token', view.csrfToken) +
    (view.organizations.length
      ? `<fieldset><legend>Organization</legend>${organizations}</fieldset>` +
        `<fieldset><legend>Access</legend>` +
        `<label><input type="radio" name="access" value="read" checked> Read only</label>` +
        `<label><input type="radio" name="access" value="write"> Read and write ` +
        `<span class="muted">(not for learners)</span></label></fieldset>` +
        `<button type="submit" name="decision" value="approve">Allow</button>`
      : `<p>You are not a member of any active organization, so there is nothing to share.</p>`) +
    `<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></form>`;
  const page = layout(`Allow ${view.clientName}?`, body, [redirect.origin]);
  return { ...page, status: 200 };
}

/** Sends a server-rendered page: its own CSP, never framed, never cached. */
export function sendPage(res: Response, page: Page): void {
  res.setHeader('Content-Security-Policy', page.csp);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.status(page.status).type('html').send(page.html);
}
