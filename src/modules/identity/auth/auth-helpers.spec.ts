import { deviceSummary } from './session.service';

const CASES: [string | undefined, string][] = [
  ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0', 'Firefox 132 on Ubuntu'],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    'Chrome 131 on macOS 10',
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
    'Mobile Safari 17 on iOS 17',
  ],
  [undefined, 'Unknown device'],
  ['curl/8.5.0', 'curl/8.5.0'],
];

describe('deviceSummary', () => {
  it.each(CASES)('%s -> %s', (ua, expected) => {
    expect(deviceSummary(ua)).toBe(expected);
  });

  it('answers each user agent its own summary when they are asked again, in another order (kept ones)', () => {
    for (const [ua, expected] of [...CASES].reverse()) expect(deviceSummary(ua)).toBe(expected);
    for (const [ua, expected] of CASES) expect(deviceSummary(ua)).toBe(expected);
  });
});
