import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Strategy as JwtStrategy } from 'passport-jwt';
import { VerifiedTokenMemo } from './verified-tokens';

type Verifier = (
  token: string,
  key: unknown,
  options: unknown,
  cb: (err: Error | null, payload?: unknown) => void,
) => void;
const holder = JwtStrategy as unknown as { JwtVerifier: Verifier };

describe('VerifiedTokenMemo (passport-jwt verifies each token once)', () => {
  const original = holder.JwtVerifier;
  const key = createSecretKey(Buffer.alloc(32, 7));
  const otherKey = createSecretKey(Buffer.alloc(32, 8));
  const options = { algorithms: ['HS256'], issuer: 'https://issuer.test', audience: 'access', ignoreExpiration: true };
  const sign = (claims: object, k = key): string =>
    jwt.sign(claims, k, { algorithm: 'HS256', issuer: 'https://issuer.test', audience: 'access' });
  let calls: number;

  beforeEach(() => {
    calls = 0;
    holder.JwtVerifier = (token, k, opts, cb) => {
      calls++;
      original(token, k, opts, cb);
    };
  });
  afterEach(() => {
    holder.JwtVerifier = original;
  });

  const verify = (
    token: string,
    k: unknown = key,
    opts: unknown = options,
  ): Promise<{ err: Error | null; payload?: unknown }> =>
    new Promise((resolve) => holder.JwtVerifier(token, k, opts, (err, payload) => resolve({ err, payload })));

  it('verifies a token through passport-jwt the first time, then answers the same claims from memory', async () => {
    const memo = new VerifiedTokenMemo(key);
    memo.install(options);
    const token = sign({ sub: 'u1', sid: 's1', tv: 0 });
    const first = await verify(token);
    const second = await verify(token);
    expect(first.err).toBeNull();
    expect(second).toEqual(first);
    expect(second.payload).toMatchObject({ sub: 'u1', sid: 's1', iss: 'https://issuer.test', aud: 'access' });
    expect(calls).toBe(1);
    expect(Object.isFrozen(second.payload)).toBe(true);
  });

  it('never remembers a failure: a bad signature, issuer or audience fails every time', async () => {
    const memo = new VerifiedTokenMemo(key);
    memo.install(options);
    const good = sign({ sub: 'u1' });
    const tampered = good.slice(0, -2) + (good.endsWith('AA') ? 'BB' : 'AA');
    const foreign = sign({ sub: 'u1' }, otherKey);
    const wrongAudience = jwt.sign({ sub: 'u1' }, key, {
      algorithm: 'HS256',
      issuer: 'https://issuer.test',
      audience: 'x',
    });
    const none = jwt.sign({ sub: 'u1' }, '', { algorithm: 'none' } as jwt.SignOptions);
    for (const token of [tampered, foreign, wrongAudience, none]) {
      expect((await verify(token)).err).toBeInstanceOf(Error);
      expect((await verify(token)).err).toBeInstanceOf(Error);
    }
    expect(calls).toBe(8);
    expect(memo.size).toBe(0);
  });

  it('leaves other keys and other option sets to passport-jwt every time', async () => {
    const memo = new VerifiedTokenMemo(key);
    memo.install(options);
    const token = sign({ sub: 'u1' });
    await verify(token, key, { ...options });
    await verify(token, key, { ...options });
    const foreign = sign({ sub: 'u2' }, otherKey);
    expect((await verify(foreign, otherKey, options)).err).toBeNull();
    expect((await verify(foreign, otherKey, options)).err).toBeNull();
    expect(calls).toBe(4);
    expect(memo.size).toBe(0);
  });

  it('is bounded: past its size the oldest token is verified again', async () => {
    const memo = new VerifiedTokenMemo(key, 2);
    memo.install(options);
    const [a, b, c] = ['a', 'b', 'c'].map((sub) => sign({ sub }));
    await verify(a);
    await verify(b);
    await verify(c);
    expect(memo.size).toBe(2);
    expect(calls).toBe(3);
    await verify(c);
    expect(calls).toBe(3);
    await verify(a);
    expect(calls).toBe(4);
  });
});
