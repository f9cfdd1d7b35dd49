import type { ArgumentMetadata } from '@nestjs/common';
import { createValidationPipe } from '@/core/http/validation';
import {
  isPlainPasskeyAssertion,
  isPlainPasskeySignIn,
  PasskeyAssertionBodyPipe,
  PasskeySignInBodyPipe,
} from './assertion-body';
import { PasskeyAssertionDto, PasskeySignInDto } from './dto/passkey.dto';

const b64 = (bytes: number, fill = 7): string => Buffer.alloc(bytes, fill).toString('base64url');

/** An `AuthenticationResponseJSON` as a browser's `toJSON()` gives it. */
const answer = (): Record<string, unknown> => ({
  id: b64(32, 1),
  rawId: b64(32, 1),
  type: 'public-key',
  authenticatorAttachment: 'platform',
  clientExtensionResults: {},
  response: {
    clientDataJSON: Buffer.from(
      JSON.stringify({ type: 'webauthn.get', challenge: b64(32, 2), origin: 'http://localhost:3000' }),
    ).toString('base64url'),
    authenticatorData: b64(37, 3),
    signature: b64(71, 4),
    userHandle: Buffer.from('2f0e5c9e-6c1e-4c6a-9d3e-0c1b2a3d4e5f').toString('base64url'),
  },
});
const CHALLENGE_ID = '0b9a3c1e-5d4f-4a2b-8c7d-6e5f4a3b2c1d';

type Body = Record<string, unknown>;
/** A copy of `body` with `change` applied to it (or to its `response`, or to `response.response`). */
function variant(base: () => Body, at: 'body' | 'credential' | 'assertion', change: (o: Body) => void): Body {
  const body = base();
  const credential = body.response as Body;
  change(at === 'body' ? body : at === 'credential' ? credential : (credential.response as Body));
  return body;
}

const signIn = (): Body => ({ challenge_id: CHALLENGE_ID, response: answer() });
const assertion = (): Body => ({ response: answer() });

