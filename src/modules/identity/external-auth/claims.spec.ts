import { emailDomain, identityFromClaims, isTenantId } from './claims';

describe('identityFromClaims', () => {
  const base = { iss: 'https://idp.example.org', sub: 'abc', email: 'Ana@Uni.Example', email_verified: true };

  it('takes subject, lower-cased email and the verified flag', () => {
    expect(identityFromClaims(base)).toEqual({
      issuer: 'https://idp.example.org',
      subject: 'abc',
      email: 'ana@uni.example',
      emailVerified: true,
      hd: null,
      tid: null,
      locale: 'es',
    });
  });

  it('counts only the boolean true as verified', () => {
    expect(identityFromClaims({ ...base, email_verified: 'true' })?.emailVerified).toBe(false);
    expect(identityFromClaims({ ...base, email_verified: undefined })?.emailVerified).toBe(false);
  });

  it('keeps hd, tid and an English locale', () => {
    const id = identityFromClaims({ ...base, hd: 'Uni.Example', tid: 'ABC', locale: 'en-GB' });
    expect([id?.hd, id?.tid, id?.locale]).toEqual(['uni.example', 'abc', 'en']);
  });

  it('refuses tokens without a subject or an address', () => {
    expect(identityFromClaims({ ...base, sub: '' })).toBeNull();
    expect(identityFromClaims({ ...base, email: 'not an address' })).toBeNull();
    expect(identityFromClaims({ ...base, email: undefined })).toBeNull();
  });
});

describe('helpers', () => {
  it('emailDomain', () => {
    expect(emailDomain('a@B.example')).toBe('b.example');
    expect(emailDomain('nodomain@')).toBeNull();
    expect(emailDomain('@x.org')).toBeNull();
  });

  it('isTenantId', () => {
    expect(isTenantId('72f988bf-86f1-41af-91ab-2d7cd011db47')).toBe(true);
    expect(isTenantId('common')).toBe(false);
  });
});
