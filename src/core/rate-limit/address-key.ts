import ipaddr from 'ipaddr.js';

/**
 * The key of a client address for per-address limits (extensions-v3 6.10): an IPv4 address is itself; an IPv6
 * address is its /64 (a subscriber gets a whole /64 and rotates through it freely), written canonically so one
 * prefix has one key whatever its spelling; an IPv4-mapped IPv6 address is its IPv4 address.
 */
export function addressKey(ip: string | undefined): string {
  if (!ip || !ipaddr.isValid(ip)) return ip || 'unknown';
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