/** Bodies of every kind: well formed, edge cases the DTO accepts, and each rule broken. */
function cases(base: () => Body): [string, unknown][] {
  const v = (at: 'body' | 'credential' | 'assertion', change: (o: Body) => void) => variant(base, at, change);
  return [
    ['well formed', base()],
    ['no userHandle', v('assertion', (o) => delete o.userHandle)],
    ['no authenticatorAttachment', v('credential', (o) => delete o.authenticatorAttachment)],
    ['cross-platform', v('credential', (o) => (o.authenticatorAttachment = 'cross-platform'))],
    ['credProps output', v('credential', (o) => (o.clientExtensionResults = { credProps: { rk: true } }))],
    ['an unknown extension output', v('credential', (o) => (o.clientExtensionResults = { other: [1, 'x', null] }))],
    ['userHandle null', v('assertion', (o) => (o.userHandle = null))],
    ['authenticatorAttachment null', v('credential', (o) => (o.authenticatorAttachment = null))],
    ['empty strings', v('assertion', (o) => (o.signature = ''))],
    ['id at its limit', v('credential', (o) => (o.id = 'a'.repeat(1366)))],
    ['id too long', v('credential', (o) => (o.id = 'a'.repeat(1367)))],
    ['signature at its limit', v('assertion', (o) => (o.signature = 'a'.repeat(2048)))],
    ['signature too long', v('assertion', (o) => (o.signature = 'a'.repeat(2049)))],
    ['userHandle too long', v('assertion', (o) => (o.userHandle = 'a'.repeat(129)))],
    ['clientDataJSON too long', v('assertion', (o) => (o.clientDataJSON = 'a'.repeat(8193)))],
    ['authenticatorData too long', v('assertion', (o) => (o.authenticatorData = 'a'.repeat(16385)))],
    ['standard base64', v('assertion', (o) => (o.signature = 'ab+/=='))],
    ['rawId not base64url', v('credential', (o) => (o.rawId = 'a b'))],
    ['a number for a string', v('assertion', (o) => (o.authenticatorData = 42))],
    ['wrong type', v('credential', (o) => (o.type = 'password'))],
    ['wrong attachment', v('credential', (o) => (o.authenticatorAttachment = 'usb'))],
    ['no clientExtensionResults', v('credential', (o) => delete o.clientExtensionResults)],
    ['clientExtensionResults an array', v('credential', (o) => (o.clientExtensionResults = []))],
    ['clientExtensionResults null', v('credential', (o) => (o.clientExtensionResults = null))],
    [
      '__proto__ in the extension outputs',
      v('credential', (o) => (o.clientExtensionResults = JSON.parse('{"__proto__": {"x": 1}, "credProps": {}}'))),
    ],
    ['no signature', v('assertion', (o) => delete o.signature)],
    ['an unknown field in the assertion', v('assertion', (o) => (o.attestationObject = b64(10)))],
    ['an unknown field in the credential', v('credential', (o) => (o.extra = 1))],
    ['an unknown field in the body', v('body', (o) => (o.extra = 'x'))],
    ['__proto__ in the body', JSON.parse(JSON.stringify(base()).replace(/^\{/, '{"__proto__": {"admin": true}, '))],
    ['response an array', v('body', (o) => (o.response = [answer()]))],
    ['response a string', v('body', (o) => (o.response = 'x'))],
    ['no response', v('body', (o) => delete o.response)],
    ['assertion response null', v('credential', (o) => (o.response = null))],
    ['challenge_id not a uuid', v('body', (o) => (o.challenge_id = 'abc'))],
    ['challenge_id upper case', v('body', (o) => (o.challenge_id = CHALLENGE_ID.toUpperCase()))],
    ['challenge_id a version 1 uuid', v('body', (o) => (o.challenge_id = '0b9a3c1e-5d4f-11eb-8c7d-6e5f4a3b2c1d'))],
    ['challenge_id a number', v('body', (o) => (o.challenge_id = 1))],
    ['no challenge_id', v('body', (o) => delete o.challenge_id)],
    ['an array body', [signIn()]],
    ['a string body', 'x'],
    ['null', null],
    ['an empty object', {}],
  ];
}

const metadata = (metatype: ArgumentMetadata['metatype']): ArgumentMetadata => ({ type: 'body', metatype });

/** What the global ValidationPipe answers for `body` as `dto`: the value, or the error's status and details. */
async function byValidationPipe(body: unknown, dto: ArgumentMetadata['metatype']): Promise<unknown> {
  try {
    return { value: JSON.parse(JSON.stringify(await createValidationPipe().transform(clone(body), metadata(dto)))) };
  } catch (err) {
    return { error: (err as { getResponse?: () => unknown }).getResponse?.() ?? String(err) };
  }
}

async function byPipe(pipe: { transform(b: unknown, m: ArgumentMetadata): Promise<unknown> }, body: unknown) {
  try {
    return { value: JSON.parse(JSON.stringify(await pipe.transform(clone(body), metadata(Object)))) };
  } catch (err) {
    return { error: (err as { getResponse?: () => unknown }).getResponse?.() ?? String(err) };
  }
}

/** A deep copy that keeps own `__proto__` keys (as JSON.parse makes them); the pipes may change what they get. */
const clone = (body: unknown): unknown => (body === undefined ? body : JSON.parse(JSON.stringify(body)));

describe.each([
  ['PasskeySignInDto', PasskeySignInDto, isPlainPasskeySignIn, new PasskeySignInBodyPipe(), signIn],
  ['PasskeyAssertionDto', PasskeyAssertionDto, isPlainPasskeyAssertion, new PasskeyAssertionBodyPipe(), assertion],
] as const)('the strict check of %s', (_name, dto, isPlain, pipe, base) => {
  it.each(cases(base))('%s: accepted only when the ValidationPipe accepts it unchanged', async (_case, body) => {
    const expected = await byValidationPipe(body, dto);
    if (isPlain(clone(body))) expect(expected).toEqual({ value: body });
  });

  it.each(cases(base))('%s: the body pipe answers what the ValidationPipe answers', async (_case, body) => {
    expect(await byPipe(pipe, body)).toEqual(await byValidationPipe(body, dto));
  });

  it('takes the usual answers of a browser without the ValidationPipe', () => {
    for (const body of [
      base(),
      variant(base, 'assertion', (o) => delete o.userHandle),
      variant(base, 'credential', (o) => delete o.authenticatorAttachment),
      variant(base, 'credential', (o) => (o.clientExtensionResults = { credProps: { rk: true } })),
    ]) {
      expect(isPlain(clone(body))).toBe(true);
    }
  });

  it('leaves every refusal to the ValidationPipe', async () => {
    for (const [, body] of cases(base)) {
      const expected = await byValidationPipe(body, dto);
      if ('error' in (expected as object)) expect(isPlain(clone(body))).toBe(false);
    }
  });
});
