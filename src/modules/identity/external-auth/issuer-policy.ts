/** Hosts that name this machine; an OpenID issuer there may use plain http (development and tests). */
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', '::1', 'localhost']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_HOSTS.has(hostname.toLowerCase());
}

/**
 * Why an OpenID issuer (or an endpoint it publishes) is not acceptable, or null when it is: an absolute https
 * URL without credentials, query or fragment; plain http only on a loopback host, and never in production
 * (where a loopback issuer would let an organization admin make the service probe its own ports).
 */
export function issuerProblem(value: string, options: { allowLoopbackHttp: boolean }): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (url.search || url.hash) return 'must not have a query or a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) {
    return options.allowLoopbackHttp ? null : 'must use https';
  }
  return 'must use https (plain http only on a loopback address)';
}

/** The issuer as openid-client compares it: no trailing slash (discovery appends the well-known path). */
export function normalizeIssuer(value: string): string {
  return value.trim().replace(/\/+$/, '');
}
