import type { Request } from 'express';
import { ADDRESS_KEY_CACHE_SIZE, addressKey, requestAddressKey } from './address-key';

describe('addressKey (extensions-v3 6.10)', () => {
  it('keys IPv6 by its /64, whatever the spelling', () => {
    expect(addressKey('2001:db8:aa:1::1')).toBe('2001:db8:aa:1::/64');
    expect(addressKey('2001:0DB8:00AA:0001:ffff:1:2:3')).toBe('2001:db8:aa:1::/64');
    expect(addressKey('2001:db8:aa:2::1')).toBe('2001:db8:aa:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
  });

  it('keys IPv4 (and IPv4-mapped IPv6) by the address', () => {
    expect(addressKey('198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('::ffff:c633:6407')).toBe('198.51.100.7');
  });

  it('anything else is kept as given', () => {
    expect(addressKey(undefined)).toBe('unknown');
    expect(addressKey('not-an-address')).toBe('not-an-address');
  });
});

describe('addressKey cache', () => {
  it('answers the same key from the cache and stays correct past its bound', () => {
    expect(addressKey('2001:db8:aa:1::1')).toBe('2001:db8:aa:1::/64');
    expect(addressKey('2001:db8:aa:1::1')).toBe('2001:db8:aa:1::/64');
    for (let i = 0; i <= ADDRESS_KEY_CACHE_SIZE; i++) addressKey(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(addressKey('2001:db8:aa:1::ffff')).toBe('2001:db8:aa:1::/64');
    expect(addressKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(addressKey('')).toBe('unknown');
  });
});

describe('requestAddressKey', () => {
  /** A request as Express gives it: `ip` is what TRUST_PROXY made of the socket's peer and X-Forwarded-For. */
  const request = (remoteAddress: string, ip: string, forwardedFor?: string): Request =>
    ({
      headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
      socket: { remoteAddress },
      ip,
    }) as unknown as Request;

  it('without X-Forwarded-For keys the socket peer, the same for every request of the connection', () => {
    const first = request('2001:db8:aa:1::1', '2001:db8:aa:1::1');
    expect(requestAddressKey(first)).toBe('2001:db8:aa:1::/64');
    const again = { ...first, ip: 'never read' } as unknown as Request;
    expect(requestAddressKey(again)).toBe('2001:db8:aa:1::/64');
  });

  it('with X-Forwarded-For keys req.ip (what TRUST_PROXY decided), never the cached socket key', () => {
    const socketKeyed = request('198.51.100.7', '198.51.100.7');
    expect(requestAddressKey(socketKeyed)).toBe('198.51.100.7');
    const viaProxy = { ...socketKeyed, headers: { 'x-forwarded-for': '203.0.113.5' }, ip: '203.0.113.5' };
    expect(requestAddressKey(viaProxy as unknown as Request)).toBe('203.0.113.5');
  });
});
