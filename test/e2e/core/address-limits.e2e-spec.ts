import { createTestApp, type TestApp } from '../../support/test-app';

/**
 * extensions-v3 6.10: per-address limits key IPv6 addresses by their /64 (one subscriber's whole prefix), IPv4
 * addresses by themselves; an IPv4-mapped IPv6 address counts as its IPv4 address.
 */
describe('per-address limits (6.10)', () => {
  let t: TestApp;
  let emails = 0;

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  // `auth.otp_request.ip`: 20 per 15 minutes per address (each request a new email, so only the address counts).
  const ask = (ip: string) =>
    t
      .client(ip)
      .post('/api/v1/auth/otp/request')
      .send({ email: `v6.${++emails}.${t.suffix}@example.com` });

  it('20 addresses of one IPv6 /64 share one budget: the 21st is 429; another /64 is not affected', async () => {
    for (let i = 1; i <= 20; i++) {
      await ask(`2001:db8:aa:1:${i.toString(16)}::${i.toString(16)}`).expect(200);
    }
    const res = await ask('2001:db8:aa:1:ffff:ffff:ffff:fffe').expect(429);
    expect(res.body.error.code).toBe('too_many_requests');
    // The same prefix written another way (leading zeros, upper case) is the same /64.
    await ask('2001:0DB8:00AA:0001::99').expect(429);
    await ask('2001:db8:aa:2::1').expect(200);
  });

  it('an IPv4-mapped IPv6 address counts as its IPv4 address; IPv4 addresses are keyed one by one', async () => {
    for (let i = 1; i <= 20; i++) await ask(i % 2 ? '198.51.100.7' : '::ffff:198.51.100.7').expect(200);
    await ask('::ffff:c633:6407').expect(429);
    await ask('198.51.100.8').expect(200);
  });
});
