import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isAllowedAddress } from '@/core/http/public-address';

/**
 * Whether the server may call this push endpoint (extensions-v2 13.3): `https` resolving only to public addresses;
 * outside production also `http` on loopback (the `web-push-testing` service). Checked at registration, for an early
 * 422; deliveries do not look the name up again: the sender's guarded agent checks the address its connection
 * uses (extensions-v3 6.7), so a name that resolves elsewhere later is refused there.
 */
export async function isCallableEndpoint(endpoint: string, allowLoopbackHttp: boolean): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      return false;
    }
  }
  if (addresses.length === 0) return false;
  if (url.protocol === 'https:') return addresses.every((a) => isAllowedAddress(a, false));
  if (url.protocol === 'http:' && allowLoopbackHttp) {
    // Loopback only: a plain-http endpoint elsewhere would carry the payload in the clear.
    return addresses.every((a) => isAllowedAddress(a, true) && !isAllowedAddress(a, false));
  }
  return false;
}
