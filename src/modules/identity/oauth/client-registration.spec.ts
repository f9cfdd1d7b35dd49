import { matchesRegisteredRedirect, redirectUriProblem, validateRegistration } from './client-registration';
import { OAuthError, singleParam } from './oauth-errors';

function errorOf(fn: () => unknown): string | null {
  try {
    fn();
    return null;
  } catch (err) {
    return err instanceof OAuthError ? err.error : 'other';
  }
}

describe('redirect URIs', () => {
  it.each([
    'https://tool.example/cb',
    'https://tool.example/cb?x=1',
    'http://127.0.0.1:8765/cb',
    'http://[::1]/cb',
    'http://localhost:3000/cb',
  ])('accepts %s', (uri) => expect(redirectUriProblem(uri)).toBeNull());

  it.each([
    ['http://tool.example/cb', /https/],
    ['https://tool.example/cb#frag', /fragment/],
    ['https://tool.example/cb#', /fragment/],
    ['https://user:pw@tool.example/cb', /credentials/],
    ['javascript:alert(1)', /https/],
    ['com.example.app:/cb', /https/],
    ['/relative', /absolute/],
    ['', /URI/],
  ])('refuses %s', (uri, why) => expect(redirectUriProblem(uri)).toMatch(why));

  it('matches exactly, except the port of a loopback IP literal', () => {
    const registered = ['https://tool.example/cb', 'http://127.0.0.1:9000/cb?x=1'];
    expect(matchesRegisteredRedirect(registered, 'https://tool.example/cb')).toBe(true);
    expect(matchesRegisteredRedirect(registered, 'https://tool.example/cb/')).toBe(false);
    expect(matchesRegisteredRedirect(registered, 'https://tool.example/other')).toBe(false);
    expect(matchesRegisteredRedirect(registered, 'https://tool.example/cb?extra=1')).toBe(false);
    expect(matchesRegisteredRedirect(registered, 'https://TOOL.example/cb')).toBe(false);
    expect(matchesRegisteredRedirect(registered, 'http://tool.example/cb')).toBe(false);
    expect(matchesRegisteredRedirect(registered, 'http://127.0.0.1:5555/cb?x=1')).toBe(true);
    expect(matchesRegisteredRedirect(registered, 'http://127.0.0.1:5555/cb')).toBe(false);
    expect(matchesRegisteredRedirect(registered, 'http://localhost:9000/cb?x=1')).toBe(false);
  });
});

describe('protocol parameters', () => {
  it('are at most 2048 characters (invalid_request beyond)', () => {
    expect(singleParam({ state: 'x'.repeat(2048) }, 'state')).toHaveLength(2048);
    expect(() => singleParam({ state: 'x'.repeat(2049) }, 'state')).toThrow(
      expect.objectContaining({ error: 'invalid_request' }) as Error,
    );
  });
});

describe('validateRegistration', () => {
  const valid = { redirect_uris: ['https://tool.example/cb'], client_name: 'Tool' };

  it('defaults to a public authorization-code client with the svc scope', () => {
    expect(validateRegistration(valid)).toEqual({
      redirect_uris: ['https://tool.example/cb'],
      client_name: 'Tool',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'svc',
      client_uri: null,
      logo_uri: null,
      software_id: null,
      software_version: null,
    });
  });

  it('takes refresh tokens and ignores unknown metadata', () => {
    const m = validateRegistration({ ...valid, grant_types: ['authorization_code', 'refresh_token'], contacts: ['x'] });
    expect(m.grant_types).toEqual(['authorization_code', 'refresh_token']);
  });

  it.each([
    [{}, 'invalid_redirect_uri'],
    [{ redirect_uris: [] }, 'invalid_redirect_uri'],
    [{ redirect_uris: 'https://tool.example/cb' }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['http://tool.example/cb'] }, 'invalid_redirect_uri'],
    [{ redirect_uris: ['https://tool.example/cb#x'] }, 'invalid_redirect_uri'],
    [{ ...valid, token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
    [{ ...valid, grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    [{ ...valid, grant_types: ['refresh_token'] }, 'invalid_client_metadata'],
    // Lists are bounded (10 entries of at most 100 characters), as the OpenAPI description says.
    [{ ...valid, grant_types: Array.from({ length: 11 }, () => 'authorization_code') }, 'invalid_client_metadata'],
    [{ ...valid, response_types: ['code', 'x'.repeat(101)] }, 'invalid_client_metadata'],
    [{ ...valid, response_types: ['token'] }, 'invalid_client_metadata'],
    [{ ...valid, scope: 'svc admin' }, 'invalid_client_metadata'],
    [{ ...valid, client_name: 'x'.repeat(201) }, 'invalid_client_metadata'],
    [{ ...valid, logo_uri: 'http://tool.example/logo.png' }, 'invalid_client_metadata'],
    [[], 'invalid_client_metadata'],
    ['text', 'invalid_client_metadata'],
  ])('%j -> %s', (body, code) => expect(errorOf(() => validateRegistration(body))).toBe(code));
});
