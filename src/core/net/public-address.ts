import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Addresses a server-side fetch must never reach (SSRF): this host, private networks, link-local (cloud
 * metadata at 169.254.169.254), carrier-grade NAT, multicast, reserved and documentation ranges.
 */
const NON_PUBLIC = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NON_PUBLIC.addSubnet(net, prefix, 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** The IPv4 address an IPv6 one carries (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`), if any. */
function embeddedIPv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:(?:0:)?|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:(?:0:)?|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether a server-side fetch may connect to this literal address; loopback only when `allowLoopback`. */
export function isAllowedAddress(address: string, allowLoopback = false): boolean {
  const v4 = isIPv4(address) ? address : isIPv6(address) ? embeddedIPv4(address) : null;
  if (v4 !== null) {
    if (allowLoopback && LOOPBACK.check(v4, 'ipv4')) return true;
    return !NON_PUBLIC.check(v4, 'ipv4');
  }
  if (!isIPv6(address)) return false;
  if (allowLoopback && LOOPBACK.check(address, 'ipv6')) return true;
  return !NON_PUBLIC.check(address, 'ipv6');
}
