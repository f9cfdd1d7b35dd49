import { classify, fingerprint, normalizeRoute, scrub } from './telemetry-rules';

describe('telemetry rules', () => {
  it('normalizes routes', () => {
    expect(normalizeRoute('/org/1b4e28ba-2fa1-11d2-883f-0016d3cca427/courses?tab=x#top')).toBe('/org/:id/courses');
    expect(normalizeRoute('/certificates/12345/view')).toBe('/certificates/:n/view');
    expect(normalizeRoute('/u/ana@example.org/profile')).toBe('/u/:email/profile');
    expect(normalizeRoute('/page/123')).toBe('/page/123');
    expect(normalizeRoute('/a b')).toBeNull();
    expect(normalizeRoute('relative')).toBeNull();
    expect(normalizeRoute(`/${'a'.repeat(199)}`)).toHaveLength(200);
    expect(normalizeRoute(`/${'a'.repeat(200)}`)).toBeNull();
    expect(normalizeRoute('/ñ')).toBeNull();
  });

  it('scrubs emails, tokens, long numbers and URL queries', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.sig_Abc-123';
    expect(scrub(`Failed for ana.b+x@example.co.uk with svc_live_AbC123_x and ${jwt}`)).toBe(
      'Failed for [email] with [token] and [token]',
    );
    expect(scrub('svc_oat_abc svc_ort_def')).toBe('[token] [token]');
    expect(scrub('from 192.168.10.200')).toBe('from [ip]');
    expect(scrub('order 1234567 of 12345')).toBe('order [n] of 12345');
    expect(scrub('GET https://api.test/x/y?token=abc&email=a@b.co failed')).toBe('GET https://api.test/x/y failed');
  });

  it('fingerprints ignore numbers and line/column positions, not the frames', () => {
    const a = fingerprint('Cannot read 3 of undefined', 'TypeError\n    at f (app.js:10:5)\n    at g (app.js:20:1)');
    const b = fingerprint('Cannot read 7 of undefined', 'TypeError\n    at f (app.js:11:9)\n    at g (app.js:22:3)');
    const c = fingerprint('Cannot read 7 of undefined', 'TypeError\n    at h (app.js:11:9)');
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });

  it('classifies the user agent into device class and browser major', () => {
    expect(
      classify(
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
      ),
    ).toEqual({ device: 'mobile', browser: 'Mobile Safari 17' });
    expect(
      classify(
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
      ),
    ).toEqual({ device: 'desktop', browser: 'Chrome 126' });
    expect(classify(undefined)).toEqual({ device: 'desktop', browser: 'other' });
  });
});
