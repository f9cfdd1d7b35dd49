import { type ArgumentMetadata, Injectable, type PipeTransform, type Type } from '@nestjs/common';
import { createValidationPipe } from '@/core/http/validation';
import { PasskeyAssertionDto, PasskeySignInDto } from './dto/passkey.dto';

/*
 * The bodies of the passkey verify operations (`PasskeySignInDto`, `PasskeyAssertionDto`) checked without the
 * global ValidationPipe when they are plainly well formed. class-validator's metadata look-ups and class-transformer
 * on the three nested classes of an `AuthenticationResponseJSON` were the largest share of a passkey sign-in's own
 * CPU (profile in bench/README.md, passkeys). The check here is strict: it accepts only bodies the ValidationPipe
 * accepts as they are (every key known, no null where the DTO has `@IsOptional`, no `__proto__` anywhere); any other
 * body goes through the ValidationPipe itself, so a refusal is the very same 422 `validation_error`, field by field.
 * assertion-body.spec.ts holds the check against the DTOs' decorators.
 */

const BASE64URL = /^[A-Za-z0-9_-]*$/;
/** What class-validator's `@IsUUID()` accepts includes every version-4 UUID (the ids PostgreSQL generates). */
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const ATTACHMENTS: readonly unknown[] = ['platform', 'cross-platform'];

type Plain = Record<string, unknown>;

/** A JSON object (not an array, not a class instance) whose own keys are all in `allowed`. */
function objectWith(value: unknown, allowed: ReadonlySet<string>): value is Plain {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
}

const base64url = (value: unknown, max: number): boolean =>
  typeof value === 'string' && value.length <= max && BASE64URL.test(value);

/** No `__proto__` own key at any depth, and only JSON values (the ValidationPipe would strip or refuse the rest). */
function jsonWithoutProtoKeys(value: unknown, depth = 0): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth > 8) return false;
  if (Array.isArray(value)) return value.every((v) => jsonWithoutProtoKeys(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') return false;
    if (!jsonWithoutProtoKeys((value as Plain)[key], depth + 1)) return false;
  }
  return true;
}

const CREDENTIAL_KEYS = new Set([
  'id',
  'rawId',
  'type',
  'authenticatorAttachment',
  'clientExtensionResults',
  'response',
]);
const ASSERTION_KEYS = new Set(['clientDataJSON', 'authenticatorData', 'signature', 'userHandle']);

/** `AuthenticationResponseJsonDto` (dto/webauthn.dto.ts), strictly. */
export function isPlainAuthenticationResponse(value: unknown): boolean {
  if (!objectWith(value, CREDENTIAL_KEYS)) return false;
  if (!base64url(value.id, 1366) || !base64url(value.rawId, 1366) || value.type !== 'public-key') return false;
  if ('authenticatorAttachment' in value && !ATTACHMENTS.includes(value.authenticatorAttachment)) return false;
  const extensions = value.clientExtensionResults;
  if (typeof extensions !== 'object' || extensions === null || Array.isArray(extensions)) return false;
  if (!jsonWithoutProtoKeys(extensions)) return false;
  const response = value.response;
  if (!objectWith(response, ASSERTION_KEYS)) return false;
  return (
    base64url(response.clientDataJSON, 8192) &&
    base64url(response.authenticatorData, 16384) &&
    base64url(response.signature, 2048) &&
    (!('userHandle' in response) || base64url(response.userHandle, 128))
  );
}

const SIGN_IN_KEYS = new Set(['challenge_id', 'response']);
const ASSERTION_BODY_KEYS = new Set(['response']);

/** `PasskeySignInDto`, strictly: true only for a body the ValidationPipe accepts unchanged. */
export function isPlainPasskeySignIn(body: unknown): body is PasskeySignInDto {
  return (
    objectWith(body, SIGN_IN_KEYS) &&
    typeof body.challenge_id === 'string' &&
    UUID_V4.test(body.challenge_id) &&
    isPlainAuthenticationResponse(body.response)
  );
}

/** `PasskeyAssertionDto`, strictly. */
export function isPlainPasskeyAssertion(body: unknown): body is PasskeyAssertionDto {
  return objectWith(body, ASSERTION_BODY_KEYS) && isPlainAuthenticationResponse(body.response);
}

/**
 * A body pipe for a parameter typed without a class (so the global ValidationPipe leaves it alone): the strict check
 * first, else the ValidationPipe on `dto` (its 422, or its transformed value).
 */
abstract class PlainBodyPipe<T> implements PipeTransform<unknown, Promise<T>> {
  private readonly fallback = createValidationPipe();

  protected abstract readonly dto: Type<T>;
  protected abstract isPlain(body: unknown): body is T;

  async transform(body: unknown, metadata: ArgumentMetadata): Promise<T> {
    if (this.isPlain(body)) return body;
    return (await this.fallback.transform(body, { ...metadata, metatype: this.dto })) as T;
  }
}

@Injectable()
export class PasskeySignInBodyPipe extends PlainBodyPipe<PasskeySignInDto> {
  protected readonly dto = PasskeySignInDto;
  protected isPlain(body: unknown): body is PasskeySignInDto {
    return isPlainPasskeySignIn(body);
  }
}

@Injectable()
export class PasskeyAssertionBodyPipe extends PlainBodyPipe<PasskeyAssertionDto> {
  protected readonly dto = PasskeyAssertionDto;
  protected isPlain(body: unknown): body is PasskeyAssertionDto {
    return isPlainPasskeyAssertion(body);
  }
}
