import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { GuardedNet } from '@/core/net/guarded-net';
import { isAllowedAddress } from '@/core/net/public-address';

/**
 * The one door of this area to the network: every request to a tool (its JWKS, its dynamic-registration
 * endpoints) goes through here and then through the core's guarded agent, whose DNS look-up refuses non-public
 * addresses inside the connection itself (extensions-v3 6.7: no check-then-connect gap). Here: https only (plain
 * http only where the guard allows loopback, outside production), no credentials in the URL, no redirects.
 */
export async function ltiFetch(net: GuardedNet, url: string, init: RequestInit = {}): Promise<Response> {
  const parsed = new URL(url);
  if (parsed.username || parsed.password) throw new Error('A tool URL must not carry credentials');
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && net.allowLoopback)) {
    throw new Error('A tool URL must use https');
  }
  return net.guardedFetch(url, { ...init, redirect: 'error', signal: init.signal ?? AbortSignal.timeout(10_000) });
}

/** Refuses a URL this area must not reach: wrong scheme, too long, or a host that resolves to a private address. */
export async function assertPublicUrl(raw: string, allowLoopback: boolean): Promise<void> {
  const problem = await urlProblem(raw, allowLoopback);
  if (problem) throw new Error(problem);
}

/** Why a tool URL is refused, or null when it may be used. */
export async function urlProblem(raw: string, allowLoopback: boolean): Promise<string | null> {
  if (raw.length > 2048) return 'is longer than 2048 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'is not a URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true })).map((a) => a.address);
    } catch {
      return 'has a host name that does not resolve';
    }
  }
  if (addresses.length === 0) return 'has a host name that does not resolve';
  const loopbackOnly = addresses.every((a) => isAllowedAddress(a, true) && !isAllowedAddress(a, false));
  if (url.protocol === 'http:') {
    if (!(allowLoopback && loopbackOnly))
      return 'must use https (plain http only to a loopback address outside production)';
  } else if (url.protocol !== 'https:') return 'must use https';
  if (!addresses.every((a) => isAllowedAddress(a, allowLoopback))) return 'resolves to an address that is not public';
  return null;
}
