import { networkInterfaces } from 'node:os';
import { isAllowedAddress } from '@/core/net/public-address';

/**
 * An IPv4 address of this machine that is neither public nor loopback (a container's private interface): a server
 * listening there stands for the internal service an SSRF would reach, while loopback stays allowed in tests.
 */
export function privateInterfaceAddress(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const entry of list ?? []) {
      if (entry.family === 'IPv4' && !entry.internal && !isAllowedAddress(entry.address, true)) return entry.address;
    }
  }
  throw new Error('This machine has no private IPv4 interface address to test with');
}
