import {
  connectionIssuerProblem,
  isGoogleIssuer,
  issuerTenant,
  normalizeDomain,
  verificationRecord,
} from './sso-rules';

describe('normalizeDomain', () => {
  it.each([
    ['University.Example', 'university.example'],
    [' uni.example. ', 'uni.example'],
    ['mail.cs.uni-x.example', 'mail.cs.uni-x.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
  ])('%s -> %s', (input, expected) => expect(normalizeDomain(input)).toBe(expected));

  it.each([
    'example',
    'a..example',
    '-uni.example',
    'uni-.example',
    'uni_x.example',
    '10.0.0.1',
    'bücher.example',
    `${'a'.repeat(64)}.example`,
  ])('refuses %s', (input) => expect(normalizeDomain(input)).toBeNull());
});

describe('connection issuers', () => {
  it('refuses multi-tenant Microsoft issuers and accepts a named tenant', () => {
    expect(connectionIssuerProblem('https://login.microsoftonline.com/common/v2.0')).toMatch(/tenant/);
    expect(connectionIssuerProblem('https://login.microsoftonline.com/organizations/v2.0')).toMatch(/tenant/);
    expect(
      connectionIssuerProblem('https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0'),
    ).toBeNull();
    expect(connectionIssuerProblem('https://login.university.example')).toBeNull();
  });

  it('reads the tenant of an issuer path and recognises Google', () => {
    expect(issuerTenant('https://login.microsoftonline.com/72F988BF-86F1-41AF-91AB-2D7CD011DB47/v2.0')).toBe(
      '72f988bf-86f1-41af-91ab-2d7cd011db47',
    );
    expect(issuerTenant('https://idp.example.org/realms/x')).toBeNull();
    expect(isGoogleIssuer('https://accounts.google.com/')).toBe(true);
    expect(isGoogleIssuer('https://idp.example.org')).toBe(false);
  });

  it('names the TXT record under the domain', () => {
    expect(verificationRecord('uni.example', 'tok')).toEqual({
      type: 'dns_txt',
      name: '_lp-sso.uni.example',
      value: 'lp-sso-verification=tok',
    });
  });
});
