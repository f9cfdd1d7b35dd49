import type { Socket } from 'node:net';
import type { Request } from 'express';
import ipaddr from 'ipaddr.js';

/** Keys computed lately: every request of a budgeted route asks for its address's key (see addressKey). */
const recent = new Map<string, string>();
/** Bound of `recent`: past it the cache starts over (a flood of distinct addresses costs a parse each, no memory). */
export const ADDRESS_KEY_CACHE_SIZE = 10_000;

/**
 * The key of a client address for per-address limits (extensions-v3 6.10): an IPv4 address is itself; an IPv6
 * address is its /64 (a subscriber gets a whole /64 and rotates through it freely), written canonically so one
 * prefix has one key whatever its spelling; an IPv4-mapped IPv6 address is its IPv4 address. Remembered per
 * spelling: parsing an address costs more than the rest of a request's budget check (bench/README.md, pipeline).
 */
export function addressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  let key = recent.get(ip);
  if (key === undefined) {
    key = parseAddressKey(ip);
    if (recent.size >= ADDRESS_KEY_CACHE_SIZE) recent.clear();
    recent.set(ip, key);
  }
  return key;
}

function parseAddressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

const SOCKET_KEY = Symbol('addressKey');

/**
 * The address key of a request's client (`addressKey(req.ip)`). Without `X-Forwarded-For`, `req.ip` is the socket's
 * peer whatever TRUST_PROXY says, so the key is kept on the socket: the requests of a keep-alive connection skip
 * Express's `req.ip` (proxy-addr walks the header and the trust function on every read) and the lookup above.
 */
export function requestAddressKey(req: Request): string {
  if (req.headers['x-forwarded-for'] !== undefined) return addressKey(req.ip);
  const socket = req.socket as (Socket & { [SOCKET_KEY]?: string }) | undefined;
  if (socket === undefined) return addressKey(req.ip);
  // The peer's address is read (a getter) only for the connection's first request.
  const known = socket[SOCKET_KEY];
  if (known !== undefined) return known;
  const remote = socket.remoteAddress;
  if (remote === undefined) return addressKey(req.ip);
  return (socket[SOCKET_KEY] = addressKey(remote));
}
