import { bearerCredential, sessionCredential } from './credential';

describe('credentials', () => {
  const token = { id: 't1', userId: 'u1', organizationId: 'o1', access: 'write' as const };

  it('a bearer token acts in its organization with its access, without platform roles', () => {
    expect(bearerCredential('personal_token', token, { ageBracket: 'adult' })).toEqual({
      kind: 'personal_token',
      userId: 'u1',
      sessionId: null,
      tokenId: 't1',
      organizationId: 'o1',
      access: 'write',
      minor: false,
      impersonatorId: null,
      platformRoles: [],
    });
  });

  it("a minor's token is read-only whatever it was granted, for both kinds", () => {
    for (const kind of ['personal_token', 'oauth_token'] as const) {
      const credential = bearerCredential(kind, token, { ageBracket: 'under_18' });
      expect(credential).toMatchObject({ kind, access: 'read', minor: true });
    }
    expect(bearerCredential('oauth_token', token, { ageBracket: null })).toMatchObject({
      access: 'write',
      minor: false,
    });
  });

  it("a session writes, except a minor's; it keeps the impersonator and platform roles", () => {
    const session = { id: 's1', impersonatorId: 'admin' };
    expect(sessionCredential(session, { id: 'u1', ageBracket: 'adult', platformRoles: ['editor'] })).toEqual({
      kind: 'session',
      userId: 'u1',
      sessionId: 's1',
      tokenId: null,
      organizationId: null,
      access: 'write',
      impersonatorId: 'admin',
      platformRoles: ['editor'],
      minor: false,
    });
    expect(sessionCredential(session, { id: 'u1', ageBracket: 'under_18', platformRoles: [] })).toMatchObject({
      access: 'read',
      minor: true,
    });
  });
});
