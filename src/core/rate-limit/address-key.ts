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
