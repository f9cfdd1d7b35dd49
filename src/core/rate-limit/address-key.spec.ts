import { ADDRESS_KEY_CACHE_SIZE, addressKey } from './address-key';

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
