import { isAllowedAddress } from '@/core/http/public-address';

describe('addresses a server-side fetch may reach', () => {
  it('allows public IPv4 and IPv6 addresses', () => {
    for (const ip of ['8.8.8.8', '151.101.1.69', '1.1.1.1', '2606:4700:4700::1111', '2a00:1450:4003:80e::200e']) {
      expect([ip, isAllowedAddress(ip)]).toEqual([ip, true]);
    }
  });

  it('refuses loopback, private, link-local (cloud metadata), CGNAT, multicast, reserved and documentation ranges', () => {
    for (const ip of [
      '127.0.0.1',
      '127.8.9.10',
      '0.0.0.0',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '240.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '198.18.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '2001:db8::1',
    ]) {
      expect([ip, isAllowedAddress(ip)]).toEqual([ip, false]);
    }
  });

  it('looks through IPv4 addresses carried in IPv6 (mapped and NAT64)', () => {
    expect(isAllowedAddress('::ffff:127.0.0.1')).toBe(false);
    expect(isAllowedAddress('::ffff:7f00:1')).toBe(false);
    expect(isAllowedAddress('::ffff:a9fe:a9fe')).toBe(false);
    expect(isAllowedAddress('64:ff9b::10.0.0.1')).toBe(false);
    expect(isAllowedAddress('::ffff:8.8.8.8')).toBe(true);
  });

  it('allows loopback only when asked (tests), never the other private ranges', () => {
    expect(isAllowedAddress('127.0.0.1', true)).toBe(true);
    expect(isAllowedAddress('::1', true)).toBe(true);
    expect(isAllowedAddress('::ffff:127.0.0.1', true)).toBe(true);
    expect(isAllowedAddress('10.0.0.1', true)).toBe(false);
    expect(isAllowedAddress('169.254.169.254', true)).toBe(false);
  });

  it('refuses anything that is not an address', () => {
    expect(isAllowedAddress('example.com')).toBe(false);
    expect(isAllowedAddress('')).toBe(false);
  });
});
