import { isTenantId } from '@/modules/identity/external-auth';

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** The domain in canonical form (lower case, no trailing dot), or null when it is not a registrable host name. */
export function normalizeDomain(input: string): string | null {
  const domain = input.trim().toLowerCase().replace(/\.$/, '');
  if (domain.length < 3 || domain.length > 253) return null;
  const labels = domain.split('.');
  // At least a name and a top-level domain; the top level is never all digits (that would be an address).
  if (labels.length < 2 || /^\d+$/.test(labels[labels.length - 1])) return null;
  return labels.every((label) => LABEL.test(label)) ? domain : null;
}

/** The DNS TXT record an organization publishes to prove it controls `domain`. */
export function verificationRecord(domain: string, token: string): { type: 'dns_txt'; name: string; value: string } {
  return { type: 'dns_txt', name: `_lp-sso.${domain}`, value: `lp-sso-verification=${token}` };
}

const MICROSOFT_HOST = 'login.microsoftonline.com';
const MICROSOFT_SHARED_TENANTS = new Set(['common', 'organizations', 'consumers', '{tenantid}']);
const GOOGLE_ISSUERS = new Set(['https://accounts.google.com', 'accounts.google.com']);

/**
 * Why an issuer cannot be an institution's connection beyond the https rule: a multi-tenant Microsoft issuer
 * accepts accounts of any tenant, so it says nothing about the institution.
 */
export function connectionIssuerProblem(issuer: string): string | null {
  const url = new URL(issuer);
  if (url.hostname.toLowerCase() === MICROSOFT_HOST) {
    const tenant = url.pathname.split('/').filter(Boolean)[0]?.toLowerCase() ?? '';
    if (!tenant || MICROSOFT_SHARED_TENANTS.has(tenant)) return "must name the institution's Microsoft tenant";
  }
  return null;
}

/** The tenant an issuer names in its path (Microsoft Entra style `/{tenant-guid}/v2.0`), lower-cased, or null. */
export function issuerTenant(issuer: string): string | null {
  const segment = new URL(issuer).pathname.split('/').find((s) => isTenantId(s));
  return segment ? segment.toLowerCase() : null;
}

export function isGoogleIssuer(issuer: string): boolean {
  return GOOGLE_ISSUERS.has(issuer.replace(/\/+$/, ''));
}
