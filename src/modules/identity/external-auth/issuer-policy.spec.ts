import { isLoopbackHost, issuerProblem, normalizeIssuer } from './issuer-policy';

describe('issuer policy', () => {
  const dev = { allowLoopbackHttp: true };
  const prod = { allowLoopbackHttp: false };

  it('accepts https anywhere', () => {
    expect(issuerProblem('https://accounts.google.com', prod)).toBeNull();
    expect(issuerProblem('https://login.microsoftonline.com/abc/v2.0', prod)).toBeNull();
  });

  it('accepts plain http only on loopback hosts, and not in production', () => {
    for (const issuer of ['http://127.0.0.1:4000', 'http://localhost:4000/oidc', 'http://[::1]:4000']) {
      expect(issuerProblem(issuer, dev)).toBeNull();
      expect(issuerProblem(issuer, prod)).toBe('must use https');
    }
    expect(issuerProblem('http://idp.example.org', dev)).toMatch(/https/);
    expect(issuerProblem('http://127.0.0.2', dev)).toMatch(/https/);
    expect(issuerProblem('http://localhost.example.org', dev)).toMatch(/https/);
  });

  it('refuses other schemes, credentials, queries, fragments and relative URLs', () => {
    expect(issuerProblem('ftp://idp.example.org', dev)).toMatch(/https/);
    expect(issuerProblem('https://user:pw@idp.example.org', dev)).toMatch(/credentials/);
    expect(issuerProblem('https://idp.example.org?x=1', dev)).toMatch(/query/);
    expect(issuerProblem('https://idp.example.org#x', dev)).toMatch(/fragment/);
    expect(issuerProblem('/relative', dev)).toMatch(/absolute/);
  });

  it('knows the loopback names and strips trailing slashes', () => {
    expect(isLoopbackHost('LOCALHOST')).toBe(true);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
    expect(normalizeIssuer(' https://idp.example.org/tenant/ ')).toBe('https://idp.example.org/tenant');
  });
});
